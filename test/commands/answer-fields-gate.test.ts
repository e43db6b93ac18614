import Database from 'better-sqlite3'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir, type CliResult} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A marker in a text the client was given but the decoder did not read (a legacy function call,
// a Responses API tool call, a stream's error chunk, an error message, ...) passed --fail-on-leak
// (exit 0). Each answer of the fixture carries another tenant's marker in such a place: every one
// must be found, read by the native addon (which decodes plain native lines, or leaves them to
// TypeScript) and by TypeScript alone.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
const CASES = readFileSync(join(FIXTURES, 'leaks.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"globex"')).length

/** The built CLI run with the addon in use or turned off (a process of its own: the addon is loaded once per thread). */
function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('--fail-on-leak on markers in every text the client was given', () => {
  for (const native of [true, false]) {
    it(`trips on each of the ${CASES} answers (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, async () => {
      const dir = tempDir()
      const r = runWith(native, ['triage', join(FIXTURES, 'leaks.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain(`contamination found: ${CASES} responses (${CASES} cross-tenant, 0 cross-session)`)
      const s = runWith(native, ['scan', '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(s.code, s.stderr).toBe(3)
      expect(s.stderr).toContain(`contamination found: ${CASES} responses (${CASES} cross-tenant, 0 cross-session)`)
    }, 120_000)
  }

  it('trips on an openai-batch answer whose legacy function call, beside content, carries the marker', async () => {
    const dir = tempDir()
    const r = await run(['triage', join(FIXTURES, 'batch-input.jsonl'), join(FIXTURES, 'batch-output.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'),
      '--log-format', 'openai-batch', '--custom-id-pattern', '^(?<tenant>[^:]+):(?<session>[^:]+):', '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
  }, 120_000)

  it('a case extracted before (x4), whose extracts hold none of these markers, is extracted again by the next scan, which trips', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    expect(runWith(true, ['triage', join(FIXTURES, 'leaks.jsonl'), '--canaries', join(FIXTURES, 'canaries.csv'), '--db', db]).code).toBe(0)
    // What x4 left: no marker token in any of these answers, so no sighting.
    const c = new Database(db)
    c.prepare("UPDATE files SET extract_scheme = 'x4/words-k5-w8-v2' WHERE kind = 'log'").run()
    c.prepare("DELETE FROM sightings WHERE record_id IN (SELECT id FROM records WHERE tenant_id = 'globex')").run()
    c.prepare("DELETE FROM marker_tokens WHERE record_id IN (SELECT id FROM records WHERE tenant_id = 'globex')").run()
    c.close()
    const s = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(s.code, s.stderr).toBe(3)
    expect(s.stderr).toContain(`contamination found: ${CASES} responses (${CASES} cross-tenant, 0 cross-session)`)
  }, 120_000)
})
