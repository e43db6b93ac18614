import Database from 'better-sqlite3'
import {copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {gzipSync} from 'node:zlib'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {ROOT, tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {convertIncident} from '../helpers/convert-formats.js'
import {chatLine} from '../helpers/log-lines.js'

// Issue 15: --log-format on `ingest logs` and `triage`, mappings that cannot fail silently, a
// wrong mapping fixed with `crosstalk drop`, zone-less times, the directory walk.

interface FileSummary {
  path: string
  status: string
  log_format: string
  format_reason: string
  records: number
  no_request_text: number
  no_response_text: number
}
interface IngestJson {
  files: number
  records: number
  refused_files: number
  warnings: string[]
  per_file: FileSummary[]
}

const fixture = (name: string): string => join(ROOT, 'test/fixtures/formats', name)

function auditEntries(db: string): Array<{command: string; args: Record<string, unknown>; summary: Record<string, unknown>}> {
  const sql = new Database(db, {readonly: true})
  const rows = sql.prepare('SELECT command, args, summary FROM audit_log ORDER BY seq').all() as Array<{command: string; args: string; summary: string}>
  sql.close()
  return rows.map((r) => ({command: r.command, args: JSON.parse(r.args) as Record<string, unknown>, summary: JSON.parse(r.summary) as Record<string, unknown>}))
}

let langfuse: string
let nativeContaminated: number

beforeAll(async () => {
  const incident = inject('incident')
  langfuse = convertIncident(incident.logs, join(tempDir(), 'converted')).langfuse
  const db = join(tempDir(), 'native.db')
  nativeContaminated = (await runJson<{scan: {contaminated_responses: number}}>(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])).scan.contaminated_responses
  expect(nativeContaminated).toBeGreaterThan(5)
}, 300_000)

describe('the Langfuse case of issue 15', () => {
  it('--log-format auto finds every contaminated response the native logs show, and the gate trips', async () => {
    const db = join(tempDir(), 'case.db')
    const r = await run(['triage', langfuse, '--canaries', inject('incident').canaries, '--db', db, '--fail-on-leak', '--json'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/langfuse-observations\.jsonl: read as langfuse \(auto: 20 of 20 first readable lines are Langfuse observations/)
    expect(JSON.parse(r.stdout).scan.contaminated_responses).toBe(nativeContaminated)
  })

  it('a deliberately wrong --map (response=output, the message object) never gives an exit-0 all-clear', async () => {
    const db = join(tempDir(), 'case.db')
    const r = await run(['triage', langfuse, '--canaries', inject('incident').canaries, '--db', db, '--map', 'response=output', '--fail-on-leak'])
    expect(r.code).not.toBe(0)
    // The chat answers decode to nothing under that mapping: said at ingest, and the gate will not pass on them.
    expect(r.stderr).toMatch(/langfuse-observations\.jsonl: \d+ of \d+ answers \(errors aside\) have no response text/)
    if (r.code === 1) expect(r.stderr).toMatch(/--fail-on-leak cannot pass: 1 log file could not be judged: .*langfuse-observations\.jsonl \(\d+ of its \d+ answers decoded to no text/)
    else expect(r.stderr).toMatch(/Gate: also: --fail-on-leak cannot pass/)
  })

  it('a wrong mapping is fixed by dropping the file (audited) and ingesting it again', async () => {
    const db = join(tempDir(), 'case.db')
    const canaries = inject('incident').canaries
    await runJson(['ingest', 'canaries', canaries, '--db', db])
    const wrong = await runJson<IngestJson>(['ingest', 'logs', langfuse, '--db', db, '--log-format', 'langfuse', '--map', 'response=output'])
    expect(wrong.files).toBe(1)
    // The same bytes again, read the right way: nothing is added, and the message says how to redo it.
    const again = await runJson<IngestJson>(['ingest', 'logs', langfuse, '--db', db])
    expect(again).toMatchObject({files: 0, records: 0})
    expect(again.warnings.join('\n')).toContain(`already in the case, read as langfuse --map response=output, not as langfuse: to read it again that way, run crosstalk drop ${langfuse}`)
    const dropped = await runJson<{dropped: Array<{path: string; records: number}>; rescan_needed: boolean}>(['drop', langfuse, '--db', db, '--reason', 'answers are in output.content'])
    expect(dropped).toMatchObject({dropped: [{path: langfuse, records: wrong.records}], rescan_needed: true})
    const right = await runJson<IngestJson>(['ingest', 'logs', langfuse, '--db', db])
    expect(right).toMatchObject({files: 1, records: wrong.records})
    expect(right.per_file[0]).toMatchObject({log_format: 'langfuse', no_response_text: 0})
    const scan = await runJson<{contaminated_responses: number}>(['scan', '--db', db])
    expect(scan.contaminated_responses).toBe(nativeContaminated)
    // The audit chain holds all of it, in order, and still verifies.
    const audit = auditEntries(db)
    expect(audit.map((a) => a.command)).toEqual(['ingest:canaries', 'ingest:logs', 'ingest:logs', 'drop', 'ingest:logs', 'scan'])
    expect(audit[3]!.args).toMatchObject({reason: 'answers are in output.content'})
    expect(audit[3]!.summary).toMatchObject({dropped: [{path: langfuse, log_format: 'langfuse', parse_spec: '{"format":"langfuse","map":{"response":"output"}}'}]})
    expect(await runJson<{ok: boolean}>(['verify', '--db', db, '--no-originals'])).toMatchObject({ok: true})
  })
})

describe('a file nothing could be read from is not ingested', () => {
  it('a file refused after its records were written, between two files read beside it: nothing of it stays, the others are whole', async () => {
    // Ingest reads a file while the one before is still written, with foreign-key checks off:
    // the refused file's delete must still cascade to its records and extract rows.
    const dir = tempDir()
    const lines = (prefix: string, answer: string, n: number): string =>
      Array.from({length: n}, (_, i) => chatLine({request_id: `${prefix}${i}`, answer, prompt: `p ${prefix}${i} alice@example.com`})).join('\n') + '\n'
    const files = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl'), join(dir, 'c.jsonl')]
    writeFileSync(files[0]!, lines('a', 'fine, bob@example.com', 300))
    writeFileSync(files[1]!, lines('b', '', 300))
    writeFileSync(files[2]!, lines('c', 'also fine', 300))
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', ...files, '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/b\.jsonl: not ingested: every one of its 300 responses decoded to no text/)
    const sql = new Database(db, {readonly: true})
    try {
      const count = (q: string): number => sql.prepare(q).pluck().get() as number
      expect(sql.prepare('SELECT path, state, records FROM files ORDER BY id').all()).toEqual([
        {path: files[0], state: 'complete', records: 300}, {path: files[2], state: 'complete', records: 300},
      ])
      expect(count('SELECT COUNT(*) FROM records')).toBe(600)
      for (const table of ['records', 'evidence_blocks']) expect(count(`SELECT COUNT(*) FROM ${table} WHERE file_id NOT IN (SELECT id FROM files)`), table).toBe(0)
      for (const table of ['pii_values', 'fingerprints']) expect(count(`SELECT COUNT(*) FROM ${table} WHERE record_id NOT IN (SELECT id FROM records)`), table).toBe(0)
      expect(sql.prepare('PRAGMA foreign_key_check').all()).toEqual([])
    } finally {
      sql.close()
    }
  })

  it('all lines unreadable: one line naming the fix, exit 1, nothing kept of it, the other files kept; the right flag then reads it', async () => {
    const dir = tempDir()
    const good = join(dir, 'good.jsonl')
    writeFileSync(good, `${chatLine({request_id: 'n1'})}\n`)
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', good, langfuse, '--db', db, '--log-format', 'native'])
    expect(r.code).toBe(1)
    const error = r.stderr.trim().split('\n').at(-1)!
    expect(error).toMatch(/^Error: .*langfuse-observations\.jsonl: not ingested: none of its \d+ lines or items could be read as native; line 1: missing required field ts; to fix: --log-format \(otel, langfuse, litellm, openai-batch\) or --map FIELD=PATH \(the other file is in the case\)$/)
    expect(await runJson<{files: number; records: number}>(['status', '--db', db])).toMatchObject({files: 1, records: 1})
    // Not "already in the case": the right format reads it now.
    const fixed = await runJson<IngestJson>(['ingest', 'logs', langfuse, '--db', db])
    expect(fixed).toMatchObject({files: 1, refused_files: 0})
    expect(fixed.records).toBeGreaterThan(2000)
  })

  it('JSON that is not JSON Lines (an array, pretty-printed, a saved API page): refused, naming the conversion, not --log-format', async () => {
    const dir = tempDir()
    const rows = [JSON.parse(chatLine({request_id: 'j1'})) as unknown, JSON.parse(chatLine({request_id: 'j2'})) as unknown]
    const files = {
      'array.json': JSON.stringify(rows),
      'pretty.json': JSON.stringify(rows[0], null, 2),
      'page.jsonl': `${JSON.stringify({data: rows, meta: {page: 1}})}\n`,
    }
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(dir, name), text)
      for (const format of ['auto', 'litellm']) {
        const r = await run(['ingest', 'logs', join(dir, name), '--db', join(dir, `${name}-${format}.db`), '--log-format', format])
        expect(r.code, `${name} ${format}`).toBe(1)
        // The conversion fits the wrapping: jq -c '.[]' would split a single object into its members' values.
        const fix = {'array.json': /first, e\.g\. jq -c '\.\[\]' FILE > FILE\.jsonl/, 'pretty.json': /first: jq -c \. FILE > FILE\.jsonl writes the JSON object on one line/, 'page.jsonl': /jq -c '\.data\[\]'/}[name]!
        expect(r.stderr.trim().split('\n').at(-1), `${name} ${format}`).toMatch(/not JSON Lines \(one JSON object a line\); to fix: convert it to JSON Lines first/)
        expect(r.stderr.trim().split('\n').at(-1), `${name} ${format}`).toMatch(fix)
      }
    }
  })

  it('every answer decoded to no text (OTLP spans whose content is in the logs file not given): refused, naming the fix', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', fixture('otel-js-instrumentation-spans.jsonl'), '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/otel-js-instrumentation-spans\.jsonl: not ingested: its one response decoded to no text \(read as otel: no message content on the span or in any log record given.*\), so nothing in it can be judged; to fix: give the OTLP logs file with the traces/)
    const both = await runJson<IngestJson>(['ingest', 'logs', fixture('otel-js-instrumentation-spans.jsonl'), fixture('otel-js-instrumentation-logs.jsonl'), '--db', db])
    expect(both).toMatchObject({files: 2, records: 1})
    const shown = await runJson<{response_text: string; request_text: string}>(['show', 'chatcmpl-testbed-7', '--show-text', '--show-markers', '--db', db])
    expect(shown.response_text).toContain('CANARY-00c0ffee00c0ffee')
    // Its texts come from lines of the other file, which verify checks too.
    expect(await runJson<{ok: boolean}>(['verify', '--db', db, '--no-originals'])).toMatchObject({ok: true})
  })
})

