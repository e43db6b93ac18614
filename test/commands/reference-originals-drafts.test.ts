import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {nativeLine} from '../helpers/case-builder.js'

// Logs kept by reference (ingest logs --evidence reference): the case holds none of their bytes.
// The drafts said every original "is kept where it was collected" with one moved away or edited;
// they now check each original as verify does, and state a missing or changed one as an open item.

const MARKER = 'CANARY-a1a1a1a1a1a1a1a1a1a1'

async function referenceCase(): Promise<{db: string; logs: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  const t0 = Date.parse('2026-10-22T10:00:00Z')
  writeFileSync(join(logs, 'a.jsonl'), JSON.stringify(nativeLine({request_id: 'ra', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'}, t0)) + '\n')
  writeFileSync(join(logs, 'b.jsonl'), JSON.stringify(nativeLine({request_id: 'rb', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Why did the chicken ${MARKER}`}, t0 + 60_000)) + '\n')
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${MARKER},acme,acme-s1,\n`)
  const db = join(dir, 'case.db')
  for (const args of [['ingest', 'canaries', join(dir, 'canaries.csv')], ['ingest', 'logs', logs, '--evidence', 'reference'], ['scan'], ['incident', 'open', '--title', 't', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor']]) {
    const r = await run([...args, '--db', db])
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  }
  return {db, logs}
}

const drafts = async (db: string) => ({
  notice: (await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--lang', 'en'])).stdout,
  a33: (await run(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'acme'])).stdout,
})

describe('drafts over logs kept by reference', () => {
  it('never say an original is kept where it was collected; a missing or changed one is an open item', async () => {
    const {db, logs} = await referenceCase()
    const intact = await drafts(db)
    expect(intact.notice).toContain('all of them are kept by reference: the case holds no copy')
    expect(intact.notice).not.toMatch(/kept where they were collected/)
    expect(intact.notice).not.toMatch(/no longer as ingested/)
    expect(intact.a33).not.toMatch(/no longer as ingested/)

    renameSync(join(logs, 'b.jsonl'), join(logs, '..', 'b.moved'))
    const moved = await drafts(db)
    for (const text of [moved.notice, moved.a33]) {
      expect(text).toContain('1 log file kept by reference is no longer as ingested (b.jsonl: missing)')
      expect(text).toMatch(/to be completed: 1 log file kept by reference is missing or changed since ingest \(b\.jsonl\)/)
    }
    renameSync(join(logs, '..', 'b.moved'), join(logs, 'b.jsonl'))

    // Same length, other bytes: a size check alone would not see it.
    const b = join(logs, 'b.jsonl')
    writeFileSync(b, readFileSync(b, 'utf8').replace('chicken', 'turkey '))
    const edited = await drafts(db)
    for (const text of [edited.notice, edited.a33]) expect(text).toContain('1 log file kept by reference is no longer as ingested (b.jsonl: changed)')
  }, 60_000)
})
