import Database from 'better-sqlite3'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA (verify): the opaque labels (tenant#N) a processor notice names other customers by were
// checked by nothing: swapped or edited with sqlite, verify said OK and the next notice named
// the wrong customer. Each test tampers a copy by hand and expects verify to name the tenant.

const A = 'CANARY-0123456789abcdef0123'
const B = 'CANARY-fedcba9876543210fedc'
const C = 'CANARY-00112233445566778899'
const answer = (text: string) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})
const line = (o: Record<string, unknown>): string => JSON.stringify({status: 200, ...o})

let dir: string
let scanned: string

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-11-01T00:00:00Z\n${B},tB,sB,2026-11-01T00:00:00Z\n${C},tC,sC,2026-11-01T00:00:00Z\n`)
  const log = join(dir, 'gateway.jsonl')
  // tA receives tB's marker first, then tC's: its labels are tB -> tenant#1, tC -> tenant#2.
  writeFileSync(log, `${[
    line({ts: '2026-11-02T10:00:00Z', request_id: 'b1', tenant_id: 'tB', session_id: 'sB', request: {messages: [{role: 'user', content: `hi ${B}`}]}, response: answer('ok')}),
    line({ts: '2026-11-02T10:00:01Z', request_id: 'c1', tenant_id: 'tC', session_id: 'sC', request: {messages: [{role: 'user', content: `hi ${C}`}]}, response: answer('ok')}),
    line({ts: '2026-11-02T10:00:02Z', request_id: 'a1', tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: `hi ${A}`}]}, response: answer(`here ${B}`)}),
    line({ts: '2026-11-02T10:00:03Z', request_id: 'a2', tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: `hi ${A}`}]}, response: answer(`and ${C}`)}),
  ].join('\n')}\n`)
  scanned = join(dir, 'scanned.db')
  await run(['triage', log, '--canaries', canaries, '--db', scanned])
})

let copies = 0
function tampered(sql: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(scanned + suffix)) copyFileSync(scanned + suffix, path + suffix)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return path
}

async function verify(path: string): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, '--no-originals'])
  return {code: r.code, out: r.stdout + r.stderr}
}

function labels(path: string): Array<{tenant: string; other: string; label: number}> {
  const db = new Database(path, {readonly: true})
  try {
    return db.prepare('SELECT tenant, other, label FROM tenant_labels ORDER BY tenant, label').all() as Array<{tenant: string; other: string; label: number}>
  } finally {
    db.close()
  }
}

describe('verify and the tenant labels', () => {
  it('passes the untouched case, whose labels the scan gave', async () => {
    expect(labels(scanned).filter((l) => l.tenant === 'tA')).toEqual([{tenant: 'tA', other: 'tB', label: 1}, {tenant: 'tA', other: 'tC', label: 2}])
    const r = await verify(scanned)
    expect(r.out).not.toMatch(/tenant labels/)
    expect(r.code).toBe(0)
  })

  it('fails when two labels are swapped by hand, naming the tenant and both labels', async () => {
    const t = tampered(`UPDATE tenant_labels SET label = 99 WHERE tenant = 'tA' AND other = 'tB';
      UPDATE tenant_labels SET label = 1 WHERE tenant = 'tA' AND other = 'tC';
      UPDATE tenant_labels SET label = 2 WHERE tenant = 'tA' AND other = 'tB';`)
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/tenant labels of "tA": "tB" is tenant#2, .*it is tenant#1/)
    expect(r.out).toMatch(/tenant labels of "tA": "tC" is tenant#1, .*it is tenant#2/)
  })

  it('fails when a label is renumbered by hand', async () => {
    const t = tampered(`UPDATE tenant_labels SET label = 7 WHERE tenant = 'tA' AND other = 'tC'`)
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/tenant labels of "tA": numbered tenant#1, tenant#7/)
  })

  it('fails when a label is given to another customer by hand', async () => {
    const t = tampered(`UPDATE tenant_labels SET other = 'tZ' WHERE tenant = 'tA' AND other = 'tB'`)
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/"tZ" is tenant#1, given by the last scan, .*no label is given to it/)
    expect(r.out).toMatch(/"tB" has no label given by the last scan, .*it is tenant#1/)
  })
})