describe('native metadata logs (no response recorded) are kept for what they say, and judged by no gate', () => {
  it('kept with a warning; at-risk counts use them; --fail-on-leak exits 1 naming the file', async () => {
    const dir = tempDir()
    const file = join(dir, 'meta.jsonl')
    const line = (id: string, tokens: number) => JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: 't', session_id: 's', status: 200, prompt_tokens: tokens})
    writeFileSync(file, `${line('m1', 700_000)}\n${line('m2', 10)}\n`)
    const db = join(dir, 'case.db')
    const r = await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])
    expect(r).toMatchObject({files: 1, records: 2})
    expect(r.warnings.join('\n')).toMatch(/meta\.jsonl: 2 of 2 answers \(errors aside\) have no response text \(of which 2 recorded no response at all\)/)
    expect(await runJson<{at_risk: number}>(['scan', '--db', db, '--pool-tokens', '681280'])).toMatchObject({at_risk: 1})
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code).toBe(1)
    expect(gate.stderr).toMatch(/meta\.jsonl \(2 of its 2 answers decoded to no text/)
  })
})

describe('--log-format auto: decided per file, printed, audited, in status', () => {
  it('each file read in its own format, the reason said', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', fixture('native.jsonl'), fixture('langfuse-observations.jsonl'), fixture('litellm-spend-logs.jsonl'), '--db', db, '--assume-tz', 'UTC', '--json'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/native\.jsonl: read as native \(auto: \d+ of \d+ first readable lines have ts, request_id, tenant_id and session_id\)/)
    expect(r.stderr).toMatch(/langfuse-observations\.jsonl: read as langfuse \(auto: /)
    expect(r.stderr).toMatch(/litellm-spend-logs\.jsonl: read as litellm \(auto: /)
    const out = JSON.parse(r.stdout) as IngestJson & {formats: Record<string, number>}
    expect(out.formats).toEqual({native: 1, langfuse: 1, litellm: 1})
    const [entry] = auditEntries(db)
    expect(entry!.args).toMatchObject({log_format: 'auto', assume_tz: 'UTC'})
    expect((entry!.summary.files as FileSummary[]).map((f) => [f.log_format, f.format_reason.slice(0, 5)])).toEqual([['native', 'auto:'], ['langfuse', 'auto:'], ['litellm', 'auto:']])
    expect((await runJson<{log_formats: Record<string, number>}>(['status', '--db', db])).log_formats).toEqual({langfuse: 1, litellm: 1, native: 1})
  })

  it('a file no format fits is refused with each candidate’s reason', async () => {
    const r = await run(['ingest', 'logs', fixture('unknown-shape.jsonl'), '--db', join(tempDir(), 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/unknown-shape\.jsonl: not ingested: its log format could not be decided: no known log format fits/)
  })
})

describe('zone-less timestamps', () => {
  const lines = [
    JSON.stringify({ts: '2026-07-01 12:00:00.123456', request_id: 'z1', tenant_id: 't', session_id: 's', response: 'a'}),
    JSON.stringify({ts: '2026-10-25T02:30:00', request_id: 'z2', tenant_id: 't', session_id: 's', response: 'b'}),
    JSON.stringify({ts: '2026-12-01T08:00:00Z', request_id: 'z3', tenant_id: 't', session_id: 's', response: 'c'}),
  ]

  it('native lines without a zone are refused (bad lines naming --assume-tz), not read as UTC', async () => {
    const dir = tempDir()
    const file = join(dir, 'local.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const db = join(dir, 'case.db')
    const r = await runJson<IngestJson & {bad_lines: number}>(['ingest', 'logs', file, '--db', db])
    expect(r).toMatchObject({records: 1, bad_lines: 2})
    const bad = (await runJson<{bad_line_list: Array<{line: number; reason: string}>}>(['status', '--db', db, '--bad-lines'])).bad_line_list
    expect(bad.map((b) => b.line)).toEqual([1, 2])
    expect(bad[0]!.reason).toMatch(/field ts: timestamp "2026-07-01 12:00:00\.123456" has no zone; give --assume-tz ZONE/)
  })

  it('with --assume-tz the wall time is converted with the offset in force then, an hour the clocks repeated is refused, and the zone is audited', async () => {
    const dir = tempDir()
    const file = join(dir, 'local.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const db = join(dir, 'case.db')
    const r = await runJson<IngestJson & {bad_lines: number}>(['ingest', 'logs', file, '--db', db, '--assume-tz', 'Europe/Berlin'])
    expect(r).toMatchObject({records: 2, bad_lines: 1})
    expect(await runJson<{ts_precise: string}>(['show', 'z1', '--db', db])).toMatchObject({ts_precise: '2026-07-01T10:00:00.123456Z'})
    const bad = (await runJson<{bad_line_list: Array<{line: number; reason: string}>}>(['status', '--db', db, '--bad-lines'])).bad_line_list
    expect(bad[0]!.reason).toMatch(/2026-10-25 02:30:00 happened twice in Europe\/Berlin/)
    expect(auditEntries(db)[0]!.args).toMatchObject({assume_tz: 'Europe/Berlin'})
  })
})

describe('format options are usage errors when bad (exit 2, before anything is stored)', () => {
  const file = fixture('native.jsonl')
  for (const [name, args, message] of [
    ['a --map that does not parse', ['--map', 'tenant_id=metadata..team'], /--map tenant_id=metadata\.\.team: empty step at column 10/],
    ['an unknown zone', ['--assume-tz', 'Mars/Olympus'], /--assume-tz Mars\/Olympus: not an IANA time zone/],
    ['a custom_id pattern without named groups', ['--custom-id-pattern', '^(.*)$'], /needs a named group \(\?<tenant>\.\.\.\)/],
    ['openai-batch without a way to split custom_id', ['--log-format', 'openai-batch'], /--log-format openai-batch: the tenant and session of each request is only in custom_id/],
    ['a zone-less --batch-ts', ['--batch-ts', '2026-11-03 00:00:00'], /--batch-ts "2026-11-03 00:00:00": has no time zone/],
    ['an empty --tenant-attribute', ['--tenant-attribute', ' '], /--tenant-attribute: empty attribute key/],
  ] as const) {
    it(name, async () => {
      const db = join(tempDir(), 'case.db')
      const r = await run(['ingest', 'logs', file, '--db', db, ...args])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(message)
      const t = await run(['triage', file, '--db', db, ...args])
      expect(t.code).toBe(2)
    })
  }
})

describe('the directory walk takes exactly what its help says', () => {
  it('*.jsonl, *.ndjson, *.json, *.log, each of these .gz and their rotated names; any other file by its first bytes', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(join(logs, 'sub'), {recursive: true})
    const line = (id: string) => `${chatLine({request_id: id})}\n`
    for (const name of ['a.jsonl', 'b.ndjson', 'c.json', 'd.log', 'sub/e.jsonl', 'a.jsonl.bak', 'x.txt.gz']) writeFileSync(join(logs, name), line(name))
    writeFileSync(join(logs, 'readme.txt'), 'see the runbook\n')
    writeFileSync(join(logs, 'notes.md'), '# notes\n')
    writeFileSync(join(logs, 'f.jsonl.gz'), gzipSync(line('f')))
    writeFileSync(join(logs, 'archive.tar.gz'), gzipSync(line('tar')))
    const r = await runJson<IngestJson>(['ingest', 'logs', logs, '--db', join(dir, 'case.db')])
    // By name, and by content (a JSON line, gzip): a log under any name is read; text that is not JSON is not.
    expect(r.per_file.map((f) => relative(logs, f.path)).sort()).toEqual(['a.jsonl', 'a.jsonl.bak', 'archive.tar.gz', 'b.ndjson', 'c.json', 'd.log', 'f.jsonl.gz', 'sub/e.jsonl', 'x.txt.gz'])
    const help = await run(['ingest', 'logs', '--help'])
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('directories (walked, through symbolic links, for *.jsonl, *.ndjson, *.json, *.log, each of these .gz, and their rotated names (.1, .2.gz, -YYYYMMDD, -YYYY-MM-DD, .YYYY-MM-DD, .YYYY-MM-DD_HH, each .gz too), and any other file whose first bytes are gzip or a first line opening a JSON object or array)')
    // A file named on the command line is read whatever its name.
    copyFileSync(join(logs, 'a.jsonl.bak'), join(dir, 'named.txt'))
    expect(await runJson<IngestJson>(['ingest', 'logs', join(dir, 'named.txt'), '--db', join(dir, 'case2.db')])).toMatchObject({files: 1, records: 1})
  })
})

describe('LiteLLM\'s placeholder for a text it did not log, in a native log', () => {
  // A converter that copied LiteLLM's spend logs into the native format keeps
  // `redacted-by-litellm` in place of every prompt and answer (message logging turned off).
  // Read as text, a scan found no marker in it and a gate passed on logs that hold no text.
  const line = (id: string, session: string, request: unknown, response: unknown) =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: 'tn-a', session_id: session, status: 200, request, response})
  const registry = (dir: string): string => {
    const file = join(dir, 'canaries.csv')
    writeFileSync(file, 'marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tn-a,s1\nCANARY-00000000000000000000000000000002,tn-a,s2\n')
    return file
  }

  it('a file of nothing else is refused and the gate cannot pass, saying the texts were not logged', async () => {
    const dir = tempDir()
    const file = join(dir, 'converted.jsonl')
    const redacted = {messages: [{role: 'user', content: 'redacted-by-litellm'}]}
    writeFileSync(file, [
      line('r1', 's1', redacted, 'redacted-by-litellm'),
      line('r2', 's2', redacted, {choices: [{message: {role: 'assistant', content: 'redacted-by-litellm'}}]}),
      // Escaped as a writer may: the same placeholder once read.
      line('r3', 's1', redacted, 'redacted-by-litellm').replace('"response":"redacted', '"response":"r\\u0065dacted'),
    ].join('\n') + '\n')
    const r = await run(['triage', file, '--canaries', registry(dir), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/converted\.jsonl: not ingested: every one of its 3 responses decoded to no text \(read as native: response text redacted at the source \(redacted-by-litellm\): no text\), so nothing in it can be judged; to fix: the answers were not logged \(LiteLLM writes redacted-by-litellm in their place while its turn_off_message_logging is on\)/)
    expect(r.stdout).not.toMatch(/No response carried another session's canary marker/)
  })

  it('beside answers that were logged: those are judged, the placeholders counted as no text', async () => {
    const dir = tempDir()
    const file = join(dir, 'mixed.jsonl')
    writeFileSync(file, [
      line('r1', 's1', {messages: [{role: 'user', content: 'redacted-by-litellm'}]}, 'redacted-by-litellm'),
      line('r2', 's2', {messages: [{role: 'user', content: 'hello CANARY-00000000000000000000000000000002'}]}, 'an answer quoting CANARY-00000000000000000000000000000001'),
      // A text that mentions the placeholder is a text.
      line('r3', 's2', 'what is redacted-by-litellm?', 'redacted-by-litellm is a placeholder'),
    ].join('\n') + '\n')
    const r = await runJson<{ingest: IngestJson; scan: {contaminated_responses: number}}>(['triage', file, '--canaries', registry(dir), '--db', join(dir, 'case.db')])
    expect(r.ingest.per_file[0]).toMatchObject({records: 3, no_request_text: 1, no_response_text: 1})
    expect(r.ingest.warnings.join('\n')).toMatch(/mixed\.jsonl: 1 of 3 answers \(errors aside\) has no response text/)
    expect(r.scan.contaminated_responses).toBe(1)
  })

  it('the gate, scan --json and status say such answers were not logged, not that --map is wrong', async () => {
    const dir = tempDir()
    const file = join(dir, 'partly.jsonl')
    writeFileSync(file, [
      line('r1', 's1', {messages: [{role: 'user', content: 'redacted-by-litellm'}]}, 'redacted-by-litellm'),
      line('r2', 's2', 'hello CANARY-00000000000000000000000000000002', 'a clean answer'),
    ].join('\n') + '\n')
    const db = join(dir, 'case.db')
    const gate = await run(['triage', file, '--canaries', registry(dir), '--db', db, '--fail-on-leak'])
    expect(gate.code).toBe(1)
    expect(gate.stderr).toMatch(/partly\.jsonl \(1 of its 2 answers were not logged \(LiteLLM writes redacted-by-litellm in their place while its turn_off_message_logging is on\); ingest logs that hold the texts/)
    expect(gate.stderr).not.toMatch(/--map/)
    const scan = await runJson<{unreadable_files: Array<{path: string; no_response_text: number; unlogged_answers: number; why: string}>}>(['scan', '--db', db])
    expect(scan.unreadable_files).toEqual([expect.objectContaining({no_response_text: 1, unlogged_answers: 1, why: expect.stringMatching(/^1 of its 2 answers were not logged/)})])
    const status = await runJson<{unreadable_files: Array<{path: string; why: string}>}>(['status', '--db', db])
    expect(status.unreadable_files).toEqual([{path: expect.stringMatching(/partly\.jsonl$/), why: scan.unreadable_files[0]!.why}])

    // Beside an answer that decoded to nothing for another reason, both are said.
    const both = join(dir, 'both.jsonl')
    writeFileSync(both, [
      line('r1', 's1', 'a prompt', 'redacted-by-litellm'),
      line('r2', 's2', 'a prompt', ''),
      line('r3', 's2', 'a prompt', 'a clean answer'),
    ].join('\n') + '\n')
    const mixed = await run(['triage', both, '--canaries', registry(dir), '--db', join(dir, 'both.db'), '--fail-on-leak'])
    expect(mixed.code).toBe(1)
    expect(mixed.stderr).toMatch(/both\.jsonl \(2 of its 3 answers decoded to no text, 1 of them not logged \(LiteLLM writes redacted-by-litellm in their place while its turn_off_message_logging is on\); for the other 1, check --log-format \/ --map/)
    const mixedScan = await runJson<{unreadable_files: Array<{unlogged_answers: number; why: string}>}>(['scan', '--db', join(dir, 'both.db')])
    expect(mixedScan.unreadable_files).toEqual([expect.objectContaining({unlogged_answers: 1, why: expect.stringMatching(/^2 of its 3 answers decoded to no text, 1 of them not logged/)})])
  })
})

describe('LiteLLM spend-log rows that hold no answer', () => {
  // LiteLLM keeps the bodies in its spend logs only with store_prompts_in_spend_logs on; with
  // message logging off it writes its placeholder. Neither is a mapping a flag could fix.
  const spendRow = (id: string, response: unknown): string => {
    const row = JSON.parse(readFileSync(fixture('litellm-spend-logs.jsonl'), 'utf8').split('\n')[0]!) as Record<string, unknown>
    return JSON.stringify({...row, request_id: id, startTime: '2026-10-30T00:39:10.100000Z', endTime: '2026-10-30T00:39:11.950567Z', response})
  }

  it('a file of rows without bodies is refused with the setting to turn on, not --map', async () => {
    const dir = tempDir()
    const file = join(dir, 'spend.jsonl')
    writeFileSync(file, [spendRow('r1', {}), spendRow('r2', {})].join('\n') + '\n')
    const r = await run(['ingest', 'logs', file, '--db', join(dir, 'case.db'), '--log-format', 'litellm'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/spend\.jsonl: not ingested: every one of its 2 responses decoded to no text .*; to fix: the answers were not logged \(LiteLLM keeps answers in its spend logs only with store_prompts_in_spend_logs on\)/)
    expect(r.stderr).not.toMatch(/--map/)
  })

  it('a placeholder in a spend-log row is message logging turned off; the gate says so', async () => {
    const dir = tempDir()
    const file = join(dir, 'spend.jsonl')
    const logged = JSON.parse(readFileSync(fixture('litellm-spend-logs.jsonl'), 'utf8').split('\n')[0]!).response as unknown
    writeFileSync(file, [spendRow('r1', logged), spendRow('r2', 'redacted-by-litellm')].join('\n') + '\n')
    const r = await run(['triage', file, '--db', join(dir, 'case.db'), '--log-format', 'litellm', '--fail-on-leak'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/spend\.jsonl \(1 of its 2 answers were not logged \(LiteLLM logs no text while message logging is turned off\)/)
  })
})
