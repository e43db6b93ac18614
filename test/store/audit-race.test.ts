import Database from 'better-sqlite3'
import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {findBrokenAuditLink} from '../../src/store/audit.js'
import {openCase} from '../../src/store/open-case.js'
import {ROOT, tempDir} from '../helpers/cli.js'

// Two processes appending to one case's audit log at once: each read the same last entry outside a
// transaction and the second insert failed ("UNIQUE constraint failed: audit_log.seq"). Found when
// two `ingest canaries` creating one case at once both got past opening it.
const APPENDER = `
const {openCase} = await import(${JSON.stringify(join(ROOT, 'dist/store/open-case.js'))})
const {appendAudit} = await import(${JSON.stringify(join(ROOT, 'dist/store/audit.js'))})
const db = openCase(process.argv[1])
// Every process starts appending at the same moment.
while (Date.now() < Number(process.argv[2]));
for (let i = 0; i < 400; i++) appendAudit(db, {at: new Date(), command: 'test', args: {i, pid: process.pid}, version: '0', summary: null})
db.close()
`

const appender = (path: string, startAt: number): Promise<{code: number | null; stderr: string}> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', APPENDER, path, String(startAt)], {stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('close', (code) => resolve({code, stderr}))
  })

describe('appendAudit from two processes at once', () => {
  it('keeps every entry, in one unbroken chain', async () => {
    const path = join(tempDir('ct-audit-race-'), 'case.db')
    openCase(path, {create: true}).close()
    const startAt = Date.now() + 1500
    const runs = await Promise.all([appender(path, startAt), appender(path, startAt), appender(path, startAt)])
    for (const r of runs) expect(r.stderr).toBe('')
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0])
    const db = new Database(path, {readonly: true})
    try {
      expect(db.prepare('SELECT count(*) FROM audit_log').pluck().get()).toBe(1200)
      expect(findBrokenAuditLink(db as never)).toBeNull()
    } finally {
      db.close()
    }
  }, 60_000)
})
