import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {sniffFormat, type LogFormat} from '../../../src/extract/formats/index.js'
import {parseAssumeTz} from '../../../src/extract/timestamps-zone.js'
import {generateIncident} from '../../../src/generate/generate-incident.js'
import {parseLine, type RecordRow} from '../../../src/extract/parse-record.js'
import {BATCH_CUSTOM_ID_PATTERN, convertIncident, readNativeIncident, type ConvertedIncident} from '../../helpers/convert-formats.js'
import {readJsonLines, runAdapter, type RunResult} from './run-adapter.js'

// The same generated incident, written in every format by the independent converters, read
// back by the adapters and decoded by the native path: the texts detection runs on, and the
// ids it attributes them to, must equal the native incident's, line for line. Where a format
// cannot carry something (a failed LiteLLM call keeps no partial text; a failed Batch request
// keeps only its error), only what it carries is compared, and the test says so.

let native: Map<string, RecordRow>
let converted: ConvertedIncident

beforeAll(async () => {
  const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'formats-'))
  await generateIncident({out: join(dir, 'incident'), records: 2000, seed: 11})
  native = new Map()
  for (const l of readNativeIncident(join(dir, 'incident', 'logs'))) {
    const parsed = parseLine(Buffer.from(JSON.stringify(l.value)))
    if (parsed.kind === 'record') native.set(parsed.row.request_id, parsed.row)
  }
  converted = convertIncident(join(dir, 'incident', 'logs'), join(dir, 'converted'))
}, 120_000)

interface Compare {
  /** Whether the format carries the response text of this (native) record. */
  carriesResponse?: (row: RecordRow) => boolean
  /**
   * The format splits a prompt into text parts, which a request's text holds on lines of their
   * own: its request text equals the native one up to the white space at the parts' edges.
   */
  promptInParts?: boolean
}

const oneSpaced = (t: string | null): string | null => t?.replace(/\s+/g, ' ') ?? null

function expectSameAsNative(run: RunResult, how: Compare = {}): void {
  expect(run.problems).toEqual([])
  const bad = run.produced.filter((p) => p.row === null)
  expect(bad.map((p) => p.bad)).toEqual([])
  const got = new Map(run.produced.map((p) => [p.row!.request_id, p.row!]))
  // Every native record, and nothing else.
  expect([...got.keys()].sort()).toEqual([...native.keys()].sort())
  const mismatches: string[] = []
  let comparedResponses = 0
  for (const [id, want] of native) {
    const row = got.get(id)!
    for (const field of ['tenant_id', 'session_id', 'request_text', 'is_error'] as const) {
      const same = field === 'request_text' && how.promptInParts ? oneSpaced(row[field]) === oneSpaced(want[field]) : row[field] === want[field]
      if (!same) mismatches.push(`${id} ${field}: ${JSON.stringify(row[field])?.slice(0, 120)} != ${JSON.stringify(want[field])?.slice(0, 120)}`)
    }
    if (how.carriesResponse?.(want) ?? true) {
      comparedResponses++
      if (row.response_text !== want.response_text) {
        mismatches.push(`${id} response_text: ${JSON.stringify(row.response_text)?.slice(0, 120)} != ${JSON.stringify(want.response_text)?.slice(0, 120)}`)
      }
    }
  }
  expect(mismatches.slice(0, 10)).toEqual([])
  // The comparison covered the incident, not a corner of it.
  expect(comparedResponses).toBeGreaterThan(native.size * 0.9)
}

describe('the same incident in every format decodes to the same texts and ids', () => {
  it('has a native incident with canaries, streams, tool calls and errors to compare', () => {
    expect(native.size).toBeGreaterThan(1900)
    const rows = [...native.values()]
    expect(rows.filter((r) => r.stream === 1).length).toBeGreaterThan(100)
    expect(rows.filter((r) => r.is_error === 1).length).toBeGreaterThan(20)
    expect(rows.filter((r) => (r.response_text ?? '').includes('CANARY-')).length).toBeGreaterThan(10)
  })

  it('otel: spans batched 7 a line, five content forms, log records in a second file, sessions on parent spans', () => {
    const run = runAdapter('otel', [converted.otel.traces, converted.otel.logs])
    // Several spans of different requests share a line.
    expect(Math.max(...run.produced.map((p) => p.item))).toBeGreaterThan(3)
    expectSameAsNative(run, {promptInParts: true})
    // Tokens where the span carried them.
    const withTokens = run.produced.filter((p) => p.row!.prompt_tokens !== null).length
    expect(withTokens).toBeGreaterThan(native.size * 0.9)
  })

  it('langfuse: API v2 and blob-export rows mixed, SPAN observations ignored', () => {
    const run = runAdapter('langfuse', [converted.langfuse])
    expect(run.ignored).toBeGreaterThan(300)
    expectSameAsNative(run)
    expect(run.produced.every((p) => p.row!.status === null && p.row!.decode_node === null)).toBe(true)
  })

  it('litellm: zone-less times with --assume-tz UTC; no status or node; failures keep only their error', () => {
    const run = runAdapter('litellm', [converted.litellm], {}, parseAssumeTz('UTC'))
    expectSameAsNative(run, {carriesResponse: (row) => row.is_error === 0})
    expect(run.produced.every((p) => p.row!.status === null && p.row!.prefill_node === null && p.row!.decode_node === null)).toBe(true)
    const failures = run.produced.filter((p) => p.row!.is_error === 1)
    expect(failures.length).toBeGreaterThan(20)
    expect(failures.every((p) => p.row!.prompt_tokens === null)).toBe(true)
    // Timestamps agree to the microsecond once the zone is given.
    const sample = run.produced.slice(0, 50)
    for (const p of sample) expect(Date.parse(p.row!.ts)).toBe(native.get(p.row!.request_id)!.ts_ms)
  })

  it('openai-batch: output and error files joined with the input file by custom_id, split by a pattern', () => {
    const run = runAdapter('openai-batch', [converted.batch.input, converted.batch.output, converted.batch.errors], {
      customIdPattern: BATCH_CUSTOM_ID_PATTERN,
      fallbackTs: '2026-11-03T00:00:00Z',
    })
    expectSameAsNative(run, {carriesResponse: (row) => row.is_error === 0 || row.response_text === ''})
    const statuses = new Set(run.produced.map((p) => p.row!.status))
    expect(statuses.has(200)).toBe(true)
  })

  it('auto recognises every converted file', () => {
    const files: [string, LogFormat][] = [
      [converted.otel.traces, 'otel'],
      [converted.otel.logs, 'otel'],
      [converted.langfuse, 'langfuse'],
      [converted.litellm, 'litellm'],
      [converted.batch.input, 'openai-batch'],
      [converted.batch.output, 'openai-batch'],
      [converted.batch.errors, 'openai-batch'],
    ]
    for (const [file, format] of files) expect([file, sniffFormat(readJsonLines(file).map((l) => l.value)).format]).toEqual([file, format])
  })

  for (const format of ['otel', 'langfuse', 'litellm'] as LogFormat[]) {
    it(`${format}: a converted file read as native is not silently empty: every line is a bad line`, () => {
      const file = format === 'otel' ? converted.otel.traces : format === 'langfuse' ? converted.langfuse : converted.litellm
      const run = runAdapter('native', [file])
      expect(run.produced.filter((p) => p.row !== null)).toEqual([])
      expect(run.problems.length).toBeGreaterThan(0)
    })
  }
})
