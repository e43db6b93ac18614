import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// A customer whose only involvement is a leaking retry (a line logged under the request id of a
// response already counted) was named in the processor notices, the case report and its own
// tenant view, but left out of `clock --json`'s controllers and the register's count: a processor
// reading its clock had no deadline for a customer it must notify. Every output that lists or
// counts the controllers now takes the same set.
//
// The case: tn-gamma's response carries tn-alpha's marker (a counted exposure: both concerned);
// tn-beta's request req-2 is logged twice, its retry (b.jsonl) carrying tn-alpha's marker: tn-beta
// is concerned only through the retry; tn-delta, in no leak at all.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const C = 'CANARY-c3c3c3c3c3c3c3c3c3c3'
const D = 'CANARY-d4d4d4d4d4d4d4d4d4d4'

let db: string

beforeAll(async () => {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'a.jsonl'), [
    bareLine('req-1', 'tn-alpha', 'sess-a1', `hi ${A}`, 'fine', '2026-11-02T10:00:00Z'),
    bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z'),
    bareLine('req-3', 'tn-gamma', 'sess-c1', `hi ${C}`, `look: ${A}`, '2026-11-02T10:02:00Z'),
    bareLine('req-4', 'tn-delta', 'sess-d1', `hi ${D}`, 'fine', '2026-11-02T10:03:00Z'),
  ].join('\n') + '\n')
  writeFileSync(join(logs, 'b.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, `here you go: ${A}`, '2026-11-02T10:01:05Z')}\n`)
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n${C},tn-gamma,sess-c1,\n${D},tn-delta,sess-d1,\n`)
  db = join(dir, 'case.db')
  const gate = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--fail-on-leak'])
  expect(gate.code, gate.stderr).toBe(3)
  const opened = await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor', '--controller-deadline-hours', '24'])
  expect(opened.code, opened.stderr).toBe(0)
}, 120_000)

type Clock = {controllers: Array<{tenant_id: string; deadline: string | null; status: string}>; status: string}
type Register = {controllers_affected: number | null; controllers_notified: number; open_items: Array<{item: string}>}

describe('a customer concerned only through a leaking retry is one of the controllers everywhere', () => {
  it('every output that lists or counts the controllers gives the same set as the notices', async () => {
    const notices = join(tempDir(), 'notices')
    expect((await run(['report', 'processor-notice', '--db', db, '--all', '--out', notices])).code).toBe(0)
    const clock = await runJson<Clock>(['clock', '--db', db, '--now', '2026-11-02T12:00:00Z', '--json'])
    expect(clock.controllers.map((c) => c.tenant_id)).toEqual(['tn-alpha', 'tn-beta', 'tn-gamma'])
    // Its own deadline is the contract's, as the others'.
    expect(clock.controllers.find((c) => c.tenant_id === 'tn-beta')).toMatchObject({deadline: '2026-11-03T09:00:00.000Z', status: 'open'})
    const status = await runJson<{clock: Clock}>(['status', '--db', db, '--json'])
    expect(status.clock.controllers.map((c) => c.tenant_id)).toEqual(['tn-alpha', 'tn-beta', 'tn-gamma'])
    const register = await runJson<Register>(['report', 'register', '--db', db, '--format', 'json'])
    expect(register.controllers_affected).toBe(3)
    expect(register.open_items.map((o) => o.item)).toContain('notices to 3 affected controllers, not yet recorded')
    const report = await runJson<{clock: Clock}>(['report', 'case', '--db', db, '--format', 'json'])
    expect(report.clock.controllers.map((c) => c.tenant_id)).toEqual(['tn-alpha', 'tn-beta', 'tn-gamma'])
  }, 120_000)

  it('a notice recorded to that customer counts as one sent to an affected controller', async () => {
    expect((await run(['notify', 'record', '--db', db, '--recipient', 'tn-beta', '--phase', 'initial', '--at', '2026-11-02T11:00:00Z', '--reference', 'N-1'])).code).toBe(0)
    const clock = await runJson<Clock>(['clock', '--db', db, '--now', '2026-11-02T12:00:00Z', '--json'])
    expect(clock.controllers.find((c) => c.tenant_id === 'tn-beta')?.status).toBe('notified')
    expect(clock.status).not.toBe('notified')
    const register = await runJson<Register>(['report', 'register', '--db', db, '--format', 'json'])
    expect(register).toMatchObject({controllers_affected: 3, controllers_notified: 1})
    expect(register.open_items.map((o) => o.item)).toContain('notices to 2 affected controllers, not yet recorded')
    type Draft = {statements: Array<{section: string; text: string}>}
    // (The register above counts the notices over the three controllers concerned, the retry's among them.)
    // On tn-alpha's behalf (its data reached tn-gamma and tn-beta, the retry): tn-alpha was not notified, and no count over others is given.
    const draft = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tn-alpha'])
    const said = draft.statements.filter((s) => s.section === 'measures_taken').map((s) => s.text).join(' ')
    expect(said).not.toMatch(/\bof 3\b/)
    // A draft for one controller says whether that controller was notified, never a count over other customers.
    const forBeta = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tn-beta'])
    const toBeta = forBeta.statements.filter((s) => s.section === 'measures_taken').map((s) => s.text).join(' ')
    expect(toBeta).toContain('N-1')
    expect(toBeta).not.toMatch(/\b1 of 3\b/)
  }, 120_000)
})
