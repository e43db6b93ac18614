import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {PairSet} from '../../src/ingest/pair-set.js'
import {ParsePool} from '../../src/ingest/parse-pool.js'
import {processUnit, recordFlags, type UnitResult, type UnitTask} from '../../src/ingest/process-unit.js'
import {quickUnit, type QuickUnitResult} from '../../src/ingest/quick-unit.js'
import {emptyCounts, tallyFlags, tallyRecord, tallyUnit, type FileSummaryCounts} from '../../src/ingest/unit-writer.js'

// The quick verdict's pass gets each unit back compact (quick-unit.ts: hashed request ids,
// per-record flags and times in typed arrays, details only for records with a marker) instead
// of ingest's full record items. Property: on random units of hostile lines, tallying the
// compact results (first request id wins, as the pass does) gives the very counts ingest's
// writer tallies from the full items, and keeps the same marker records; also when the units
// come back from a worker thread.

const SEED = 180_019
const MARKERS = ['CANARY-aaaa1111aaaa1111aaaa', 'ZEBRA-TOKEN-C1']
const spec = encodeParseSpec({format: 'native'})

const answer = fc.constantFrom('plain words', '', 'CANARY-aaaa1111aaaa1111aaaa here', 'canary-AAAA11 not one', 'x ZEBRA-TOKEN-C1 y', 'CANARY-0123456789abcdef0')
const response = fc.oneof(
  answer,
  answer.map((a) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: a}}]})),
  answer.map((a) => JSON.stringify({object: 'text_completion', choices: [{index: 0, text: a}]})),
  answer.map((a) => `data: ${JSON.stringify({choices: [{index: 0, delta: {content: a}}]})}\n\ndata: [DONE]\n\n`),
  fc.constantFrom({error: {message: 'overloaded'}}, '{"object":"error","message":"bad"}', 'data: {"error":{"message":"x"}}\n\n', null, {choices: []}),
)
const request = fc.constantFrom(null, '', 'hello CANARY-aaaa1111aaaa1111aaaa', {messages: [{role: 'user', content: 'hi'}]}, {messages: []}, '{"prompt":"p"}')
const goodLine = fc
  .record({
    id: fc.constantFrom('r1', 'r2', 'r3', 'r4', '12345678901234567891', ' r5', 'ü'),
    tenant: fc.constantFrom('ta', 'tb'), minute: fc.integer({min: 0, max: 59}), request, response: fc.option(response, {nil: undefined}),
    tokens: fc.constantFrom(undefined, 12, -1, '99', 2 ** 63), status: fc.constantFrom(undefined, 200, 70000),
  })
  .map((g) => {
    const fields: Record<string, unknown> = {ts: `2026-11-02T06:${String(g.minute).padStart(2, '0')}:00.000Z`, request_id: g.id, tenant_id: g.tenant, session_id: 's', status: g.status, prompt_tokens: g.tokens, request: g.request}
    if (g.response !== undefined) fields.response = g.response
    const json = JSON.stringify(fields)
    // an id of 20 digits written as a number: it must keep every digit
    return g.id === '12345678901234567891' ? json.replace('"12345678901234567891"', '12345678901234567891') : json
  })
const line = fc.oneof(
  {weight: 8, arbitrary: goodLine},
  {weight: 1, arbitrary: fc.constantFrom('{"ts":', 'not json', '{"request_id":"x","tenant_id":"t"}', '[1,2]', '', '   ', '\xff\xfe', 'x'.repeat(700), '{"ts":"2026-11-02","request_id":"r9","tenant_id":"t","session_id":"s","response":"ok"}')},
)
const unit = fc.record({lines: fc.array(line, {minLength: 1, maxLength: 30}), bom: fc.boolean(), crlf: fc.boolean()})

function taskOf(u: {lines: string[]; bom: boolean; crlf: boolean}, seq: number): UnitTask {
  // '\xff\xfe' stands for two bytes that are not UTF-8
  const lines = u.lines.map((l) => (l === '\xff\xfe' ? Buffer.from([0xff, 0xfe]) : Buffer.from(l)))
  const end = Buffer.from(u.crlf ? '\r\n' : '\n')
  const bytes = Buffer.concat([u.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...lines.flatMap((l, i) => (i === 0 ? [l] : [end, l]))])
  return {seq, bytes: new Uint8Array(bytes), offset: 0, firstLineNo: 1, spec, file: '0', maxLineBytes: 512}
}

interface Tally {
  counts: FileSummaryCounts
  firstBad: {line: number; reason: string} | null
  marked: Array<{request_id: string; tenant_id: string; ts_ms: number; tokens: unknown; hits: unknown; token_echo: number[]; hit_echo: boolean[]}>
}

/**
 * The echo facts by their definition, from the prompt the scan would read: per token, the most of
 * its hex digits, from the first, that the prompt holds right after `CANARY-` in either letter
 * case (every length tried); per hit, whether it holds the marker as registered.
 */
function echoOf(tokens: Array<{token: string}>, hits: Array<{token: string}>, prompt: string): {token_echo: number[]; hit_echo: boolean[]} {
  const asMarker = (hex: string) => new RegExp(`CANARY-${[...hex].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('')}`)
  const longest = (hex: string) => {
    let k = 0
    for (let n = 1; n <= hex.length; n++) if (asMarker(hex.slice(0, n)).test(prompt)) k = n
    return k
  }
  return {token_echo: tokens.map((t) => longest(t.token.slice('CANARY-'.length))), hit_echo: hits.map((h) => prompt.includes(h.token))}
}

