import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A case ingested by the version before extract scheme x3 holds extracts of texts decoded by the
// rules of that day: a request's tool result unread (the model's repetition of the marker the
// caller sent in it classed cross_tenant), a Messages API stream's text blocks joined apart (a
// marker split at a block boundary stored as the orphan token `CANARY-00112233`). Nothing in the
// case was altered: verify must not call that tampering, the drafts must not state those
// findings as current, and the next scan extracts the files again and derives their findings anew.

const A = 'CANARY-9f8e7d6c5b4a39281706f5e4'
const B = 'CANARY-00112233445566778899'
const X2 = 'x2/words-k5-w8-v2'

function ev(type: string, extra: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({type, ...extra})}\n\n`
}

function buildCase(): {db: string; logs: string; canaries: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,2026-10-01T00:00:00Z\n${B},tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  const line = (request_id: string, request: unknown, response: unknown): string =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id, tenant_id: 'tenant-b', session_id: 'sess-b', status: 200, request, response})
  const stream =
    ev('message_start', {message: {id: 'm', type: 'message', content: []}}) +
    ev('content_block_start', {index: 0, content_block: {type: 'text', text: ''}}) +
    ev('content_block_delta', {index: 0, delta: {type: 'text_delta', text: 'acct CANARY-00112233'}}) +
    ev('content_block_start', {index: 1, content_block: {type: 'text', text: ''}}) +
    ev('content_block_delta', {index: 1, delta: {type: 'text_delta', text: '445566778899 done'}}) +
    ev('message_stop', {})
  const logs = join(dir, 'logs.jsonl')
  writeFileSync(logs, [
    line('r-1', {model: 'm', messages: [{role: 'user', content: [{type: 'tool_result', tool_use_id: 't', content: `found ${A}`}]}]}, {id: 'msg_1', type: 'message', role: 'assistant', content: [{type: 'text', text: `The tool said ${A}.`}]}),
    line('r-2', {model: 'm', messages: [{role: 'user', content: 'hello there friend'}]}, stream),
  ].join('\n') + '\n')
  return {db: join(dir, 'case.db'), logs, canaries}
}

/** Puts the case in the state the version before x3 left it in (what it stored for these two records, as observed). */
function asExtractedByX2(path: string): void {
  const db = new Database(path)
  try {
    const id = (requestId: string): number => db.prepare('SELECT id FROM records WHERE request_id = ?').pluck().get(requestId) as number
    db.prepare("UPDATE files SET extract_scheme = ? WHERE kind = 'log'").run(X2)
    db.prepare('DELETE FROM marker_tokens WHERE record_id = ?').run(id('r-2'))
    db.prepare('INSERT INTO marker_tokens (record_id, position, token) VALUES (?, 5, ?)').run(id('r-2'), 'CANARY-00112233')
    // The prompt's fingerprints without the tool result (a stand-in: the prompt was not read at all).
    db.prepare("UPDATE fingerprints SET prompt_words = 0, prompt_fp = x'' WHERE record_id = ?").run(id('r-1'))
    db.prepare("UPDATE sightings SET class = 'cross_tenant', source_session = 'sess-a', source_tenant = 'tenant-a' WHERE record_id = ?").run(id('r-1'))
    db.prepare("UPDATE sightings SET marker = 'CANARY-00112233', marker_key = NULL, class = 'orphan', source_session = NULL, source_tenant = NULL, token = 'CANARY-00112233' WHERE record_id = ?").run(id('r-2'))
  } finally {
    db.close()
  }
}

type Sighting = {request_id: string; class: string; marker: string}
type Verify = {ok: boolean; not_checked: string[]; problems: Array<{kind: string; detail: string}>; findings_rederived: boolean}

describe('a case extracted under the scheme before (x2)', () => {
  it('is not called tampered by verify, is incomplete for the drafts, and is extracted again by the next scan', async () => {
    const {db, logs, canaries} = buildCase()
    const triage = await run(['triage', logs, '--canaries', canaries, '--db', db, '--json'])
    expect(triage.code, triage.stderr).toBe(0)
    asExtractedByX2(db)

    // verify: the evidence and the records' fields are checked; the old extracts and findings are named as not compared, not as problems.
    const before = await run(['verify', '--db', db, '--deep', '--json'])
    expect(before.code, before.stdout).toBe(0)
    const v1 = JSON.parse(before.stdout) as Verify
    expect(v1.problems).toEqual([])
    expect(v1.not_checked.join('\n')).toContain(`1 log file extracted under another scheme than this crosstalk's x13/words-k5-w8-v2 (${X2})`)
    expect(v1.not_checked.join('\n')).toContain('run `crosstalk scan`, which extracts it again from the evidence')

    // A draft does not state findings made from the old extracts as if detection were current.
    const scope = await run(['scope', '--db', db, '--json'])
    expect(scope.code).toBe(1)
    expect(scope.stderr + scope.stdout).toContain('1 log file extracted by an earlier version of crosstalk')

    // The scan extracts the file again and classifies every sighting anew.
    const scan = await runJson<{full_rescan: boolean; sightings_by_class: Record<string, number>}>(['scan', '--db', db])
    expect(scan.full_rescan).toBe(true)
    expect(scan.sightings_by_class).toMatchObject({own: 1, echo: 1, cross_tenant: 0, orphan: 0})
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class, s.marker])).toEqual([['r-1', 'echo', A], ['r-2', 'own', B]])
    const check = new Database(db, {readonly: true})
    expect(check.prepare("SELECT DISTINCT extract_scheme FROM files WHERE kind = 'log'").pluck().all()).toEqual(['x13/words-k5-w8-v2'])
    check.close()

    // Now every extract and finding is compared, and equal.
    const after = JSON.parse((await run(['verify', '--db', db, '--deep', '--json'])).stdout) as Verify
    expect(after).toMatchObject({ok: true, problems: [], findings_rederived: true})
    expect(after.not_checked.join('\n')).not.toContain('scheme')
    expect((await run(['scope', '--db', db, '--json'])).code).toBe(0)
  })
})

describe('a case extracted under the scheme before (x2), its counts of records without text', () => {
  it('are counted again when the scan extracts the file again, so status and the gate read the texts as they are now', async () => {
    const {db, logs, canaries} = buildCase()
    expect((await run(['triage', logs, '--canaries', canaries, '--db', db, '--json'])).code).toBe(0)
    asExtractedByX2(db)
    // What that version counted: r-1's prompt (only a tool result, which it did not read) had no
    // text, and (a stand-in for any answer its decoder read as none) one answer had none.
    const old = new Database(db)
    old.prepare("UPDATE files SET no_request_text = 1, no_response_text = 1 WHERE kind = 'log'").run()
    old.close()
    const stale = await runJson<{no_request_text: number; no_response_text: number}>(['status', '--db', db])
    expect(stale).toMatchObject({no_request_text: 1, no_response_text: 1})

    // The scan extracts the file again: both records have texts, and the gate passes on them.
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code, gate.stderr).toBe(0)
    const status = await runJson<{no_request_text: number; no_response_text: number; unreadable_files: unknown[]}>(['status', '--db', db])
    expect(status).toMatchObject({no_request_text: 0, no_response_text: 0, unreadable_files: []})
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class])).toEqual([['r-1', 'echo'], ['r-2', 'own']])
  })
})
