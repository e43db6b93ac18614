import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// Ingest keeps the first line of a request id and records later ones as duplicates. A later
// line with the same id and a different answer was never examined: a leak in it passed
// --fail-on-leak (exit 0, "no response carried another session's canary marker").

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'

function incident(dir: string, layout: 'one-file' | 'two-files'): string {
  const logs = join(dir, 'logs')
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  const own = bareLine('req-1', 'tn-alpha', 'sess-a1', `hello ${A}`, 'fine', '2026-11-02T10:00:00Z')
  const clean = bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z')
  // the same request id, answered again with tn-alpha's marker
  const leaking = bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, `here you go: ${A}`, '2026-11-02T10:01:05Z')
  mkdirSync(logs)
  if (layout === 'one-file') writeFileSync(join(logs, 'a.jsonl'), `${own}\n${clean}\n${leaking}\n`)
  else {
    writeFileSync(join(logs, 'a.jsonl'), `${own}\n${clean}\n`)
    writeFileSync(join(logs, 'b.jsonl'), `${leaking}\n`)
  }
  return logs
}

describe('--fail-on-leak over duplicate lines that differ from the first', () => {
  for (const layout of ['one-file', 'two-files'] as const) {
    for (const quick of [true, false]) {
      it(`triage trips (exit 3) naming the line: ${layout}, ${quick ? 'quick verdict' : 'verdict after the scan'}`, async () => {
        const dir = tempDir()
        const logs = incident(dir, layout)
        const r = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
        expect(r.code, r.stderr).toBe(3)
        expect(r.stderr).toMatch(new RegExp(`Gate: contamination found in 1 line repeating an earlier request_id with a different answer, which the case counts as duplicates of the first: .*${layout === 'one-file' ? 'a\\.jsonl:3' : 'b\\.jsonl:1'} \\(request_id "req-2"\\)`))
      }, 60_000)
    }
  }

  it('scan trips too, and a duplicate whose answer carries only its own marker does not', async () => {
    const dir = tempDir()
    const logs = incident(dir, 'one-file')
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    const r = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('a.jsonl:3 (request_id "req-2")')

    const dir2 = tempDir()
    const logs2 = join(dir2, 'logs')
    mkdirSync(logs2)
    writeFileSync(join(dir2, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    writeFileSync(join(logs2, 'a.jsonl'), `${bareLine('req-2', 'tn-beta', 'sess-b1', 'hi', 'nothing', '2026-11-02T10:01:00Z')}\n${bareLine('req-2', 'tn-beta', 'sess-b1', 'hi', `mine: ${B}`, '2026-11-02T10:01:05Z')}\n`)
    const ok = await run(['triage', logs2, '--canaries', join(dir2, 'canaries.csv'), '--db', join(dir2, 'case.db'), '--fail-on-leak'])
    expect(ok.code, ok.stderr).toBe(0)
  }, 60_000)
})

describe('--fail-on-leak over a duplicate line whose answer decodes to no text', () => {
  // A retry logged under the same id whose body the rules read as no text was judged clean: a
  // leak in a shape no rule reads passed the gate. A kept record's no-text answer fails every
  // gate (its file's count); the duplicate's does too now, named as not examined.
  function noText(dir: string, body: unknown): string {
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    const own = bareLine('req-1', 'tn-alpha', 'sess-a1', `hello ${A}`, 'fine', '2026-11-02T10:00:00Z')
    const clean = bareLine('req-2', 'tn-beta', 'sess-b1', `hi ${B}`, 'nothing to see', '2026-11-02T10:01:00Z')
    const retry = JSON.stringify({...JSON.parse(clean) as object, ts: '2026-11-02T10:01:05Z', response: body})
    writeFileSync(join(logs, 'a.jsonl'), `${own}\n${clean}\n${retry}\n`)
    return logs
  }

  for (const quick of [true, false]) {
    it(`triage cannot pass (exit 1) and names the line: ${quick ? 'quick verdict' : 'verdict after the scan'}`, async () => {
      const dir = tempDir()
      const logs = noText(dir, {choices: [{message: {role: 'assistant', content: null, custom_block: {text: `here you go: ${A}`}}}]})
      const r = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/1 line repeating an earlier request_id with a different answer could not be read again to be judged: .*a\.jsonl:3 .*\(its answer decoded to no text\)/)
      const status = await run(['status', '--db', join(dir, 'case.db'), '--json'])
      expect((JSON.parse(status.stdout) as {duplicate_lines_not_examined: number}).duplicate_lines_not_examined).toBe(1)
    }, 60_000)
  }

  it('an error answer with no text stays judged (it is no answer the client read as one)', async () => {
    const dir = tempDir()
    const logs = noText(dir, {error: {message: 'upstream timeout', type: 'server_error'}})
    const r = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(0)
  }, 60_000)
})