/** As ingest's writer counts full items (UnitWriter.write), with the echo-check prompt the scan would read. */
function tallyFull(results: Array<{r: UnitResult; prompts: Map<object, string | null>}>): Tally {
  const t: Tally = {counts: emptyCounts(), firstBad: null, marked: []}
  const seen = new Set<string>()
  for (const {r, prompts} of results) {
    tallyUnit(t.counts, r)
    for (const item of r.items) {
      if (item.k === 'b') {
        t.counts.bad_lines++
        t.firstBad ??= {line: item.lineNo, reason: item.reason}
        continue
      }
      if (seen.has(item.row.request_id)) {
        t.counts.duplicates++
        continue
      }
      seen.add(item.row.request_id)
      tallyRecord(t.counts, item)
      if (item.tokens.length > 0 || item.unconventional.length > 0) {
        t.marked.push({request_id: item.row.request_id, tenant_id: item.row.tenant_id, ts_ms: item.row.ts_ms, tokens: item.tokens, hits: item.unconventional, ...echoOf(item.tokens, item.unconventional, prompts.get(item) ?? '')})
      }
    }
  }
  return t
}

/** As the quick pass counts compact results (quick-pass.ts). */
function tallyQuick(results: QuickUnitResult[]): Tally {
  const t: Tally = {counts: emptyCounts(), firstBad: null, marked: []}
  const seen = new PairSet()
  for (const r of results) {
    tallyUnit(t.counts, r)
    t.counts.bad_lines += r.bad
    if (r.firstBad) t.firstBad ??= r.firstBad
    for (let i = 0; i < r.flags.length; i++) {
      if (!seen.addHashed(r.pairs[2 * i]!, r.pairs[2 * i + 1]!)) {
        t.counts.duplicates++
        continue
      }
      tallyFlags(t.counts, r.flags[i]!, r.ts[i]!)
      const m = r.marked.find((x) => x.at === i)
      if (m) t.marked.push({request_id: m.request_id, tenant_id: m.tenant_id, ts_ms: m.ts_ms, tokens: m.tokens, hits: m.hits, token_echo: m.token_echo, hit_echo: m.hit_echo})
    }
  }
  return t
}

function full(tasks: UnitTask[], set: UnconventionalSet): Tally {
  return tallyFull(tasks.map((task) => {
    const prompts = new Map<object, string | null>()
    const r = processUnit({...task, bytes: task.bytes.slice()}, set, null, (item, texts) => prompts.set(item, texts.request_text))
    return {r, prompts}
  }))
}

describe('the quick pass\'s compact unit results', () => {
  it('tally to ingest\'s counts and keep its marker records, on random hostile units', () => {
    const set = new UnconventionalSet(MARKERS.filter((m) => !m.startsWith('CANARY-')))
    let marked = 0
    let duplicates = 0
    let errors = 0
    fc.assert(
      fc.property(fc.array(unit, {minLength: 1, maxLength: 4}), (units) => {
        const tasks = units.map((u, i) => ({...taskOf(u, i), firstLineNo: 1 + 31 * i, offset: i === 0 ? 0 : 1000 * i}))
        const expected = full(tasks, set)
        const quick = tallyQuick(tasks.map((task) => quickUnit({...task, bytes: task.bytes.slice(), quickSource: 'default'}, set)))
        expect(quick).toEqual(expected)
        marked += expected.marked.length
        duplicates += expected.counts.duplicates
        errors += expected.counts.error_records
      }),
      {seed: SEED, numRuns: 300},
    )
    // the generator reaches what the encoding carries (not vacuous)
    expect(marked).toBeGreaterThan(100)
    expect(duplicates).toBeGreaterThan(100)
    expect(errors).toBeGreaterThan(100)
  })

  it('come back from a worker thread as they were made', async () => {
    const set = new UnconventionalSet(['ZEBRA-TOKEN-C1'])
    const units = fc.sample(fc.array(unit, {minLength: 3, maxLength: 6}), {seed: SEED, numRuns: 1})[0]!
    const tasks = units.map((u, i) => taskOf(u, i))
    const pool = new ParsePool(1, ['ZEBRA-TOKEN-C1'])
    try {
      expect(pool.threaded).toBe(true)
      for (const task of tasks) pool.submit({...task, bytes: task.bytes.slice(), quickSource: 'default'}, true)
      const back: QuickUnitResult[] = []
      for (const task of tasks) {
        const r = await pool.nextQuick()
        expect(r.seq).toBe(task.seq)
        back.push(r)
      }
      expect(tallyQuick(back)).toEqual(full(tasks, set))
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('flag each record as ingest counts it', () => {
    const row = {request_text: '', response_text: null, is_error: 0, response_kind: 'none'} as Parameters<typeof recordFlags>[0]
    const c = emptyCounts()
    tallyFlags(c, recordFlags(row), 5)
    expect(c).toMatchObject({records: 1, no_request_text: 1, no_response_text: 1, no_response: 1, error_records: 0, first_ms: 5, last_ms: 5})
    const e = emptyCounts()
    tallyFlags(e, recordFlags({...row, request_text: 'p', is_error: 1, response_kind: 'error'}), 5)
    expect(e).toMatchObject({records: 1, no_request_text: 0, no_response_text: 0, no_response: 0, error_records: 1})
  })
})
