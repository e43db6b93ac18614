import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// A repeated line (a retry under a request id already counted) that differs from its record and
// could not be read again fails every gate (exit 1), and scope, status, the timeline and the case
// report counted it; the outputs for one customer did not: its tenant view, its processor notice,
// the Article 34 letter and the Article 33 draft on its behalf read as if nothing was left
// unexamined ("No response your users received was found carrying another session's data"), and
// the customer whose request the retry repeats got no notice at all (no exposure). Whose marker
// the unread answer carried is not known, so every customer's output counts it, and the customer
// whose request it repeats is one of the controllers concerned.
//
// The case: tn-gamma's response carries tn-alpha's marker (counted); tn-beta's request req-2 is
// logged again in b.jsonl, kept by reference and changed after ingest, so it cannot be read again.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const C = 'CANARY-c3c3c3c3c3c3c3c3c3c3'

let db: string

beforeAll(async () => {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'a.jsonl'), [
    bareLine('req-1', 'tn-alpha', 'sess-a1', `hi ${A}`, 'fine', '2026-11-02T10:00:00Z'),
    bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z'),
    bareLine('req-3', 'tn-gamma', 'sess-c1', `hi ${C}`, `look: ${A}`, '2026-11-02T10:02:00Z'),
  ].join('\n') + '\n')
  writeFileSync(join(logs, 'b.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'another answer', '2026-11-02T10:01:05Z')}\n`)
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n${C},tn-gamma,sess-c1,\n`)
  db = join(dir, 'case.db')
  expect((await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--evidence', 'reference'])).code).toBe(0)
  writeFileSync(join(logs, 'b.jsonl'), 'changed since\n')
  expect((await runJson<{duplicate_lines_not_examined: number}>(['scope', '--db', db])).duplicate_lines_not_examined).toBe(1)
  const opened = await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])
  expect(opened.code, opened.stderr).toBe(0)
}, 120_000)

type Notice = {what_happened: string[]; duplicate_lines_not_examined: {responses: number; of_yours: number}; open_items: Array<{item: string}>}
type Letter = {what_happened: string[]; duplicate_lines_not_examined: number; open_items: Array<{item: string}>}
const UNREAD = 'could not be read again'

describe('a retry that could not be read again is an open item in every output for one customer', () => {
  it('scope --tenant: counted (all of them; those of its own requests apart), on the console too', async () => {
    const beta = await runJson<{duplicate_lines_not_examined: {lines: number; of_this_tenant: number}}>(['scope', '--db', db, '--tenant', 'tn-beta'])
    expect(beta.duplicate_lines_not_examined).toEqual({lines: 1, of_this_tenant: 1})
    const alpha = await runJson<{duplicate_lines_not_examined: {lines: number; of_this_tenant: number}}>(['scope', '--db', db, '--tenant', 'tn-alpha'])
    expect(alpha.duplicate_lines_not_examined).toEqual({lines: 1, of_this_tenant: 0})
    const text = (await run(['scope', '--db', db, '--tenant', 'tn-beta'])).stdout.replace(/\s+/g, ' ')
    expect(text).toContain("NOT EXAMINED: 1 line repeats a request_id with a different answer and could not be read again (it repeats a request of this tenant's")
    const csv = await run(['scope', '--db', db, '--tenant', 'tn-alpha', '--csv'])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stderr).toContain('NOT EXAMINED')
  }, 60_000)

  it('processor notices: the customer whose request it repeats is notified; every notice has the open item', async () => {
    const beta = await runJson<Notice>(['report', 'processor-notice', '--db', db, '--tenant', 'tn-beta'])
    expect(beta.duplicate_lines_not_examined).toEqual({responses: 1, of_yours: 1})
    expect(beta.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(`a retry) ${UNREAD} (under a request of yours)`))
    // "Nothing found" is said only beside what was not examined.
    for (const s of beta.what_happened) expect(s).toContain(UNREAD)
    const alpha = await runJson<Notice>(['report', 'processor-notice', '--db', db, '--tenant', 'tn-alpha'])
    expect(alpha.duplicate_lines_not_examined).toEqual({responses: 1, of_yours: 0})
    expect(alpha.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(`whether it carried your data is not yet established`))
    const fr = await runJson<Notice>(['report', 'processor-notice', '--db', db, '--tenant', 'tn-beta', '--lang', 'fr'])
    expect(fr.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining('sous une de vos requêtes'))
    // One set of controllers: the clock and the register count tn-beta too.
    const clock = await runJson<{controllers: Array<{tenant_id: string}>}>(['clock', '--db', db, '--json'])
    expect(clock.controllers.map((c) => c.tenant_id)).toEqual(['tn-alpha', 'tn-beta', 'tn-gamma'])
    expect((await runJson<{controllers_affected: number}>(['report', 'register', '--db', db, '--format', 'json'])).controllers_affected).toBe(3)
  }, 60_000)

  it('Article 34 and Article 33 on a controller\'s behalf: the open item, and no "nothing found" over it', async () => {
    const letter = await runJson<Letter>(['report', 'article34', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tn-beta'])
    expect(letter.duplicate_lines_not_examined).toBe(1)
    expect(letter.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(`${UNREAD} and was not examined (under a request of this controller's)`))
    expect(letter.what_happened.join(' ')).not.toContain("found no answer that showed text from another person's conversation")
    const alpha = await runJson<Letter>(['report', 'article34', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tn-alpha'])
    expect(alpha.duplicate_lines_not_examined).toBe(1)
    expect(alpha.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(UNREAD))
    type Draft = {scope: {duplicate_lines_not_examined: number}; open_items: Array<{item: string}>}
    const draft = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tn-beta'])
    expect(draft.scope.duplicate_lines_not_examined).toBe(1)
    expect(draft.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(UNREAD))
  }, 60_000)
})
