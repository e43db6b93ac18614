import Database from 'better-sqlite3'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir, type CliResult} from '../helpers/cli.js'

// A provider body can hand the client text in shapes the decoder neither read as answer text nor
// counted as unread: the Responses API's built-in tool items (web_search_call, file_search_call,
// computer_call, local_shell_call, code_interpreter_call outputs, mcp_call errors, mcp_list_tools,
// image_generation_call), its annotations and stream events; the Messages API's server tool and
// MCP results, documents and citations; a chat answer's annotations and audio transcript. A marker
// there passed --fail-on-leak (exit 0). Each answer of shapes.jsonl carries another tenant's
// marker only inside such a shape: every one must be found. Each answer of shapes-unread.jsonl
// carries it inside a shape of a type no release knows: the gate cannot pass (exit 1) and names
// the file as not read whole, with the shape.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
const answers = (file: string): number => readFileSync(join(FIXTURES, file), 'utf8').split('\n').filter((l) => l.includes('"globex"')).length

function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('--fail-on-leak on markers inside tool items, results, citations and transcripts', () => {
  const cases = answers('shapes.jsonl')
  for (const native of [true, false]) {
    it(`trips on each of the ${cases} answers (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, () => {
      const dir = tempDir()
      const r = runWith(native, ['triage', join(FIXTURES, 'shapes.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain(`contamination found: ${cases} responses (${cases} cross-tenant, 0 cross-session)`)
      // Every shape read is known: the file is read whole.
      expect(r.stderr).not.toContain('not read whole')
    }, 120_000)
  }

  it('cannot pass a file whose answers hold an item, block, event or delta of a type it does not read, naming each shape', () => {
    const dir = tempDir()
    const r = runWith(true, ['triage', join(FIXTURES, 'shapes-unread.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(1)
    const n = answers('shapes-unread.jsonl')
    expect(r.stderr).toContain(`shapes-unread.jsonl (not read whole: ${n} records hold in their response body what this release does not read (`)
    for (const shape of ['Responses API output item "x_future_call"', 'Messages API content block "x_future_result"', 'Responses API stream event "response.x_future.delta"', 'Messages API delta "x_future_delta"']) {
      expect(r.stderr).toContain(shape)
    }
    // status names the same count.
    const s = runWith(true, ['status', '--db', join(dir, 'case.db'), '--json'])
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout).toContain(`${n} records hold in their response body what this release does not read`)
  }, 120_000)

  it('passes an answer whose only other shapes hold no text (redacted thinking, an encrypted reasoning item)', () => {
    const dir = tempDir()
    const line = (rid: string, response: unknown) => JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: rid, tenant_id: 'globex', session_id: 's2', request: 'hi', response})
    const file = join(dir, 'quiet.jsonl')
    writeFileSync(file, [
      line('a', {id: 'm', type: 'message', role: 'assistant', content: [{type: 'redacted_thinking', data: 'EmwKAhgBEgy'}, {type: 'text', text: 'fine'}]}),
      line('b', {object: 'response', output: [{type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA'}, {type: 'message', content: [{type: 'output_text', text: 'fine', annotations: []}]}]}),
    ].join('\n') + '\n')
    const r = runWith(true, ['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.stderr).not.toContain('not read whole')
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)

  it('a case extracted before (x5), which holds none of these markers and no word of the shapes it did not read, is extracted again by the next scan: it trips, and cannot pass the file it did not read whole', () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const t = runWith(true, ['triage', join(FIXTURES, 'shapes.jsonl'), join(FIXTURES, 'shapes-unread.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', db])
    expect(t.code, t.stderr).toBe(0)
    // What x5 left: no marker token in any of these answers, so no sighting, and each file read whole.
    const c = new Database(db)
    c.prepare("UPDATE files SET extract_scheme = 'x5/words-k5-w8-v2', unread = NULL WHERE kind = 'log'").run()
    c.prepare("DELETE FROM sightings WHERE record_id IN (SELECT id FROM records WHERE tenant_id = 'globex')").run()
    c.prepare("DELETE FROM marker_tokens WHERE record_id IN (SELECT id FROM records WHERE tenant_id = 'globex')").run()
    c.close()
    const s = runWith(true, ['scan', '--db', db, '--fail-on-leak'])
    const cases = answers('shapes.jsonl')
    expect(s.code, s.stderr).toBe(3)
    expect(s.stderr).toContain(`contamination found: ${cases} responses (${cases} cross-tenant, 0 cross-session)`)
    const g = runWith(true, ['scan', '--db', db, '--fail-on-leak'])
    expect(g.stderr).toContain(`shapes-unread.jsonl (not read whole: ${answers('shapes-unread.jsonl')} records hold in their response body what this release does not read (`)
    expect(g.stderr).not.toContain('shapes.jsonl (not read whole')
  }, 180_000)
})
