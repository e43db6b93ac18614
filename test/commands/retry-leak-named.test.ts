import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// A retry logged under the request id of a response already counted is a duplicate line, in no
// figure (retry-leak-not-counted.test.ts: scope, status, sightings and the Article 33 draft name
// it). The one customer's view (scope --tenant), the timeline, the processor's notices, the
// Article 34 letter and the case report did not: the timeline said "No contamination", the
// report "No leak found", the letter "found no answer that showed text from another person's
// conversation" and the notice "No response ... was found carrying your data", over a response
// the gate fails on. Each now names it, and only where there is one.
//
// The case: tn-alpha's session (marker A), tn-beta's request req-2 logged twice (a.jsonl: the
// record, nothing leaked; b.jsonl: the retry, carrying A), and tn-gamma, which no retry concerns.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const C = 'CANARY-c3c3c3c3c3c3c3c3c3c3'

/** A case whose retry leaks tn-alpha's marker to tn-beta (leak) or carries only tn-beta's own (none). */
async function buildCase(retryAnswer: 'leak' | 'own', role: 'processor' | 'controller'): Promise<{dir: string; db: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'a.jsonl'), [
    bareLine('req-1', 'tn-alpha', 'sess-a1', `hi ${A}`, 'fine', '2026-11-02T10:00:00Z'),
    bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z'),
    bareLine('req-3', 'tn-gamma', 'sess-c1', `hi ${C}`, 'fine', '2026-11-02T10:02:00Z'),
  ].join('\n') + '\n')
  writeFileSync(join(logs, 'b.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, retryAnswer === 'leak' ? `here you go: ${A}` : `yours: ${B}`, '2026-11-02T10:01:05Z')}\n`)
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n${C},tn-gamma,sess-c1,\n`)
  const db = join(dir, 'case.db')
  const gate = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--fail-on-leak'])
  expect(gate.code, gate.stderr).toBe(retryAnswer === 'leak' ? 3 : 0)
  const opened = await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', role])
  expect(opened.code, opened.stderr).toBe(0)
  return {dir, db}
}

type TenantView = {retry_leaks_not_counted: {received: number; reached_others: number; lines: string[]}}
type Timeline = {retry_leaks_not_counted: Array<{at: string; line: string; request_id: string; class: string; recipient_tenant: string; source_tenants: string[]}>}
type Notice = {what_happened: string[]; retry_leaks_not_counted: {responses: number; received: number; reached_others: number}; open_items: Array<{item: string}>; your_next_steps: string[]}
type Letter = {what_happened: string[]; retry_leaks_not_counted: number; open_items: Array<{item: string}>}
type CaseReport = {retry_leaks_not_counted: Timeline['retry_leaks_not_counted']; open_items: Array<{item: string}>}

const NOTHING_LEAKED = 'No response to another session was found carrying your data.'
const NOTHING_RECEIVED = "No response your users received was found carrying another session's data."
const NOTHING_FOUND = "found no answer that showed text from another person's conversation"

let leak: {dir: string; db: string}
let leakController: {dir: string; db: string}
let none: {dir: string; db: string}

beforeAll(async () => {
  leak = await buildCase('leak', 'processor')
  leakController = await buildCase('leak', 'controller')
  none = await buildCase('own', 'processor')
}, 120_000)

describe('a leaking retry is named in every output that counts without it', () => {
  it('scope --tenant: its share only, counted by side, no other tenant named', async () => {
    const alpha = await runJson<TenantView>(['scope', '--db', leak.db, '--tenant', 'tn-alpha'])
    expect(alpha.retry_leaks_not_counted).toEqual({received: 0, reached_others: 1, lines: ['b.jsonl:1']})
    const betaRaw = await run(['scope', '--db', leak.db, '--tenant', 'tn-beta', '--json'])
    expect(JSON.parse(betaRaw.stdout).retry_leaks_not_counted).toEqual({received: 1, reached_others: 0, lines: ['b.jsonl:1']})
    // The retry's marker is tn-alpha's: tn-beta's view names no other tenant for it.
    expect(betaRaw.stdout).not.toContain('tn-alpha')
    const gamma = await runJson<TenantView>(['scope', '--db', leak.db, '--tenant', 'tn-gamma'])
    expect(gamma.retry_leaks_not_counted).toEqual({received: 0, reached_others: 0, lines: []})

    const text = await run(['scope', '--db', leak.db, '--tenant', 'tn-alpha'])
    expect(text.stdout).toMatch(/NOT COUNTED above: 1 retry logged under the request id of a response already in the case \(1 served to another session carrying this tenant's marker\)/)
    expect(text.stdout).toContain('b.jsonl:1')
    expect((await run(['scope', '--db', leak.db, '--tenant', 'tn-gamma'])).stdout).not.toContain('NOT COUNTED')
    const csv = await run(['scope', '--db', leak.db, '--tenant', 'tn-beta', '--csv'])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stderr).toMatch(/NOT COUNTED above: 1 retry .*1 served to this tenant/)
  }, 60_000)

  it('timeline: listed with its time and tenants; never "No contamination" over it', async () => {
    const tl = await runJson<Timeline>(['timeline', '--db', leak.db])
    expect(tl.retry_leaks_not_counted).toEqual([{at: '2026-11-02T10:01:05.000Z', line: 'b.jsonl:1', request_id: 'req-2', class: 'cross_tenant', recipient_tenant: 'tn-beta', source_tenants: ['tn-alpha']}])
    const text = (await run(['timeline', '--db', leak.db])).stdout
    expect(text).not.toMatch(/^No contamination (?!counted)/m)
    expect(text).toMatch(/No contamination counted \(but see the retry below\)/)
    // (the console wraps: read as one line)
    expect(text.replace(/\s+/g, ' ')).toMatch(/NOT COUNTED above: 1 retry .* 2026-11-02T10:01:05\.000Z b\.jsonl:1 \(cross_tenant: served to tn-beta, carrying a marker of tn-alpha\)/)
  }, 60_000)

  it('processor notices: each concerned customer is told of its side, in words and an open item; --all reaches them', async () => {
    const alpha = await runJson<Notice>(['report', 'processor-notice', '--db', leak.db, '--tenant', 'tn-alpha'])
    expect(alpha.retry_leaks_not_counted).toEqual({responses: 1, received: 0, reached_others: 1})
    expect(alpha.what_happened).not.toContain(NOTHING_LEAKED)
    expect(alpha.what_happened).toContainEqual(expect.stringContaining('1 retry of a request (logged under the request id of a response already counted) served to another session carried your data'))
    expect(alpha.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining('1 retry of a request concerning you (1 carrying your data)'))
    // Only a retry concerns tn-beta and tn-alpha (no counted exposure): still notified, of its own side.
    const beta = await runJson<Notice>(['report', 'processor-notice', '--db', leak.db, '--tenant', 'tn-beta'])
    expect(beta.retry_leaks_not_counted).toEqual({responses: 1, received: 1, reached_others: 0})
    expect(beta.what_happened).not.toContain(NOTHING_RECEIVED)
    expect(beta.what_happened).toContain(NOTHING_LEAKED)
    // In no case clock (it counts the exposure's controllers), its own deadline is still the contract's, not "no contractual period".
    expect((await run(['incident', 'set', '--db', leak.db, '--controller-deadline-hours', '24'])).code).toBe(0)
    const due = await runJson<{due: {deadline: string | null; hours: number | null}}>(['report', 'processor-notice', '--db', leak.db, '--tenant', 'tn-beta'])
    expect(due.due).toMatchObject({deadline: '2026-11-03T09:00:00.000Z', hours: 24})
    expect(JSON.stringify(beta)).not.toContain('tn-alpha')
    const fr = await runJson<Notice>(['report', 'processor-notice', '--db', leak.db, '--tenant', 'tn-beta', '--lang', 'fr'])
    expect(fr.what_happened).toContainEqual(expect.stringContaining('1 nouvelle tentative'))
    const out = join(leak.dir, 'notices')
    expect((await run(['report', 'processor-notice', '--db', leak.db, '--all', '--out', out])).code).toBe(0)
    expect(readdirSync(out).map((f) => f.replace(/-[0-9a-f]{8}\.md$/, '')).sort()).toEqual(['processor-notice-tn-alpha', 'processor-notice-tn-beta'])
    expect(readFileSync(join(out, readdirSync(out).find((f) => f.includes('tn-alpha'))!), 'utf8')).toContain('1 retry of a request concerning you')
    // tn-gamma: no retry and no exposure concerns it, so no notice.
    expect((await run(['report', 'processor-notice', '--db', leak.db, '--tenant', 'tn-gamma'])).code).toBe(1)
  }, 60_000)

  it('Article 34: an open item names the line, and "nothing found" is not said over it', async () => {
    const letter = await runJson<Letter>(['report', 'article34', '--db', leakController.db, '--lang', 'en'])
    expect(letter.retry_leaks_not_counted).toBe(1)
    expect(letter.what_happened.join(' ')).not.toContain(NOTHING_FOUND)
    expect(letter.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining('1 response (b.jsonl:1) logged under the request id of a response already counted'))
    // On behalf of the controller whose data the retry carried: named; one it does not concern (no exposure, no retry) gets no letter, as it gets no processor notice.
    const alpha = await runJson<Letter>(['report', 'article34', '--db', leak.db, '--lang', 'en', '--on-behalf-of-controller', 'tn-alpha'])
    expect(alpha.retry_leaks_not_counted).toBe(1)
    expect(alpha.what_happened.join(' ')).not.toContain(NOTHING_FOUND)
    const gamma = await run(['report', 'article34', '--db', leak.db, '--lang', 'en', '--on-behalf-of-controller', 'tn-gamma'])
    expect(gamma.code).toBe(1)
    expect(gamma.stderr).toMatch(/tenant "tn-gamma" has no exposure in this case/)
    expect(gamma.stdout).not.toContain('b.jsonl')
  }, 60_000)

  it('Article 33 on behalf of a controller: only the retries concerning it', async () => {
    type Draft = {scope: {retry_leaks_not_counted: number}; open_items: Array<{item: string}>}
    const alpha = await runJson<Draft>(['report', 'article33', '--db', leak.db, '--lang', 'en', '--on-behalf-of-controller', 'tn-alpha'])
    expect(alpha.scope.retry_leaks_not_counted).toBe(1)
    expect(alpha.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining('1 response (b.jsonl:1) logged under the request id of a response already counted'))
    // tn-gamma: neither its data nor its users were in the retry, nor in any leak: no draft, as no processor notice.
    const gamma = await run(['report', 'article33', '--db', leak.db, '--lang', 'en', '--on-behalf-of-controller', 'tn-gamma'])
    expect(gamma.code).toBe(1)
    expect(gamma.stderr).toMatch(/tenant "tn-gamma" has no exposure in this case/)
    expect(gamma.stdout).not.toContain('b.jsonl')
  }, 60_000)

  it('case report: listed under Exposure, and the verdict is no "No leak found"', async () => {
    const data = await runJson<CaseReport>(['report', 'case', '--db', leak.db, '--format', 'json'])
    expect(data.retry_leaks_not_counted.map((r) => `${r.line} ${r.recipient_tenant} ${r.source_tenants.join(',')}`)).toEqual(['b.jsonl:1 tn-beta tn-alpha'])
    const html = (await run(['report', 'case', '--db', leak.db])).stdout
    expect(html).not.toMatch(/<strong>No leak found<\/strong>/)
    expect(html).toMatch(/class="verdict leak" id="verdict"><strong>Leak found in a retry/)
    expect(html).toMatch(/<h3 id="retry-leaks">Not counted: 1 retry carrying another session's marker<\/h3>/)
    expect(html).toMatch(/<td class="mono">b\.jsonl:1<\/td><td>cross_tenant<\/td><td>tn-beta<\/td><td>tn-alpha<\/td>/)
    const controller = (await run(['report', 'case', '--db', leakController.db])).stdout
    expect(controller).toMatch(/<h3 id="retry-leaks">/)
  }, 60_000)

  it('a repeated line that could not be read again: timeline and case report say so, never "No contamination" or "No leak found"', async () => {
    // Kept by reference, the retry's file changed after ingest: its line cannot be read again, so whether it leaked is not known.
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'a.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z')}\n`)
    writeFileSync(join(logs, 'b.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, `here you go: ${A}`, '2026-11-02T10:01:05Z')}\n`)
    writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    const db = join(dir, 'case.db')
    expect((await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--evidence', 'reference'])).code).toBe(0)
    writeFileSync(join(logs, 'b.jsonl'), 'changed since\n')
    expect((await runJson<{duplicate_lines_not_examined: number}>(['scope', '--db', db])).duplicate_lines_not_examined).toBe(1)
    const tl = await runJson<Timeline & {duplicate_lines_not_examined: number}>(['timeline', '--db', db])
    expect(tl.duplicate_lines_not_examined).toBe(1)
    const text = (await run(['timeline', '--db', db])).stdout
    expect(text).not.toMatch(/^No contamination (?!counted)/m)
    expect(text.replace(/\s+/g, ' ')).toContain("NOT EXAMINED: 1 line repeats a request_id with a different answer and could not be read again: whether it carries another session's marker is not known")
    expect((await runJson<{duplicate_lines_not_examined: number}>(['report', 'case', '--db', db, '--format', 'json'])).duplicate_lines_not_examined).toBe(1)
    const html = (await run(['report', 'case', '--db', db])).stdout
    expect(html).not.toMatch(/<strong>No leak found<\/strong>/)
    expect(html).toMatch(/class="verdict partial" id="verdict"><strong>No leak found in what could be read; not every repeated request was read again<\/strong>/)
  }, 60_000)

  it('says nothing where no retry carried another session\'s marker', async () => {
    expect((await runJson<TenantView>(['scope', '--db', none.db, '--tenant', 'tn-beta'])).retry_leaks_not_counted).toEqual({received: 0, reached_others: 0, lines: []})
    expect((await run(['scope', '--db', none.db, '--tenant', 'tn-beta'])).stdout).not.toContain('NOT COUNTED')
    expect(await runJson<Timeline & {duplicate_lines_not_examined: number}>(['timeline', '--db', none.db])).toMatchObject({retry_leaks_not_counted: [], duplicate_lines_not_examined: 0})
    const tl = (await run(['timeline', '--db', none.db])).stdout
    expect(tl).not.toContain('NOT COUNTED')
    expect(tl).toMatch(/^No contamination in this case/m)
    // No exposure and no retry: no customer to notify, and no letter to its users.
    const letter = await run(['report', 'article34', '--db', none.db, '--lang', 'en', '--on-behalf-of-controller', 'tn-beta'])
    expect(letter.code).toBe(1)
    expect(letter.stderr).toMatch(/tenant "tn-beta" has no exposure in this case/)
    expect((await run(['report', 'processor-notice', '--db', none.db, '--tenant', 'tn-beta'])).code).toBe(1)
    const data = await runJson<CaseReport>(['report', 'case', '--db', none.db, '--format', 'json'])
    expect(data.retry_leaks_not_counted).toEqual([])
    const html = (await run(['report', 'case', '--db', none.db])).stdout
    expect(html).not.toContain('retry-leaks')
    expect(html).toMatch(/<strong>No leak found<\/strong>/)
  }, 60_000)
})
