import {spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {Worker} from 'node:worker_threads'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {EMBEDDING_ANSWER} from '../../src/extract/decode.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {NOT_SEARCHED, UNREAD_SHAPES} from '../../src/extract/parse-record.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {ADDON_PATH, NATIVE_BLANK, NATIVE_LEFT, NATIVE_RECORD, nativeQuickExtractor, nativeQuickStatus, releaseNativeQuick, resetNativeQuick} from '../../src/ingest/native-quick.js'
import {NO_REQUEST_TEXT, NO_RESPONSE_TEXT, processUnit, type UnitResult} from '../../src/ingest/process-unit.js'
import {quickUnit, type QuickUnitResult, type QuickUnitTask} from '../../src/ingest/quick-unit.js'
import {definitionShapes, requestShapes} from '../helpers/request-shapes.js'

// The differential test of the native extractor (native/, Rust): on generated incidents and on
// random and mutated lines, a unit read with the native extractor gives exactly the quick
// result the TypeScript extractor gives alone (every record's hashes, flags and time, every
// count, note, bad line and marker record), and on generated logs it claims nearly every line
// (a native extractor that claimed nothing would pass the first check and be useless).

const addon = nativeQuickStatus()
const cargo = spawnSync('cargo', ['--version'], {stdio: 'ignore'}).status === 0
const MARKERS = ['ZEBRA-TOKEN-C1', 'Ünïcode-marker-7']
const spec = encodeParseSpec({format: 'native'})

/** `fn` run with the addon in use (native) or turned off (CROSSTALK_NATIVE=0), the setting put back after. */
function withNative<T>(native: boolean, fn: () => T): T {
  const before = process.env.CROSSTALK_NATIVE
  if (native) delete process.env.CROSSTALK_NATIVE
  else process.env.CROSSTALK_NATIVE = '0'
  resetNativeQuick()
  try {
    return fn()
  } finally {
    if (before === undefined) delete process.env.CROSSTALK_NATIVE
    else process.env.CROSSTALK_NATIVE = before
    resetNativeQuick()
  }
}

function run(task: QuickUnitTask, native: boolean, set: UnconventionalSet): Omit<QuickUnitResult, 'input'> {
  return withNative(native, () => {
    const {input: _input, ...result} = quickUnit({...task, bytes: task.bytes.slice()}, set)
    return result
  })
}

/** A unit read for ingest (processUnit), with the addon's decoder of plain native lines or without it. */
function runIngest(task: QuickUnitTask, native: boolean, set: UnconventionalSet): Omit<UnitResult, 'input'> {
  return withNative(native, () => {
    const {quickSource: _source, ...unitTask} = task
    const {input: _input, ...result} = processUnit({...unitTask, bytes: task.bytes.slice()}, set)
    return result
  })
}

/**
 * The unit's quick result and its ingest result each the same with the native code as without
 * it (the quick pass's extractor; ingest's decoder of bodies); the native quick result.
 */
function same(task: QuickUnitTask, set: UnconventionalSet): Omit<QuickUnitResult, 'input'> {
  const quick = run(task, true, set)
  expect(quick).toEqual(run(task, false, set))
  expect(runIngest(task, true, set)).toEqual(runIngest(task, false, set))
  return quick
}

/** Per kind, how many of a unit's lines ingest's native decoder read. */
function ingestClaims(bytes: Uint8Array, maxLineBytes = 1 << 20): {left: number; blank: number; record: number} {
  return countKinds((createRequire(import.meta.url)(ADDON_PATH) as {ingestLines: (b: Uint8Array, m: number) => {kinds: Uint8Array}}).ingestLines(bytes, maxLineBytes).kinds)
}

/** How many lines of each kind (left to TypeScript, blank, a record) a native answer gives. */
function countKinds(kinds: Uint8Array): {left: number; blank: number; record: number} {
  const c = {left: 0, blank: 0, record: 0}
  for (const k of kinds) {
    if (k === NATIVE_LEFT) c.left++
    else if (k === NATIVE_BLANK) c.blank++
    else if (k === NATIVE_RECORD) c.record++
  }
  return c
}

interface IngestColumns {kinds: Uint8Array; flags: Uint8Array; kind: Uint8Array; tokens: Float64Array; rest: string[]; request: string[]; response: string[]; errorMessage: string[]}
interface IngestUnitHandle {facts(): Omit<IngestColumns, 'rest' | 'request' | 'response' | 'errorMessage'> | null; text(column: number, record: number): string}

/**
 * The addon's two readings of a unit for ingest: its columns all at once (ingestLines), and the
 * same columns with each text handed over when asked for (ingestUnit, what ingest uses), texts
 * asked for in the order a parse worker asks (response, error message, request, the rest).
 */
function bothIngestReadings(bytes: Uint8Array): {all: IngestColumns; oneByOne: IngestColumns; again: string[]} {
  const a = createRequire(import.meta.url)(ADDON_PATH) as {ingestLines: (b: Uint8Array, m: number) => IngestColumns; ingestUnit: (b: Uint8Array, m: number) => IngestUnitHandle}
  const all = a.ingestLines(bytes, 1 << 20)
  const unit = a.ingestUnit(bytes, 1 << 20)
  const facts = unit.facts()!
  const oneByOne: IngestColumns = {...facts, rest: [], request: [], response: [], errorMessage: []}
  const again: string[] = []
  for (let r = 0; r < all.rest.length; r++) {
    oneByOne.response.push(unit.text(2, r))
    oneByOne.errorMessage.push(unit.text(3, r))
    oneByOne.request.push(unit.text(1, r))
    oneByOne.rest.push(unit.text(0, r))
    // Each text is handed over once: the unit keeps nothing of it.
    again.push(unit.text(0, r), unit.text(2, r))
  }
  expect(unit.facts()).toBeNull()
  return {all, oneByOne, again}
}

/** Lines of this thread the native walk refused and serde_json read (native/src/lib.rs). */
function walkMissed(): number {
  return (createRequire(import.meta.url)(ADDON_PATH) as {walkMissed: () => number}).walkMissed()
}

function taskOf(bytes: Uint8Array, maxLineBytes = 1 << 20): QuickUnitTask {
  return {seq: 0, bytes, offset: 0, firstLineNo: 1, spec, file: '0', maxLineBytes, quickSource: 'gw-test'}
}

/** Per kind, how many of a unit's lines the native extractor claimed. */
function claims(bytes: Uint8Array, set: UnconventionalSet, maxLineBytes = 1 << 20): {left: number; blank: number; record: number} {
  return countKinds(nativeQuickExtractor(set)!.lines(bytes, 'gw-test', maxLineBytes).kinds)
}

it('the native addon is built wherever cargo is installed', () => {
  // Without cargo the pass runs in TypeScript (the rest of this file then has nothing to compare).
  if (cargo) expect(addon, `the addon should have been built by npm run build: ${addon.reason}`).toEqual({native: true, reason: null})
  else if (!addon.native) expect(addon.reason).toMatch(/^(not built|turned off|could not be loaded)/)
})

describe.skipIf(!addon.native)('native quick extractor, against the TypeScript one', () => {
  const set = new UnconventionalSet(MARKERS)

  describe('on generated incidents', () => {
    let dir: string
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'crosstalk-native-'))
      await generateIncident({out: dir, records: 3000, seed: 71})
    }, 120_000)
    afterAll(() => rmSync(dir, {recursive: true, force: true}))

    it('gives the same quick result unit by unit, claiming nearly every line', () => {
      const files = readdirSync(join(dir, 'logs')).filter((f) => f.endsWith('.jsonl'))
      expect(files.length).toBeGreaterThan(3)
      const missedBefore = walkMissed()
      let claimed = 0
      let lines = 0
      let ingestRead = 0
      for (const f of files) {
        const bytes = readFileSync(join(dir, 'logs', f))
        // Units cut at arbitrary line ends, as the reader cuts them.
        for (let s = 0, n = 0; s < bytes.length; n++) {
          let e = Math.min(bytes.length, s + 40_000 + 7919 * n)
          if (e < bytes.length) e = bytes.indexOf(10, e) + 1 || bytes.length
          const unit = new Uint8Array(bytes.subarray(s, e))
          s = e
          same(taskOf(unit), set)
          const c = claims(unit, set)
          claimed += c.blank + c.record
          lines += c.left + c.blank + c.record
          const i = ingestClaims(unit)
          ingestRead += i.record
          const {all, oneByOne, again} = bothIngestReadings(unit)
          expect(oneByOne).toEqual(all)
          expect(again.every((t) => t === '')).toBe(true)
          if (all.rest.length > 0) expect(oneByOne.rest[0]!.length).toBeGreaterThan(0)
        }
      }
      expect(lines).toBeGreaterThan(2500)
      // Error bodies (vLLM's, with their `type`) included: the TypeScript extractor reads next to none.
      expect(claimed / lines).toBeGreaterThan(0.995)
      // Ingest's decoder reads the bodies of nearly every line too.
      expect(ingestRead / lines).toBeGreaterThan(0.9)
      // Every line read once: the walk refused none that serde_json then read.
      expect(walkMissed() - missedBefore).toBe(0)
    })
  })

  // ---------------------------------------------------------------- random and mutated lines

  const text = fc.oneof(
    fc.constantFrom('plain words', '', ' ', '\u00a0', 'CANARY-aaaa1111aaaa1111aaaa here', 'canary-aaaa1111aaaa', 'x ZEBRA-TOKEN-C1 y', 'Ünïcode-marker-7', 'CANARY-', 'ZEBRA-TOKEN', 'é\u2028ü', '{"not":"json"', '[1]'),
    // The same words in NFC, in NFD and with a singleton (U+212B): fingerprinted alike.
    fc.constantFrom('un café très noir à côté de Ångström', 'un cafe\u0301 tre\u0300s noir a\u0300 co\u0302te\u0301 de A\u030angstro\u0308m', 'un café très noir à côté de \u212bngström'),
    fc.string({maxLength: 12}),
    fc.string({unit: 'grapheme', maxLength: 8}),
  )
  const index = fc.constantFrom<unknown>(0, 1, 2, -0, 1.5, '1', null, 2 ** 60, 1e300, undefined)
  // Parts: strings, text parts, an image part (no text, so nothing), a text part whose text is not a string, a number.
  const content = fc.oneof(text, fc.array(fc.oneof(text, text.map((t) => ({type: 'text', text: t})), fc.constantFrom<unknown>(5, {type: 'image_url', image_url: {url: 'u'}}, {type: 'text', text: 4})), {maxLength: 3}), fc.constantFrom<unknown>(null, 7, {text: 'x'}))
  const toolCalls = fc.array(fc.record({index, function: fc.oneof(fc.record({arguments: fc.oneof(text, fc.constant<unknown>(3))}), fc.constant<unknown>('f'))}, {requiredKeys: []}), {maxLength: 2})
  const message = fc.record({role: fc.constant('assistant'), content, reasoning_content: fc.oneof(text, fc.constant<unknown>(1)), reasoning: fc.oneof(text, fc.constant<unknown>(2)), tool_calls: toolCalls}, {requiredKeys: []})
  const choice = fc.oneof(
    fc.record({index, message: fc.oneof(message, fc.constant<unknown>('m')), text: fc.oneof(text, fc.constant<unknown>(0))}, {requiredKeys: []}),
    fc.record({index, delta: fc.oneof(message, fc.constant<unknown>(null)), text}, {requiredKeys: []}),
    fc.constantFrom<unknown>('c', 4, null),
  )
  const errorish = fc.constantFrom<unknown>(undefined, undefined, undefined, {message: 'overloaded'}, 'boom', 3, null, [], {}, {message: 5, code: 1})
  // Token counts as servers give them, and as they should not: readUsage keeps safe integers from 0 (-0 too).
  const tokenCount = fc.constantFrom<unknown>(undefined, undefined, 0, 3, 17, -0, 1.5, -2, '4', null, 2 ** 53 - 1, 2 ** 53 - 2, 1e2, true)
  const details = fc.oneof(fc.record({cached_tokens: tokenCount}, {requiredKeys: []}), fc.constantFrom<unknown>(null, 5, []))
  const usage = fc.oneof(
    {weight: 4, arbitrary: fc.record({prompt_tokens: tokenCount, completion_tokens: tokenCount, total_tokens: tokenCount, prompt_tokens_details: details}, {requiredKeys: []})},
    {
      weight: 3,
      arbitrary: fc.record(
        {prompt_tokens: tokenCount, input_tokens: tokenCount, output_tokens: tokenCount, completion_tokens: tokenCount, input_tokens_details: details, prompt_tokens_details: details, cache_read_input_tokens: tokenCount, cache_creation_input_tokens: tokenCount},
        {requiredKeys: []},
      ),
    },
    {weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'u', [], {prompt_tokens: 3})},
  )
  const body = fc.record(
    {object: fc.constantFrom<unknown>('chat.completion', 'text_completion', 'error', 'chat.completion.chunk', 5), error: errorish, message: text, choices: fc.oneof(fc.array(choice, {maxLength: 3}), fc.constantFrom<unknown>(null, 'x', {})), usage},
    {requiredKeys: []},
  )
  // The Responses API: `output` items (TypeScript reads them; the native extractor leaves such a body), and its stream's events.
  const responsesPart = fc.oneof(text.map((t) => ({type: 'output_text', text: t})), text.map((t) => ({type: 'refusal', refusal: t})), fc.constantFrom<unknown>(5, {type: 'output_text'}))
  const responsesItem = fc.oneof(
    fc.record({type: fc.constantFrom('message', 'reasoning'), content: fc.oneof(fc.array(responsesPart, {maxLength: 3}), fc.constant<unknown>('c'))}, {requiredKeys: []}),
    fc.record({type: fc.constant('function_call'), arguments: fc.oneof(text, fc.constant<unknown>(1))}),
    fc.constantFrom<unknown>(null, 'i'),
  )
  const responsesBody = fc.record(
    {object: fc.constantFrom<unknown>('response', undefined), output: fc.oneof(fc.array(responsesItem, {maxLength: 3}), fc.constant<unknown>({})), error: fc.constantFrom<unknown>(null, undefined, {message: 'failed'}), choices: fc.constantFrom<unknown>(undefined, undefined, [], null), usage: fc.constant({input_tokens: 3, output_tokens: 4, input_tokens_details: {cached_tokens: 1}})},
    {requiredKeys: ['output']},
  )
  const responsesEvent = fc.oneof(
    fc.record({type: fc.constantFrom('response.output_text.delta', 'response.refusal.delta', 'response.function_call_arguments.delta', 'response.reasoning_text.delta', 'response.output_text.done'), output_index: index, content_index: index, delta: fc.oneof(text, fc.constant<unknown>(2))}, {requiredKeys: ['type']}),
    fc.record({type: fc.constantFrom('response.completed', 'response.failed', 'response.incomplete', 'response.created'), response: fc.oneof(responsesBody, fc.constant<unknown>(null))}),
  )
  // Anthropic's Messages API: content blocks, and its stream's events.
  const block = fc.oneof(text.map((t) => ({type: 'text', text: t})), text.map((t) => ({type: 'thinking', thinking: t})), fc.constantFrom<unknown>({type: 'tool_use', input: {q: 'CANARY-aaaa1111aaaa1111aaaa'}}, {type: 'text', text: 3}, null))
  const messagesBody = fc.record({type: fc.constantFrom<unknown>('message', 'error', 7), content: fc.oneof(fc.array(block, {maxLength: 3}), fc.constant<unknown>('c')), error: fc.constantFrom<unknown>(undefined, {message: 'Overloaded'}), usage: fc.constant({input_tokens: 5, cache_read_input_tokens: 2, output_tokens: 1})}, {requiredKeys: ['type']})
  const messagesEvent = fc.oneof(
    fc.record({type: fc.constant('content_block_delta'), index, delta: fc.oneof(text.map((t) => ({type: 'text_delta', text: t})), text.map((t) => ({type: 'input_json_delta', partial_json: t})), fc.constant<unknown>({type: 'other'}))}),
    fc.record({type: fc.constantFrom('content_block_start', 'message_start', 'message_delta', 'ping', 'message_stop'), index, content_block: block, message: fc.constant({usage: {input_tokens: 9}}), usage: fc.constant({output_tokens: 4})}, {requiredKeys: ['type']}),
  )
  const sseLine = fc.oneof(
    body.map((b) => `data: ${JSON.stringify(b)}`),
    responsesEvent.map((e) => `data: ${JSON.stringify(e)}`),
    messagesEvent.map((e) => `data: ${JSON.stringify(e)}`),
    body.map((b) => `data:${JSON.stringify(b)}`),
    fc.constantFrom('data: [DONE]', 'data:  [DONE] ', 'event: error', 'event:error ', ': keep-alive', '', 'id: 7', 'data: {"choices":[{"delta":{"content":"wra', 'pped"}}]}', 'data: 42', 'data: "s"', 'data: {bad json}', 'data: {"choices":[{"index":12345678901234567891,"text":"big"}]}'),
  )
  const sse = fc.tuple(fc.array(sseLine, {minLength: 1, maxLength: 6}), fc.constantFrom('\n', '\r\n', '\n\n'), fc.constantFrom('', ' ', '\n', '\r')).map(([ls, sep, lead]) => lead + ls.join(sep))
  const response = fc.oneof(
    text,
    body,
    body.map((b) => JSON.stringify(b)),
    responsesBody,
    responsesBody.map((b) => JSON.stringify(b)),
    messagesBody,
    messagesBody.map((b) => JSON.stringify(b)),
    body.map((b) => ` ${JSON.stringify(b)}`),
    sse,
    // A stream logged as a list: of chunks and events, of raw SSE lines, or as that list's JSON text.
    fc.array(fc.oneof(body, responsesEvent, messagesEvent, sseLine), {maxLength: 4}),
    fc.array(fc.oneof(body, messagesEvent, sseLine), {maxLength: 4}).map((a) => JSON.stringify(a)),
    fc.array(body, {maxLength: 3}).map((a) => ` ${JSON.stringify(a)}`),
    // A stream whose line breaks were lost.
    fc.array(sseLine, {minLength: 1, maxLength: 4}).map((ls) => ls.join('')),
    fc.constantFrom<unknown>(null, 42, true, [1, 'CANARY-aaaa1111aaaa1111aaaa'], '{"choices":[{"text":"\\ud800"}]}', '{"choices":[{"text":"a\tb"}]}', '{"choices":[{"text":1e400}]}', '{"error":12345678901234567891}'),
  )
  // Request messages holding what the caller handed the model beside content parts: Messages API
  // tool results, documents and earlier tool calls, Responses API function calls and their outputs
  // (TypeScript reads them; the native extractor leaves such a request, and its line, to it).
  const requestBlock = fc.oneof(
    text.map((t) => ({type: 'text', text: t})),
    fc.record({type: fc.constant('tool_result'), content: fc.oneof(text, fc.array(text.map((t) => ({type: 'text', text: t})), {maxLength: 2}))}),
    text.map((t) => ({type: 'document', source: {type: 'text', data: t}})),
    fc.constantFrom<unknown>({type: 'tool_use', input: {q: 'CANARY-aaaa1111aaaa1111aaaa'}}, {type: 'document', source: {type: 'content', content: [{type: 'text', text: 'CANARY-aaaa1111aaaa1111aaaa'}]}}, {type: 'tool_result'}),
    // History replayed and server tools' results: thinking, refusal parts, MCP and search results.
    fc.record({type: fc.constantFrom('thinking', 'refusal', 'redacted_thinking'), thinking: text, refusal: text, text}, {requiredKeys: ['type']}),
    fc.record({type: fc.constantFrom('mcp_tool_result', 'search_result', 'code_execution_tool_result'), content: fc.oneof(text, fc.array(text.map((t) => ({type: 'text', text: t})), {maxLength: 2}), text.map((t) => ({stdout: t})))}),
  )
  const requestItem = fc.oneof(
    fc.record({role: fc.constant('user'), content: fc.array(requestBlock, {maxLength: 3})}),
    fc.record({type: fc.constant('function_call_output'), output: fc.oneof(text, fc.array(text.map((t) => ({type: 'input_text', text: t})), {maxLength: 2}), fc.constant<unknown>(3))}),
    fc.record({type: fc.constant('function_call'), arguments: fc.oneof(text, fc.constant<unknown>(1))}),
    // Responses API items a caller replays or answers with (their text beside content), a chat refusal.
    fc.record({type: fc.constantFrom('reasoning', 'mcp_call', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call_output', 'message', 'item_reference'), summary: fc.array(text.map((t) => ({type: 'summary_text', text: t})), {maxLength: 2}), output: text, input: text, content: text}, {requiredKeys: ['type']}),
    fc.record({role: fc.constant('assistant'), content: fc.oneof(text, fc.constant<unknown>(null)), refusal: fc.oneof(text, fc.constant<unknown>(null))}, {requiredKeys: ['refusal']}),
  )
  const request = fc.oneof(
    text,
    fc.record({messages: fc.array(fc.oneof(message, requestItem), {maxLength: 3}), input: fc.array(fc.oneof(message, requestItem), {maxLength: 2}), prediction: fc.oneof(fc.record({type: fc.constant('content'), content: fc.oneof(text, fc.array(text.map((t) => ({type: 'text', text: t})), {maxLength: 2}))}), fc.constant<unknown>(null), text)}, {requiredKeys: []}),
    fc.record({system: fc.oneof(text, fc.constant<unknown>(1), fc.array(text.map((t) => ({type: 'text', text: t})), {maxLength: 2})), instructions: fc.oneof(text, fc.constant<unknown>(1)), messages: fc.oneof(fc.array(fc.oneof(message, text, fc.constant<unknown>(9)), {maxLength: 3}), fc.constant<unknown>('m')), prompt: fc.oneof(text, fc.array(fc.oneof(text, fc.constant<unknown>(1)), {maxLength: 3}), fc.constant<unknown>(null)), input: fc.oneof(text, fc.array(message, {maxLength: 2}), fc.constant<unknown>(2)), text, stream: fc.boolean()}, {requiredKeys: []}),
    fc.array(fc.oneof(message, text), {maxLength: 3}),
    fc.constantFrom<unknown>(null, 5, -0, 1.5, true, false, '  {"messages":[{"content":"x"}]}', '[{"content":""}]', '{"messages":[{"content":"\\ud800"}]}', '{bad', '[]', '{}', {seed: 12345678901234567891n}),
  )
  const isoTs = fc
    .record({
      y: fc.integer({min: 0, max: 9999}), mo: fc.integer({min: 0, max: 13}), d: fc.integer({min: 0, max: 32}), h: fc.integer({min: 0, max: 24}), mi: fc.integer({min: 0, max: 60}), s: fc.option(fc.integer({min: 0, max: 61})),
      frac: fc.option(fc.stringMatching(/^[0-9]{1,11}$/)), sep: fc.constantFrom('T', ' ', 't'), fsep: fc.constantFrom('.', ','), ws: fc.constantFrom('', '', ' ', '\u00a0', '\t'),
      zone: fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+0530', '+05', '+24:00', '-00:60', '+5', '', 'UTC', 'utc', '+01:00[Europe/Paris]', 'Z[!u-ca=iso8601][Europe/Paris]', 'z[Etc/GMT+1]', '+0100[]', '[Europe/Paris]', '-05:30[!]', 'Z[a]b', 'UTC[Europe/Paris]'), pad: fc.constantFrom('', ' ', '\ufeff'),
    })
    .map((t) => {
      const p = (n: number, w = 2) => String(n).padStart(w, '0')
      const sec = t.s === null ? '' : `:${p(t.s)}${t.frac === null ? '' : t.fsep + t.frac}`
      return `${t.pad}${p(t.y, 4)}-${p(t.mo)}-${p(t.d)}${t.sep}${p(t.h)}:${p(t.mi)}${sec}${t.ws}${t.zone}${t.pad}`
    })
  const goodTs = fc
    .record({ms: fc.integer({min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1)}), form: fc.nat({max: 3})})
    .map(({ms, form}) => {
      const iso = new Date(ms).toISOString()
      return form === 0 ? iso : form === 1 ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}456+00:00` : form === 2 ? `${iso.slice(0, 19)}+02:00` : ms
    })
  const ts = fc.oneof(
    {weight: 6, arbitrary: goodTs},
    {weight: 3, arbitrary: isoTs},
    {weight: 1, arbitrary: fc.constantFrom<unknown>(1793318401086, 1793318401086.5, 946684800000, 946684799999, 8.64e15, 8.64e15 + 1, 1e12, '1793318401086', '', null, true, -1, 0,
      // The 2000-2100 window's edges, microseconds read as milliseconds, an unset clock.
      4102444799999, 4102444800000, 1774747800000000, '1774747800000000', '1970-01-01T00:00:00Z', '2099-12-31T23:59:59.999Z', '2100-01-01T00:00:00Z', '2099-12-31T23:30:00-01:00')},
  )
  const id = fc.oneof(
    {weight: 12, arbitrary: fc.constantFrom('r1', 'r2', 'r3', 'ü-4', '\ud83d\ude00', 'req 5')},
    {weight: 1, arbitrary: fc.constantFrom<unknown>('', ' ', '\u00a0', '\ufeff', '\u2028', 5, -0, 1.5, 2 ** 53 + 2, null, true, ['r'], {r: 1})},
  )
  const count = fc.oneof(
    {weight: 8, arbitrary: fc.constantFrom<unknown>(undefined, null, 200, 404, '200', 12, 0, 1e2, -0)},
    {weight: 1, arbitrary: fc.constantFrom<unknown>(99, 1000, -1, '0200', '', '1234567890123456', 200.5, 2 ** 53, 2 ** 53 - 1, true, [], {}, 12345678901234567891n)},
  )
  const record = fc.record(
    {ts, request_id: id, tenant_id: id, session_id: id, status: count, prompt_tokens: count, completion_tokens: count, request, response, extra: fc.constantFrom<unknown>('g', 12345678901234567891n, 1e400, [[[]]], '\u0001')},
    {requiredKeys: ['ts', 'request_id', 'tenant_id', 'session_id', 'response']},
  )

  /** JSON text of a record: bigint as its digits, 1e400 as the literal, and a few hand-made forms. */
  function serialise(r: Record<string, unknown>, form: number): string {
    let json = JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? `@big${v}@` : v === Infinity ? '@inf@' : v))
    json = json.replace(/"@big(\d+)@"/g, '$1').replace(/"@inf@"/g, '1e400')
    if (form === 1) json = json.replace(/C/g, '\\u0043') // escapes where markers are
    if (form === 2) json = json.replace('{', '{"request_id":"dup", ') // a field given twice: a bad line
    if (form === 3) json = json.replace(/,/g, ' ,\t') // white space between tokens
    if (form === 4) json = ` ${json}`
    if (form === 5) json = json.replace('"ts"', '"\\u0074s"') // an escaped key
    if (form === 6) json = json.replace(/":/g, '" : ') // white space around colons
    return json
  }

  const mutation = fc.record({at: fc.nat(), del: fc.nat({max: 3}), ins: fc.constantFrom('', '\u0001', '\t', '"', '\\', '{', '}', ',', '0', 'é', '\u2028', '\ud800', 'CANARY-0123456789abcdef', '\\u00', '\\x', '\\u12g4', '\\\\', '\\"', '\\u0022')})
  const line = fc.oneof(
    {weight: 6, arbitrary: fc.tuple(record, fc.nat({max: 8})).map(([r, form]) => serialise(r, form))},
    {
      weight: 2,
      arbitrary: fc.tuple(record, fc.array(mutation, {minLength: 1, maxLength: 3})).map(([r, ms]) => {
        let s = serialise(r, 0)
        for (const m of ms) {
          const at = m.at % (s.length + 1)
          s = s.slice(0, at) + m.ins + s.slice(at + m.del)
        }
        return s
      }),
    },
    {weight: 1, arbitrary: fc.constantFrom('', '   ', '\t', '\v\f', 'not json', '[1,2]', '"s"', 'null', '\xff\xfe', '{"ts":')},
  )
  const unit = fc.record({lines: fc.array(line, {minLength: 1, maxLength: 12}), bom: fc.boolean(), crlf: fc.boolean(), trailing: fc.boolean(), max: fc.constantFrom(1 << 20, 300)})

  function bytesOf(u: {lines: string[]; bom: boolean; crlf: boolean; trailing: boolean}): Uint8Array {
    const lines = u.lines.map((l) => (l === '\xff\xfe' ? Buffer.from([0xff, 0xfe]) : Buffer.from(l)))
    const end = Buffer.from(u.crlf ? '\r\n' : '\n')
    const parts = lines.flatMap((l, i) => (i === 0 ? [l] : [end, l]))
    return new Uint8Array(Buffer.concat([u.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts, u.trailing ? end : Buffer.alloc(0)]))
  }

  // Thousands of generated lines through both extractors: its time is not what it checks (alone 50 s on
  // a 2-core machine, beside other test files close to the default 60 s).
  it('gives the same quick result and the same ingest result on random, hostile and mutated lines', () => {
    let claimed = 0
    let ingestRead = 0
    let ingestLeft = 0
    fc.assert(
      fc.property(unit, (u) => {
        const bytes = bytesOf(u)
        same(taskOf(bytes, u.max), set)
        const c = claims(bytes, set, u.max)
        claimed += c.record
        const i = ingestClaims(bytes, u.max)
        ingestRead += i.record
        ingestLeft += i.left
      }),
      {seed: 4_271_981, numRuns: 3000},
    )
    // The generators reach both sides: many lines claimed, the rest left to TypeScript. (Requests
    // holding tool results or documents, lines giving a field twice, and bodies holding a member
    // the native extractor does not read, such as a `message` beside the choices or a choice's
    // `text` beside its message or delta, are left to TypeScript by the quick extractor: 165 of
    // this seed's lines are claimed, and ingest's decoder reads 491.)
    expect(claimed).toBeGreaterThan(120)
    expect(ingestRead).toBeGreaterThan(400)
    expect(ingestLeft).toBeGreaterThan(500)
  }, 240_000)

  // A streamed response is one long JSON string, escape-dense; the native walk finds where it
  // ends 64 bytes at a time (native/src/scan.rs). Every escape JSON has, and some it has not,
  // at every offset against those blocks: the same answer as TypeScript's, or the same refusal.
  it('finds where a string ends and refuses a bad escape as JSON.parse does, wherever it falls against 64-byte blocks', () => {
    const piece = fc.constantFrom('"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0001', '\u2028', '\ud800', 'é', 'a', 'ab', 'CANARY-0123456789abcdef', 'data: ', ' ', '\\"')
    const bad = fc.constantFrom('\\x', '\\u12g4', '\\u12', '\\', '\\\\\\', '\\"', '\\\\"', '\\ ', '\\U0041', '"')
    const stringLine = fc.record({
      pad: fc.nat({max: 70}),
      field: fc.constantFrom('response', 'extra', 'request_id'),
      parts: fc.array(piece, {maxLength: 90}),
      stream: fc.boolean(),
      breakAt: fc.option(fc.tuple(fc.nat(), bad), {nil: undefined, freq: 2}),
    }).map(({pad, field, parts, stream, breakAt}) => {
      const value = (stream ? 'data: ' : '') + parts.join('')
      const record: Record<string, unknown> = {ts: '2026-10-30T00:00:01.000Z', request_id: 'r1', tenant_id: 't', session_id: 's', pad: 'p'.repeat(pad), response: 'ok'}
      record[field] = field === 'response' && stream ? `${value}\n\ndata: ${JSON.stringify({choices: [{delta: {content: value}}]})}` : value
      let json = JSON.stringify(record)
      if (breakAt !== undefined) {
        const at = breakAt[0] % (json.length + 1)
        json = json.slice(0, at) + breakAt[1] + json.slice(at)
      }
      return {json, broken: breakAt !== undefined}
    })
    // A line the walk refuses goes to serde_json, which would give the same answer: so the walk
    // is also held to refusing no line serde_json reads, where nothing was put into the lines
    // (an insertion may escape a key, which the walk leaves to serde_json).
    let claimed = 0
    let whole = 0
    fc.assert(
      fc.property(fc.array(stringLine, {minLength: 1, maxLength: 8}), (lines) => {
        const bytes = new TextEncoder().encode(lines.map((l) => l.json).join('\n'))
        same(taskOf(bytes), set)
        claimed += claims(bytes, set).record
        for (const l of lines.filter((l) => !l.broken)) {
          const missedBefore = walkMissed()
          claims(new TextEncoder().encode(l.json), set)
          expect(walkMissed() - missedBefore, l.json).toBe(0)
          whole++
        }
      }),
      {seed: 90_210, numRuns: 1500},
    )
    expect(claimed).toBeGreaterThan(600)
    expect(whole).toBeGreaterThan(2000)
  })

  // ---------------------------------------------------------------- marked records

  // Markers that overlap: two end where one ends (the longer is reported first), one inside another.
  // Some nest (ZEBRA-TOKEN-C1 in ZEBRA-TOKEN-C17), some are a CANARY-<hex> head and a suffix, one
  // is hex that falls inside CANARY- runs: a match inside a longer one is no hit of its own.
  const OVERLAPPING = ['AB-12', 'B-12', 'B-1', 'XAB-123', 'ZEBRA-TOKEN-C1', 'ZEBRA-TOKEN-C17', 'CANARY-0123456789abcdef-s42', 'CANARY-0123456789abcdef-s4', 'abcdef0123']
  const fragment = fc.oneof(
    fc.constantFrom('CANARY-', 'CANARY-CANARY-', 'canary-', 'CANARY', ' ', '-', 'x', '\n', '"', '\\', 'AB-12', 'XAB-123', 'B-1', 'ZEBRA-TOKEN-C1', 'ZEBRA-TOKEN-C17', 'CANARY-0123456789abcdef', '-s42', 'abcdef0123', 'é'),
    fc.stringMatching(/^[0-9a-fA-F]{0,20}$/),
    fc.string({unit: 'binary-ascii', maxLength: 4}),
  )
  /**
   * Those and marker look-alikes (markers.ts): a line break after the hyphen or inside the hex
   * (ASCII: claimed natively), a hyphen look-alike, an invisible character, full-width forms
   * (left to TypeScript).
   */
  const lookalikeFragment = fc.oneof(
    {arbitrary: fragment, weight: 6},
    {arbitrary: fc.constantFrom('CANARY-\n', 'CANARY-\r\n', '\r\n', 'CANARY-\n\n'), weight: 2},
    {arbitrary: fc.constantFrom('CANARY\u2011', '\u200b', '\u00ad', '\uff23\uff21\uff2e\uff21\uff32\uff39\uff0d', 'C\uff21NARY', '\uff41\uff11'), weight: 1},
    // A break inside the hex, indented (claimed natively), and the hyphen, a digit or an invisible
    // character written as a JSON escape, an HTML reference or percent-encoded (left to TypeScript).
    {arbitrary: fc.constantFrom('\n  ', '\r\n\t', 'CANARY-0123456789\n', 'CANARY-0123456789abcdef\n'), weight: 1},
    {
      arbitrary: fc.constantFrom(
        'CANARY\\u2011', 'CANARY\\u002d', '\\u0061', '\\u200b', '\\u00', 'CANARY&#45;', 'CANARY&#x2011;', '&#x61;', '&#8209', 'CANARY&hyphen;', 'CANARY&dash;', '&shy;', '&',
        'CANARY%2D', 'CANARY%e2%80%91', '%2d', '%E2%80%8B',
      ),
      weight: 1,
    },
  )
  const textOf = (piece: fc.Arbitrary<string>) => fc.array(piece, {minLength: 1, maxLength: 10}).map((parts) => parts.join(''))
  /**
   * A prompt of pieces of the response (so that echoes, whole or partial, are common), each in
   * some letter case, or with its markers' `CANARY-` taken out (their hex alone: no echo).
   */
  const promptOf = (response: string, filler = fragment) =>
    fc.array(fc.tuple(fc.nat(), fc.nat({max: 40}), fc.constantFrom('same', 'lower', 'upper', 'bare'), filler), {maxLength: 4}).map((cuts) =>
      cuts
        .map(([at, len, letterCase, filler]) => {
          const piece = response.slice(at % (response.length + 1), (at % (response.length + 1)) + len)
          return filler + (letterCase === 'lower' ? piece.toLowerCase() : letterCase === 'upper' ? piece.toUpperCase() : letterCase === 'bare' ? piece.replaceAll('CANARY-', ' ') : piece)
        })
        .join(''),
    )
  /** The response as a plain string, a chat completion, or a stream whose chunks cut it anywhere. */
  const responseBody = (text: string) =>
    fc.oneof(
      fc.constant<unknown>(text),
      fc.constant<unknown>(JSON.stringify({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})),
      fc.array(fc.nat(), {maxLength: 3}).map((cuts) => {
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
        const pieces = [0, ...at].map((from, i) => text.slice(from, at[i] ?? text.length))
        return `${pieces.map((p) => `data: ${JSON.stringify({choices: [{index: 0, delta: {content: p}}]})}\n\n`).join('')}data: [DONE]\n\n`
      }),
    )
  const lineOf = (piece: fc.Arbitrary<string>) => textOf(piece).chain((response) =>
    fc.record({request: promptOf(response, piece).chain((p) => fc.constantFrom<unknown>(p, {messages: [{role: 'user', content: p}]}, null)), response: responseBody(response)}),
  )
  const markedLine = lineOf(fragment)

  it('claims marked records with ASCII texts, giving the TypeScript extractor\'s tokens, hits and echo facts', () => {
    const overlapping = new UnconventionalSet(OVERLAPPING)
    let marked = 0
    let left = 0
    fc.assert(
      fc.property(fc.array(markedLine, {minLength: 1, maxLength: 8}), (records) => {
        const lines = records.map((r, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', ...r}))
        const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
        const native = same(taskOf(bytes), overlapping)
        const out = nativeQuickExtractor(overlapping)!.lines(bytes, 'gw-test', 1 << 20)
        marked += out.marked?.length ?? 0
        left += out.kinds.filter((k) => k === NATIVE_LEFT).length
      }),
      {seed: 90_210, numRuns: 2000},
    )
    // Both sides are reached: most marked records claimed, the non-ASCII ones left.
    expect(marked).toBeGreaterThan(2000)
    expect(left).toBeGreaterThan(100)
  })

  it('reads LiteLLM\'s placeholder for an unlogged text as no text, as TypeScript does, and leaves its lines to TypeScript', () => {
    const placeholder = 'redacted-by-litellm'
    const records: Array<[string, unknown, unknown]> = [
      ['plain', {messages: [{role: 'user', content: placeholder}]}, placeholder],
      ['chat', `${placeholder}\n${placeholder}`, {choices: [{message: {role: 'assistant', content: placeholder}}]}],
      ['stream', 'hi', `data: {"choices":[{"delta":{"content":"${placeholder}"}}]}\n\ndata: [DONE]\n\n`],
      ['escaped', 'hi', placeholder],
      ['mentioned', `what is ${placeholder}?`, `${placeholder} and CANARY-0123456789abcdef`],
      ['control', 'hi', 'see CANARY-0123456789abcdef'],
    ]
    const lines = records.map(([request_id, request, response]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', request, response}))
    lines[3] = lines[3]!.replace(`"response":"${placeholder}`, '"response":"r\\u0065dacted-by-litellm')
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    // The five that hold it, plainly or escaped, are left; the control is claimed.
    expect(claims(bytes, set)).toEqual({left: 5, blank: 0, record: 1})
    const quick = same(taskOf(bytes), set)
    const noRequest = [...quick.flags].map((f) => (f & NO_REQUEST_TEXT) !== 0)
    const noResponse = [...quick.flags].map((f) => (f & NO_RESPONSE_TEXT) !== 0)
    expect(noRequest).toEqual([true, true, false, false, false, false])
    expect(noResponse).toEqual([true, true, true, true, false, false])
    // Ingest reads them the same way, noting why.
    const ingest = runIngest(taskOf(bytes), true, set)
    const items = ingest.items.filter((i) => i.k === 'r')
    expect(items.map((i) => i.noResponseText)).toEqual(noResponse)
    expect(ingest.notes).toMatchObject({'request text redacted at the source (redacted-by-litellm): no text': 2, 'response text redacted at the source (redacted-by-litellm): no text': 4})
    // A text that only mentions it is a text, its marker found.
    expect(quick.marked.map((m) => m.request_id)).toEqual(['mentioned', 'control'])
  })

  it('reads the other placeholders (OpenInference\'s, a Langfuse SDK\'s) as no text too, as TypeScript does, and leaves their lines to TypeScript', () => {
    const oi = '__REDACTED__'
    const lf = '<fully masked due to failed mask function>'
    const records: Array<[string, unknown, unknown]> = [
      ['oi', {messages: [{role: 'user', content: oi}]}, {choices: [{message: {role: 'assistant', content: oi}}]}],
      ['langfuse', lf, lf],
      ['oi-escaped', 'hi', oi],
      ['lf-escaped', 'hi', lf],
      ['parts', 'hi', {choices: [{message: {role: 'assistant', content: [{type: 'text', text: oi}, {type: 'text', text: oi}]}}]}],
      ['mentioned', 'hi', `${oi} CANARY-0123456789abcdef`],
      ['control', 'hi', 'see CANARY-0123456789abcdef'],
    ]
    const lines = records.map(([request_id, request, response]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', request, response}))
    // Escaped as some JSON writers do (Go's encoding/json writes < as \u003c).
    lines[2] = lines[2]!.replace(`"response":"${oi}`, '"response":"\\u005f_REDACTED__')
    lines[3] = lines[3]!.replace(`"response":"<fully`, '"response":"\\u003cfully')
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: 6, blank: 0, record: 1})
    const quick = same(taskOf(bytes), set)
    const noRequest = [...quick.flags].map((f) => (f & NO_REQUEST_TEXT) !== 0)
    const noResponse = [...quick.flags].map((f) => (f & NO_RESPONSE_TEXT) !== 0)
    expect(noRequest).toEqual([true, true, false, false, false, false, false])
    expect(noResponse).toEqual([true, true, true, true, true, false, false])
    const ingest = runIngest(taskOf(bytes), true, set)
    expect(ingest.items.filter((i) => i.k === 'r').map((i) => i.noResponseText)).toEqual(noResponse)
    expect(ingest.notes).toMatchObject({
      'request text redacted at the source (OpenInference __REDACTED__): no text': 1,
      'response text redacted at the source (OpenInference __REDACTED__): no text': 3,
      [`request text masked at the source (Langfuse ${lf}): no text`]: 1,
      [`response text masked at the source (Langfuse ${lf}): no text`]: 2,
    })
    expect(quick.marked.map((m) => m.request_id)).toEqual(['mentioned', 'control'])
  })

  it('leaves to TypeScript a marked record whose texts are not ASCII', () => {
    const marked = 'see CANARY-0123456789abcdef'
    const records: Array<[string, {request?: string; response: string}]> = [
      ['a', {request: 'pasted CANARY-0123456789', response: marked}],
      ['b', {request: 'é', response: marked}],
      ['c', {response: `é ${marked}`}],
      ['d', {response: 'CANARY-012 is too short'}],
    ]
    const lines = records.map(([request_id, texts]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...texts}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: 2, blank: 0, record: 2})
    const out = nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20)
    expect(out.marked).toEqual([
      {at: 0, requestId: 'a', tenantId: 't', sessionId: 's', tokens: ['CANARY-0123456789abcdef'], tokenPositions: [4], hits: [], hitPositions: [], tokenEcho: [10], tokenWhole: [10], hitEcho: []},
    ])
    same(taskOf(bytes), set)
  })

  it('leaves to TypeScript, which makes it a bad line naming the field, an id holding a lone surrogate; claims a surrogate pair and a lone surrogate in a text', () => {
    // QA reports A and B: "tn-\ud800" and "tn-\udc00" are two tenants that UTF-8 cannot
    // write, stored as one. serde_json refuses a lone surrogate in a string it reads (the ids),
    // so the quick extractor leaves the line; ingest's decoder keeps the ids' JSON text for
    // TypeScript to read, which refuses the line.
    const line = (request_id: string, tenant_id: string, session_id: string, answer = 'see CANARY-0123456789abcdef') =>
      JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id, session_id, request: 'hi', response: answer})
    const lines = [
      line('a', 'tn-\ud800', 's'),
      line('b', 'tn-\udc00', 's'),
      line('c', 't', 'sess-\udbff'),
      line('r\udfff', 't', 's'),
      line('d', 'tn-\ud83d\ude00', 's'),
      line('e', 't', 's', 'text \ud800 here'),
    ]
    expect(lines[0]).toContain('"tn-\\ud800"')
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: 5, blank: 0, record: 1})
    const quick = same(taskOf(bytes), set)
    expect(quick.bad).toBe(4)
    // Ingest's decoder claims lines whose ids it keeps as JSON text (ingestClaims): TypeScript reads them and refuses these.
    expect(ingestClaims(bytes).record).toBeGreaterThan(2)
    const bad = runIngest(taskOf(bytes), true, set).items.flatMap((i) => (i.k === 'b' ? [[i.lineNo, i.reason]] : []))
    expect(bad).toEqual([
      [1, 'tenant_id holds a lone surrogate (\\ud800): not Unicode text'],
      [2, 'tenant_id holds a lone surrogate (\\udc00): not Unicode text'],
      [3, 'session_id holds a lone surrogate (\\udbff): not Unicode text'],
      [4, 'request_id holds a lone surrogate (\\udfff): not Unicode text'],
    ])
  })

  it('leaves to TypeScript, which makes it a bad line naming the field, a prefill_node or decode_node holding a lone surrogate', () => {
    // Two such nodes ("node-\ud800", "node-\udc00") would be stored as one and merged in the
    // per-node table: TypeScript refuses the line; the quick extractor, which skipped the nodes,
    // reads them now, and serde_json's refusal leaves the line to TypeScript.
    const line = (request_id: string, nodes: Record<string, string>) =>
      JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...nodes, request: 'hi', response: 'see CANARY-0123456789abcdef'})
    const lines = [
      line('a', {prefill_node: 'node-\ud800'}),
      line('b', {decode_node: 'node-\udc00'}),
      line('c', {prefill_node: 'node-1', decode_node: 'node-\udbff'}),
      line('d', {prefill_node: 'node-\ud83d\ude00', decode_node: 'node-2'}),
    ]
    expect(lines[0]).toContain('"node-\\ud800"')
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: 3, blank: 0, record: 1})
    const quick = same(taskOf(bytes), set)
    expect(quick.bad).toBe(3)
    const bad = runIngest(taskOf(bytes), true, set).items.flatMap((i) => (i.k === 'b' ? [[i.lineNo, i.reason]] : []))
    expect(bad).toEqual([
      [1, 'prefill_node holds a lone surrogate (\\ud800): not Unicode text'],
      [2, 'decode_node holds a lone surrogate (\\udc00): not Unicode text'],
      [3, 'decode_node holds a lone surrogate (\\udbff): not Unicode text'],
    ])
  })

  it('leaves to TypeScript a chat answer holding a member it does not read (read by TypeScript or named unread there), and claims one of known members only', () => {
    const m = 'CANARY-0123456789abcdef'
    const chunk = (delta: unknown, choice: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{index: 0, delta, ...choice}], ...top})}\n\n`
    const chat = (message: Record<string, unknown>, choice: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({id: 'c', object: 'chat.completion', created: 1, model: 'x', choices: [{index: 0, finish_reason: 'stop', message: {role: 'assistant', ...message}, ...choice}], ...top})
    const left: unknown[] = [
      chat({content: 'a', tool_calls: [{id: 'c1', type: 'custom', custom: {name: 'f', input: m}}]}),
      chat({content: 'a', reasoning_details: [{type: 'reasoning.text', text: m}]}),
      chat({content: 'a', context: {citations: [{content: m}]}}),
      chat({content: 'a', executed_tools: [{output: m}]}),
      chat({content: 'a', x_future: m}),
      chat({content: 'a'}, {x_future: m}),
      chat({content: 'a'}, {}, {citations: [m]}),
      chat({content: 'a', tool_calls: [{id: 'c1', type: 'function', function: {name: 'f', arguments: '{}', x_future: m}}]}),
      {error: {code: 400, message: 'bad', status: 'INVALID_ARGUMENT', details: [{description: m}]}},
      {object: 'error', message: 'bad', type: 't', param: null, code: 400, hint: m},
      chunk({content: 'a'}) + `data: ${JSON.stringify({candidates: [{content: {parts: [{text: m}]}}]})}\n\n`,
      chunk({content: 'a'}) + `data: ${JSON.stringify({choices: [{index: 0, message: {content: m}}]})}\n\n`,
      chunk({content: 'a', reasoning_details: [{type: 'reasoning.text', text: m}]}),
      chunk({content: 'a'}, {x_future: m}),
      chunk({content: 'a'}, {text: m}),
      chunk({content: 'a'}, {}, {x_future: m}),
      `data: ${JSON.stringify({index: 1, token: {id: 1, text: m}, generated_text: null})}\n\n`,
    ]
    const claimed: unknown[] = [
      // Members known to carry no text: claimed as before.
      chat({content: `a ${m}`, refusal: null, annotations: []}, {logprobs: null, stop_reason: null}, {system_fingerprint: 'fp', service_tier: 'default', usage: {prompt_tokens: 1, completion_tokens: 1}}),
      chat({content: 'a', tool_calls: [{id: 'c1', type: 'function', function: {name: 'f', arguments: `{"q":"${m}"}`}}]}, {}, {prompt_filter_results: [], provider: 'p'}),
      {error: {message: `bad ${m}`, type: 'invalid_request_error', param: 'input_tokens', code: 400}},
      {object: 'error', message: `bad ${m}`, param: null, code: 400},
      // An error body's `type` names the error's kind (vLLM's and SGLang's flat body, Anthropic's): read as an error, not as a Messages API answer.
      {object: 'error', message: `bad ${m}`, type: 'BadRequestError', param: null, code: 400},
      {type: 'error', error: {type: 'overloaded_error', message: `bad ${m}`}},
      chunk({role: 'assistant', content: 'a'}, {finish_reason: null, logprobs: null}, {usage: null, obfuscation: 'x'}) + chunk({content: m}) + 'data: [DONE]\n\n',
      chat({content: `a ${m}`, images: [{type: 'image_url', image_url: {url: 'data:image/png;base64,iVBOR'}}]}),
      `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 0, model: '', choices: [], prompt_annotations: [{prompt_index: 0, content_filter_results: {hate: {filtered: false, severity: 'safe'}}}]})}\n\n` + chunk({content: m}),
    ]
    const lines = [...left, ...claimed].map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'hi', response}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: left.length, blank: 0, record: claimed.length})
    expect(ingestClaims(bytes)).toEqual({left: left.length, blank: 0, record: claimed.length})
    // Each left line is read by TypeScript: the same result either way, and the same ingest reading.
    same(taskOf(bytes), set)
    const {all, oneByOne} = bothIngestReadings(bytes)
    expect(oneByOne).toEqual(all)
  })

  it('leaves to TypeScript, which refuses it, a line that gives a key twice at any depth (in a body, a body logged as a string, a stream\'s event), however spelled; claims one whose repeated names are in different objects', () => {
    const base = '"ts":"2026-11-02T06:00:00Z","request_id":"r","tenant_id":"t","session_id":"s"'
    const marked = JSON.stringify({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'CANARY-0123456789abcdef'}}]})
    const chunk = JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: 'x'}}]})
    const twice = [
      `{${base},"response":${marked},"response":"clean"}`,
      // An escaped key: the walk leaves it to serde_json, which must refuse it too.
      `{${base},"respons\\u0065":${marked},"response":"clean"}`,
      `{"session_id":"other",${base},"response":"clean"}`,
      // Fields the verdict itself skips.
      `{${base},"model":"a","response":"clean","model":"b"}`,
      `{${base},"decode_node":"d1","decode_\\u006eode":"d2","response":"clean"}`,
      // Keys no reader takes, and keys below the top level: the first copy of a content, a message, the choices.
      `{${base},"gateway":"a","gateway":"b","response":"clean"}`,
      `{${base},"response":${marked.replace('"content":', '"content":"clean","content":')}}`,
      `{${base},"response":${marked.replace('"message":', '"message":{"content":"clean"},"message":')}}`,
      `{${base},"response":${marked.replace('"choices":', '"choices":[],"choices":')}}`,
      `{${base},"request":{"messages":[{"role":"user","content":"a","content":"b"}]},"response":"clean"}`,
      // JSON texts the decoders parse: a response and a request logged as strings, a stream's event.
      `{${base},"response":${JSON.stringify(marked.replace('"content":', '"content":"clean","content":'))}}`,
      `{${base},"request":${JSON.stringify('{"messages":[{"role":"user","content":"a","content":"b"}]}')},"response":"clean"}`,
      `{${base},"response":${JSON.stringify(`data: ${chunk}\n\ndata: ${chunk.replace('"content":', '"content":"y","content":')}\n\ndata: [DONE]\n\n`)}}`,
      // Objects no reader takes, at every depth the readers skip over, each read by serde_json as
      // the line is walked (value.rs Skip): a member of the line, a response's unread member and
      // its usage (kept as its text), a choice's, a request's tools, a stream event's usage.
      `{${base},"metadata":{"a":1,"b":{"c":[{"d":1,"d":2}]}},"response":"clean"}`,
      `{${base},"metadata":[{"a":1},{"a":1,"a":2}],"response":"clean"}`,
      `{${base},"response":${marked.replace('"choices":', '"system_fingerprint":{"x":1,"x":2},"choices":')}}`,
      `{${base},"response":${marked.replace('"choices":', '"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens":3},"choices":')}}`,
      `{${base},"response":${marked.replace('"index":0,', '"index":0,"logprobs":{"content":[{"t":"a","t":"b"}]},')}}`,
      `{${base},"response":${marked.replace('"choices":', '"output":[{"type":"message","type":"x"}],"choices":')}}`,
      `{${base},"request":{"messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{"name":"f","name":"g"}}]},"response":"clean"}`,
      `{${base},"request":{"messages":[{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}]},"response":"clean"}`,
      `{${base},"response":${JSON.stringify(`data: ${chunk}\n\ndata: ${chunk.replace('"choices":', '"usage":{"total_tokens":1,"total_tokens":2},"choices":')}\n\ndata: [DONE]\n\n`)}}`,
      // A key spelled with an escape below the top level is not compared natively: left too.
      `{${base},"response":${marked.replace('"content":', '"c\\u006fntent":"clean","content":')}}`,
    ]
    const once = [
      `{${base},"model":"m","request":{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]},"response":{"model":"m","choices":[]}}`,
      `{${base},"request":"\\"a\\":1,\\"a\\":2","response":${JSON.stringify(`data: ${chunk}\n\ndata: ${chunk}\n\ndata: [DONE]\n\n`)}}`,
      // The same names in sibling and nested objects the readers skip: no key given twice.
      `{${base},"metadata":[{"a":1,"b":{"a":2}},{"a":1}],"response":${marked.replace('"choices":', '"usage":{"prompt_tokens":1,"details":{"prompt_tokens":2}},"choices":')}}`,
    ]
    const bytes = new Uint8Array(Buffer.from([...twice, ...once].join('\n')))
    expect(claims(bytes, set)).toEqual({left: twice.length, blank: 0, record: once.length})
    expect(ingestClaims(bytes)).toEqual({left: twice.length, blank: 0, record: once.length})
    const quick = same(taskOf(bytes), set)
    expect(quick.bad).toBe(twice.length)
    expect(quick.firstBad).toEqual({line: 1, reason: expect.stringMatching(/^duplicate key "response"/)})
  })

  it('finds a key given twice in an object of any size: the first sixteen keys compared in place, the rest in a set (value.rs KeysSeen)', () => {
    const base = '"ts":"2026-11-02T06:00:00Z","request_id":"r","tenant_id":"t","session_id":"s"'
    // n distinct keys k0..k(n-1), and where asked, key i given again after key j (so at position j + 1).
    const members = (n: number, again?: [i: number, j: number]): string => {
      const keys = Array.from({length: n}, (_, k) => `"k${k}":${k}`)
      if (again) keys.splice(again[1] + 1, 0, `"k${again[0]}":0`)
      return keys.join(',')
    }
    const chunk = (m: string): string => JSON.stringify(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}],"usage":{${m}}}\n\ndata: [DONE]\n\n`)
    // Each object where the extractor compares its keys: the line's own, one it skips (metadata),
    // a response's usage (walked apart), and a stream event's.
    const at = (m: string): string[] => [
      `{${base},${m},"response":"clean"}`,
      `{${base},"metadata":{${m}},"response":"clean"}`,
      `{${base},"response":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"CANARY-0123456789abcdef"}}],"usage":{${m}}}}`,
      `{${base},"response":${chunk(m)}}`,
    ]
    // Around the sixteenth key: a repeat of the last key kept in place, of one past it, one met
    // when the set is made (the seventeenth key), and the keys of a large object.
    const repeats: [number, [number, number]][] = [[15, [0, 14]], [16, [15, 15]], [16, [0, 15]], [17, [16, 16]], [17, [15, 16]], [17, [0, 16]], [18, [16, 17]], [18, [17, 17]], [40, [3, 39]], [40, [20, 30]]]
    const twice = repeats.flatMap(([n, again]) => at(members(n, again)))
    const once = [15, 16, 17, 18, 40].flatMap((n) => at(members(n)))
    const bytes = new Uint8Array(Buffer.from([...twice, ...once].join('\n')))
    expect(claims(bytes, set)).toEqual({left: twice.length, blank: 0, record: once.length})
    const quick = same(taskOf(bytes), set)
    expect(quick.bad).toBe(twice.length)
    expect(quick.marked.length).toBe(5)
  })

  it('gives the TypeScript extractor\'s tokens and echo facts on random text with marker look-alikes, claiming the ASCII records', () => {
    const overlapping = new UnconventionalSet(OVERLAPPING)
    let marked = 0
    let wrapped = 0
    let left = 0
    fc.assert(
      fc.property(fc.array(lineOf(lookalikeFragment), {minLength: 1, maxLength: 8}), (records) => {
        const lines = records.map((r, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', ...r}))
        const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
        same(taskOf(bytes), overlapping)
        const out = nativeQuickExtractor(overlapping)!.lines(bytes, 'gw-test', 1 << 20)
        marked += out.marked?.length ?? 0
        // Claimed records whose line holds a marker wrapped after its hyphen (as JSON writes a break).
        wrapped += out.marked?.filter((m) => m.tokens.length > 0 && /CANARY-(\\r)?\\n/.test(lines[m.at]!)).length ?? 0
        left += out.kinds.filter((k) => k === NATIVE_LEFT).length
      }),
      {seed: 90_211, numRuns: 800},
    )
    expect(marked).toBeGreaterThan(200)
    expect(wrapped).toBeGreaterThan(20)
    expect(left).toBeGreaterThan(100)
  })

  it('reads marker look-alikes as TypeScript does: a line break after the hyphen natively, a look-alike hyphen, an invisible or a full-width character left to it (QA parts #2, #3, #5, #6)', () => {
    const hex = '0123456789abcdef0123'
    const records: Array<[string, {request?: string; response: string}]> = [
      ['wrapped', {response: `see CANARY-\n${hex}`}],
      ['wrapped CRLF', {response: `see CANARY-\r\n${hex} and CANARY-\n\n${hex}`}],
      ['wrapped echo', {request: `pasted CANARY-${hex.slice(0, 10)}\n${hex.slice(10)}`, response: `see CANARY-${hex}`}],
      ['wrapped echo CRLF', {request: `pasted CANARY-\r\n${hex.slice(0, 10)}\r\n${hex.slice(10)}`, response: `see CANARY-${hex}`}],
      ['word only', {request: 'hi', response: 'a CANARY in a coal mine'}],
      ['nb hyphen', {response: `see CANARY\u2011${hex}`}],
      ['zwsp', {response: `see CANARY-${hex.slice(0, 4)}\u200b${hex.slice(4)}`}],
      ['full-width', {response: `see \uff23\uff21\uff2e\uff21\uff32\uff39\uff0d${hex}`}],
      ['mixed width', {response: `see C\uff21NARY-${hex}`}],
      ['nb hyphen echo', {request: `pasted CANARY\u2011${hex}`, response: `see CANARY-${hex}`}],
    ]
    const lines = records.map(([request_id, texts]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...texts}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    // The ASCII ones are claimed; the others are left to TypeScript, never read as unmarked.
    expect(claims(bytes, set)).toEqual({left: 5, blank: 0, record: 5})
    const out = nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20)
    expect(out.marked!.map((m) => [m.requestId, m.tokens, m.tokenPositions, m.tokenEcho, m.tokenWhole])).toEqual([
      ['wrapped', [`CANARY-${hex}`], [4], [0], [0]],
      ['wrapped CRLF', [`CANARY-${hex}`], [4], [0], [0]],
      ['wrapped echo', [`CANARY-${hex}`], [4], [20], [20]],
      ['wrapped echo CRLF', [`CANARY-${hex}`], [4], [20], [20]],
    ])
    const quick = same(taskOf(bytes), set)
    expect(quick.marked.map((m) => [m.request_id, m.tokens.map((t) => t.token), m.token_echo])).toEqual([
      ['wrapped', [`CANARY-${hex}`], [0]],
      ['wrapped CRLF', [`CANARY-${hex}`], [0]],
      ['wrapped echo', [`CANARY-${hex}`], [20]],
      ['wrapped echo CRLF', [`CANARY-${hex}`], [20]],
      ['nb hyphen', [`CANARY-${hex}`], [0]],
      ['zwsp', [`CANARY-${hex}`], [0]],
      ['full-width', [`CANARY-${hex}`], [0]],
      ['mixed width', [`CANARY-${hex}`], [0]],
      ['nb hyphen echo', [`CANARY-${hex}`], [20]],
    ])
  })

  it('reads a marker wrapped inside its hex natively, and one written with escapes, references or percent-encoding as TypeScript does, left to it', () => {
    const hex = '0123456789abcdef0123'
    const records: Array<[string, {request?: string; response: string}]> = [
      ['hex wrapped', {response: `see CANARY-${hex.slice(0, 12)}\n${hex.slice(12)} ok`}],
      ['hex wrapped CRLF indented', {response: `see CANARY-${hex.slice(0, 6)}\r\n    ${hex.slice(6, 14)}\n\t${hex.slice(14)}`}],
      ['hex wrapped past 16', {response: `see CANARY-${hex.slice(0, 16)}\n${hex.slice(16)}`}],
      ['hex wrapped echo', {request: `pasted CANARY-${hex.slice(0, 10)}\n   ${hex.slice(10)}`, response: `see CANARY-${hex}`}],
      ['json escape', {response: `Here: {"code": "CANARY\\u2011${hex}"}`}],
      ['json escaped digit', {response: `CANARY-\\u0030${hex.slice(1)}`}],
      ['html decimal', {response: `<p>CANARY&#45;${hex}</p>`}],
      ['html named', {response: `CANARY&hyphen;${hex}`}],
      ['percent', {response: `https://x.test/?c=CANARY%E2%80%91${hex}`}],
      ['escape echo', {request: `pasted CANARY&#x2011;${hex}`, response: `see CANARY-${hex}`}],
    ]
    const lines = records.map(([request_id, texts]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...texts}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    // The wrapped ones are claimed; the encoded ones are left to TypeScript, never read as unmarked.
    expect(claims(bytes, set)).toEqual({left: 6, blank: 0, record: 4})
    const out = nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20)
    expect(out.marked!.map((m) => [m.requestId, m.tokens, m.tokenPositions, m.tokenEcho, m.tokenWhole])).toEqual([
      ['hex wrapped', [`CANARY-${hex}`], [4], [0], [0]],
      ['hex wrapped CRLF indented', [`CANARY-${hex}`], [4], [0], [0]],
      ['hex wrapped past 16', [`CANARY-${hex.slice(0, 16)}`], [4], [0], [0]],
      ['hex wrapped echo', [`CANARY-${hex}`], [4], [20], [20]],
    ])
    const quick = same(taskOf(bytes), set)
    expect(quick.marked.map((m) => [m.request_id, m.tokens.map((t) => t.token), m.token_echo])).toEqual([
      ['hex wrapped', [`CANARY-${hex}`], [0]],
      ['hex wrapped CRLF indented', [`CANARY-${hex}`], [0]],
      ['hex wrapped past 16', [`CANARY-${hex.slice(0, 16)}`], [0]],
      ['hex wrapped echo', [`CANARY-${hex}`], [20]],
      ['json escape', [`CANARY-${hex}`], [0]],
      ['json escaped digit', [`CANARY-${hex}`], [0]],
      ['html decimal', [`CANARY-${hex}`], [0]],
      ['html named', [`CANARY-${hex}`], [0]],
      ['percent', [`CANARY-${hex}`], [0]],
      ['escape echo', [`CANARY-${hex}`], [20]],
    ])
  })

  it('takes for an echo the marker the prompt holds, CANARY- and its hex, never its hex alone, as TypeScript does', () => {
    const marked = 'see CANARY-0123456789abcdef0123'
    const records: Array<[string, {request: string; response: string}]> = [
      ['bare', {request: 'my hash is 0123456789ABCDEF0123, also canary-0123456789abcdef0123 and CANARY 0123456789abcdef', response: marked}],
      ['marker', {request: 'CANARY-0123 and then I sent CANARY-0123456789ABCDEF01 here', response: marked}],
      ['exact', {request: 'ZEBRA-TOKEN-C1x', response: 'ZEBRA-TOKEN-C1'}],
      ['other case', {request: 'zebra-token-c1', response: 'ZEBRA-TOKEN-C1'}],
    ]
    const lines = records.map(([request_id, texts]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...texts}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const out = nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20)
    expect(out.marked!.map((m) => [m.requestId, m.tokenEcho, m.hitEcho])).toEqual([
      ['bare', [0], []],
      ['marker', [18], []],
      ['exact', [], [true]],
      ['other case', [], [false]],
    ])
    same(taskOf(bytes), set)
  })

  it('matches registered markers whole, in the response and in the prompt, as TypeScript does (QA registry #1, #3, #6)', () => {
    const nested = new UnconventionalSet(['ZEBRA-MARKER-7', 'ZEBRA-MARKER-71', 'abcdef0123', 'CANARY-0123456789abcdef-s42'])
    const records: Array<[string, {request: string; response: string}]> = [
      // The prompt's run goes on past the token's hex: not held whole.
      ['longer run', {request: 'ref CANARY-0123456789abcdef42', response: 'see CANARY-0123456789abcdef.'}],
      ['whole run', {request: 'ref CANARY-0123456789ABCDEF, CANARY-0123', response: 'see CANARY-0123456789abcdef.'}],
      // ZEBRA-MARKER-7 inside ZEBRA-MARKER-71 is no hit, in the response or the prompt.
      ['nested', {request: 'ref ZEBRA-MARKER-71', response: 'ZEBRA-MARKER-71 then ZEBRA-MARKER-7.'}],
      ['inside a token', {request: 'abcdef0123', response: 'CANARY-abcdef0123456789abcd'}],
      ['suffixed', {request: 'CANARY-0123456789abcdef', response: 'CANARY-0123456789abcdef-s42'}],
    ]
    const lines = records.map(([request_id, texts]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', ...texts}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const out = nativeQuickExtractor(nested)!.lines(bytes, 'gw-test', 1 << 20)
    const markers = [...nested.markers]
    expect(out.marked!.map((m) => [m.requestId, m.tokenEcho, m.tokenWhole, m.hits.map((h) => markers[h]), m.hitEcho])).toEqual([
      ['longer run', [16], [0], [], []],
      ['whole run', [16], [16], [], []],
      ['nested', [], [], ['ZEBRA-MARKER-71', 'ZEBRA-MARKER-7'], [true, false]],
      ['inside a token', [0], [0], [], []],
      ['suffixed', [16], [16], ['CANARY-0123456789abcdef-s42'], [false]],
    ])
    same(taskOf(bytes), nested)
  })

  it('takes for an echo the marker the caller sent in any request shape (history replayed, tool items, refusals, a prediction), as TypeScript does, or leaves the line to it', () => {
    const hex = '0123456789abcdef0123'
    const answer = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `you said CANARY-${hex}`}}]}
    const lines = requestShapes.map(([, make], i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `s${i}`, tenant_id: 't', session_id: 's', request: make(`recall CANARY-${hex}`), response: answer}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const result = same(taskOf(bytes), set)
    // Every record's prompt holds the whole marker: an echo, on both roads.
    expect(result.marked.map((m) => [m.request_id, m.token_echo])).toEqual(requestShapes.map((_, i) => [`s${i}`, [hex.length]]))
    // The addon reads none of these shapes itself (decode.rs left_to_typescript): each line is TypeScript's.
    expect(claims(bytes, set)).toEqual({left: requestShapes.length, blank: 0, record: 0})
    expect(ingestClaims(bytes)).toEqual({left: requestShapes.length, blank: 0, record: 0})
  })

  it('takes for an echo the marker the caller put in a definition (tools, schemas, a message name), reading chat, Messages and Responses API definitions as TypeScript does', () => {
    const hex = '0123456789abcdef0123'
    const answer = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `you said CANARY-${hex}`}}]}
    const lines = definitionShapes.map(([, make], i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `d${i}`, tenant_id: 't', session_id: 's', request: make(`recall CANARY-${hex}`), response: answer}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const result = same(taskOf(bytes), set)
    expect(result.marked.map((m) => [m.request_id, m.token_echo])).toEqual(definitionShapes.map((_, i) => [`d${i}`, [hex.length]]))
    // The addon reads the lines whose other members it reads (chat, Messages, Responses API, Converse text blocks), definitions included.
    const native = definitionShapes.filter(([, , n]) => n).length
    expect(claims(bytes, set)).toEqual({left: definitionShapes.length - native, blank: 0, record: native})
    expect(ingestClaims(bytes)).toEqual({left: definitionShapes.length - native, blank: 0, record: native})
    const {all} = bothIngestReadings(bytes)
    // Each record the addon read holds the definition's text in its request.
    expect(all.request.filter((r) => r.includes(`recall CANARY-${hex}`))).toHaveLength(native)
  })

  it('leaves to TypeScript a definition with an array-index key (JavaScript walks it first) or a number past 2^53, and reads its order as TypeScript does otherwise', () => {
    const req = (tools: string): string => `{"messages":[{"role":"user","content":"hi"}],"tools":${tools}}`
    const lines = [
      req('[{"type":"function","function":{"name":"f","parameters":{"properties":{"b":{"description":"B"},"7":{"description":"CANARY-0123456789abcdef"}}}}}]'),
      req('[{"type":"function","function":{"name":"f","parameters":{"maximum":12345678901234567890,"description":"CANARY-0123456789abcdef"}}}]'),
      req('[{"type":"function","function":{"name":"f","parameters":{"properties":{"07":{"description":"CANARY-0123456789abcdef"},"b":{"enum":["", "x", 1, true, null]}}}}}]'),
    ].map((request, i) => `{"ts":"2026-11-02T06:00:00Z","request_id":"k${i}","tenant_id":"t","session_id":"s","request":${request},"response":"see CANARY-0123456789abcdef"}`)
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(ingestClaims(bytes)).toEqual({left: 2, blank: 0, record: 1})
    const result = same(taskOf(bytes), set)
    expect(result.marked.map((m) => [m.request_id, m.token_echo])).toEqual([['k0', [16]], ['k1', [16]], ['k2', [16]]])
  })

  it('reads every marker, escaped, split across chunks or registered, as TypeScript does', () => {
    const lines = [
      '{"ts":"2026-11-02T06:00:00Z","request_id":"a","tenant_id":"t","session_id":"s","response":"see CANARY-0123456789abcdef"}',
      '{"ts":"2026-11-02T06:00:00Z","request_id":"b","tenant_id":"t","session_id":"s","response":"see \\u0043ANARY-0123456789abcdef"}',
      '{"ts":"2026-11-02T06:00:00Z","request_id":"c","tenant_id":"t","session_id":"s","response":"data: {\\"choices\\":[{\\"delta\\":{\\"content\\":\\"CANA\\"}}]}\\n\\ndata: {\\"choices\\":[{\\"delta\\":{\\"content\\":\\"RY-0123456789abcdef\\"}}]}\\n\\n"}',
      '{"ts":"2026-11-02T06:00:00Z","request_id":"d","tenant_id":"t","session_id":"s","response":"a ZEBRA-TOKEN-C1"}',
      '{"ts":"2026-11-02T06:00:00Z","request_id":"e","tenant_id":"t","session_id":"s","response":"nothing here"}',
    ]
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    // All ASCII: every one is claimed, the four with markers as marked records.
    expect(claims(bytes, set)).toEqual({left: 0, blank: 0, record: 5})
    expect(nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20).marked?.map((m) => m.requestId)).toEqual(['a', 'b', 'c', 'd'])
    const result = same(taskOf(bytes), set)
    expect(result.marked.map((m) => m.request_id)).toEqual(['a', 'b', 'c', 'd'])
  })

  it('reads two markers written with nothing between them, a stream opening with id:, text that only starts like a stream, and a keep-alive data line, bare CR line ends and refusals, as TypeScript does', () => {
    const chunk = (text: string) => `data: {\\"choices\\":[{\\"delta\\":{\\"content\\":\\"${text}\\"}}]}`
    const lines = [
      '{"ts":"2026-11-02T06:00:00Z","request_id":"a","tenant_id":"t","session_id":"s","response":"dump: CANARY-deadbeef00CANARY-0123456789abcdef end"}',
      `{"ts":"2026-11-02T06:00:00Z","request_id":"b","tenant_id":"t","session_id":"s","response":"id: 1\\n${chunk('leak CANARY-0123')}\\n\\nid: 2\\n${chunk('456789abcdef end')}\\n\\ndata: [DONE]\\n\\n"}`,
      '{"ts":"2026-11-02T06:00:00Z","request_id":"c","tenant_id":"t","session_id":"s","response":":) sure, the code is CANARY-0123456789abcdef"}',
      '{"ts":"2026-11-02T06:00:00Z","request_id":"d","tenant_id":"t","session_id":"s","response":"data: the value is CANARY-0123456789abcdef"}',
      `{"ts":"2026-11-02T06:00:00Z","request_id":"e","tenant_id":"t","session_id":"s","response":"${chunk('ok ')}\\n\\ndata: keep-alive\\n\\n${chunk('leak CANARY-0123456789abcdef')}\\n\\ndata: [DONE]\\n\\n"}`,
      `{"ts":"2026-11-02T06:00:00Z","request_id":"f","tenant_id":"t","session_id":"s","response":"${chunk('leak CANARY-0123')}\\r\\r${chunk('456789abcdef')}\\r\\rdata: [DONE]\\r\\r"}`,
      '{"ts":"2026-11-02T06:00:00Z","request_id":"g","tenant_id":"t","session_id":"s","response":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I cannot share CANARY-0123456789abcdef"}}]}}',
      `{"ts":"2026-11-02T06:00:00Z","request_id":"h","tenant_id":"t","session_id":"s","response":"data: {\\"choices\\":[{\\"index\\":0,\\"delta\\":{\\"content\\":null,\\"refusal\\":\\"no: CANARY-0123\\"}}]}\\n\\ndata: {\\"choices\\":[{\\"index\\":0,\\"delta\\":{\\"content\\":null,\\"refusal\\":\\"456789abcdef\\"}}]}\\n\\ndata: [DONE]\\n\\n"}`,
    ]
    const result = same(taskOf(new Uint8Array(Buffer.from(lines.join('\n')))), set)
    expect(result.marked.map((m) => [m.request_id, m.tokens.map((t) => t.token)])).toEqual([
      ['a', ['CANARY-deadbeef00', 'CANARY-0123456789abcdef']],
      ['b', ['CANARY-0123456789abcdef']],
      ['c', ['CANARY-0123456789abcdef']],
      ['d', ['CANARY-0123456789abcdef']],
      ['e', ['CANARY-0123456789abcdef']],
      ['f', ['CANARY-0123456789abcdef']],
      ['g', ['CANARY-0123456789abcdef']],
      ['h', ['CANARY-0123456789abcdef']],
    ])
  })

  it('leaves to TypeScript, which names it unread, a stream holding data after its data: [DONE] end mark; claims one followed only by blank lines, comments, fields and end marks', () => {
    const m = 'CANARY-0123456789abcdef'
    const chunk = (content: string) => `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{index: 0, delta: {content}}]})}\n\n`
    const left = [
      `${chunk('ans ')}data: [DONE]\n\n${chunk(m)}data: [DONE]\n\n`,
      // The same with the chunk's text escaped as \u (the stream is then read decoded).
      `${chunk('ans ')}data: [DONE]\n\n${chunk(m).replace('C', '\\u0043')}`,
      `${chunk('ans ')}data: [DONE]\n\nleak ${m}\n`,
    ]
    const claimed = [`${chunk(`ans ${m}`)}data: [DONE]\n\n: keep-alive\n\nevent: end\nid: 9\n\ndata: [DONE]\n \n`]
    const lines = [...left, ...claimed].map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'hi', response}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: left.length, blank: 0, record: claimed.length})
    expect(ingestClaims(bytes)).toEqual({left: left.length, blank: 0, record: claimed.length})
    same(taskOf(bytes), set)
  })

  it('leaves to TypeScript a stream holding a line that is no SSE field before its end mark (a data line broken in two by a log shipper, text between events), in either form; claims one of fields, comments and blank lines only', () => {
    const m = 'CANARY-0123456789abcdef'
    const chunk = (content: string) => `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{index: 0, delta: {content}}]})}\n\n`
    const whole = `${chunk('ans ')}${chunk(`lorem ipsum your code is ${m} end`)}data: [DONE]\n\n`
    const cut = whole.indexOf(m) - 3
    const left = [
      `${whole.slice(0, cut)}\n${whole.slice(cut)}`,
      // The same with an escape on the line (the stream read from its escaped bytes), and with a \u escape (read decoded).
      `${whole.slice(0, cut)}\n${whole.slice(cut)}`.replace('ans ', 'a\\"ns '),
      `${whole.slice(0, cut)}\n${whole.slice(cut)}`.replace('ans ', 'a\\u0041ns '),
      `${chunk('ans ')}leak ${m}\n\n${chunk('more')}data: [DONE]\n\n`,
      ` ${chunk(`ans ${m}`)}data: [DONE]\n\n`,
      `${chunk('ans ')}\t\n${chunk(m)}data: [DONE]\n\n`,
    ]
    const claimed = [`: keep-alive\nid: 1\nretry: 5\nevent: message\nid\ndata\n\n${chunk(`ans ${m}`)}data: [DONE]\n\n`]
    const lines = [...left, ...claimed].map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'hi', response}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: left.length, blank: 0, record: claimed.length})
    expect(ingestClaims(bytes)).toEqual({left: left.length, blank: 0, record: claimed.length})
    const result = same(taskOf(bytes), set)
    // Every one holds the marker, found on the joined line or in the raw text searched.
    expect(result.marked.map((r) => r.request_id)).toEqual(lines.map((_, i) => `r${i}`))
  })

  it('reads a stream not read whole (an event cut off or malformed) and a body logged as NDJSON as TypeScript does: the native extractor leaves them to it', () => {
    const m = 'CANARY-cccccccccccc3333dd'
    const chunk = (content: string) => JSON.stringify({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})
    const ollama = (content: string, done = false) => JSON.stringify({model: 'llama3', message: {role: 'assistant', content}, done})
    const responses: Array<[string, string]> = [
      ['cut', `data: ${chunk('hello ')}\n\ndata: {"choices":[{"delta":{"content":"${m}`],
      ['malformed', `data: ${chunk('hello ')}\n\ndata: {"choices":[{"delta":{"content":"${m}"}}]\n\ndata: [DONE]\n\n`],
      ['ndjson', [chunk('Here: '), chunk(m.slice(0, 12)), chunk(m.slice(12)), ''].join('\n')],
      ['ndjson-cut', [chunk('Here: '), chunk(m.slice(0, 12)), `{"choices":[{"delta":{"content":"${m.slice(12)}`].join('\n')],
      ['ollama', [ollama('Here: '), ollama(m.slice(0, 12)), ollama(m.slice(12)), ollama('', true), ''].join('\n')],
    ]
    const lines = responses.map(([request_id, response]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', request: 'q', response}))
    const result = same(taskOf(new Uint8Array(Buffer.from(lines.join('\n')))), set)
    // The cut-off or malformed event's raw text is searched, and the event read as far as it goes; so a marker whole in both is met twice (one sighting per record and marker); NDJSON chunks are joined (a last one cut off too); the Ollama stream's chunks are joined too.
    expect(result.marked.map((r) => [r.request_id, r.tokens.map((t) => t.token)])).toEqual([['cut', [m, m]], ['malformed', [m, m]], ['ndjson', [m]], ['ndjson-cut', [m]], ['ollama', [m]]])
    expect([...result.flags].map((f) => f & 2)).toEqual([0, 0, 0, 0, 0])
  })

  it('reads other providers\' answer bodies (Gemini, Bedrock Converse and Titan, Cohere v2, Assistants, Ollama) as TypeScript does: the native extractor leaves them to it', () => {
    const m = 'CANARY-cccccccccccc3333dd'
    const bodies: Array<[string, unknown]> = [
      ['gemini', {candidates: [{content: {role: 'model', parts: [{text: `leak ${m}`}]}, finishReason: 'STOP'}], usageMetadata: {promptTokenCount: 5, candidatesTokenCount: 3}}],
      ['converse', {output: {message: {role: 'assistant', content: [{text: `leak ${m}`}]}}, stopReason: 'end_turn', usage: {inputTokens: 5, outputTokens: 3, totalTokens: 8}}],
      ['titan', {inputTextTokenCount: 5, results: [{tokenCount: 3, outputText: `leak ${m}`, completionReason: 'FINISH'}]}],
      ['cohere', {id: 'c1', finish_reason: 'COMPLETE', message: {role: 'assistant', content: [{type: 'text', text: `leak ${m}`}]}}],
      ['assistants', {id: 'msg_1', object: 'thread.message', role: 'assistant', content: [{type: 'text', text: {value: `leak ${m}`, annotations: []}}]}],
      ['ollama', {model: 'llama3', message: {role: 'assistant', content: `leak ${m}`}, done: true}],
    ]
    const lines = bodies.flatMap(([request_id, response]) => [response, JSON.stringify(response)].map((r, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `${request_id}${i}`, tenant_id: 't', session_id: 's', request: 'q', response: r})))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const result = same(taskOf(bytes), set)
    expect(result.marked.map((r) => r.request_id)).toEqual(bodies.flatMap(([id]) => [`${id}0`, `${id}1`]))
    expect([...result.flags].map((f) => f & 2)).toEqual(lines.map(() => 0))
  })

  it('joins a stream\'s choices as TypeScript does: by index, pieces appended, a choice with only empty pieces adding nothing', () => {
    const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n'
    const delta = (index: number, d: Record<string, unknown>) => ({choices: [{index, delta: d}]})
    const responses: Array<[string, string]> = [
      // Two choices, neither ever given text: no text at all (one empty entry per choice would make "\n").
      ['a', sse([delta(0, {role: 'assistant', content: ''}), delta(1, {content: ''}), delta(1, {reasoning_content: ''})])],
      // The marked choice sorts after an empty one and before one given text later; its content comes in three parts, after its reasoning's line.
      ['b', sse([delta(2, {content: ''}), delta(1, {content: [{type: 'text', text: 'later'}]}), delta(0, {reasoning_content: 'why ', content: ['CANARY-01234567', {type: 'text', text: '89abcdef'}]}), delta(0, {content: ' end'})])],
      // Tool calls after the choices' texts, each call's arguments put together.
      ['c', sse([delta(1, {tool_calls: [{index: 0, function: {arguments: '{"q":'}}]}), delta(0, {content: 'hi'}), delta(1, {tool_calls: [{index: 0, function: {arguments: '"CANARY-fedcba9876543210"}'}}]})])],
    ]
    const lines = responses.map(([request_id, response]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', request: 'q', response}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    expect(claims(bytes, set)).toEqual({left: 0, blank: 0, record: 3})
    const result = same(taskOf(bytes), set)
    // recordFlags: NO_RESPONSE_TEXT (2) for the stream that gave no text.
    expect([...result.flags].map((f) => f & 2)).toEqual([2, 0, 0])
    expect(result.marked.map((m) => [m.request_id, m.tokens.map((t) => t.position)])).toEqual([
      ['b', [5]],
      ['c', [9]],
    ])
  })

  it('skips a byte-order mark at the start of any line (files joined together), as TypeScript does, noting it (QA differential #4)', () => {
    const m = 'CANARY-fedcba9876543210fedc'
    const rec = (id: string) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: id, tenant_id: 't', session_id: 's', request: 'q', response: `x ${m}`})
    // The second and third files' marks, one of them before a CRLF line; a line that is only a mark is blank.
    const bytes = new Uint8Array(Buffer.from(`\ufeff${rec('a')}\n\ufeff${rec('b')}\r\n\ufeff${rec('c')}\n\ufeff\n`))
    const result = same(taskOf(bytes), set)
    expect(result.bad).toBe(0)
    expect(result.blank).toBe(1)
    expect(result.marked.map((r) => r.request_id)).toEqual(['a', 'b', 'c'])
    const ingest = runIngest(taskOf(bytes), true, set)
    expect(ingest.notes).toEqual({'UTF-8 byte-order mark at the start of its line skipped (files joined together?)': 2})
    expect(ingest.bom).toBe(true)
  })

  it('keeps a stream choice\'s reasoning, content and refusal apart and reads function-call arguments as the client parses them, as TypeScript does (QA differential #1, #2)', () => {
    const m = 'CANARY-fedcba9876543210fedc'
    const sse = (chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n'
    const delta = (d: Record<string, unknown>, index = 0) => ({id: 'c', object: 'chat.completion.chunk', choices: [{index, delta: d}]})
    const call = (a: string) => ({index: 0, id: 'c', type: 'function', function: {name: 'f', arguments: a}})
    const args = '{"q":"CANARY-\\u0066edcba9876543210fedc"}'
    const responses: Array<[string, unknown]> = [
      // The marker whole in one channel, its pieces interleaved with another's.
      ['reasoning', sse([delta({reasoning_content: m.slice(0, 11), content: 'Hi'}), delta({reasoning_content: m.slice(11), content: ' there'})])],
      ['vllm', sse([delta({reasoning: m.slice(0, 11), content: 'Hi'}), delta({reasoning: m.slice(11), content: ' there'})])],
      ['refusal', sse([delta({content: 'No', refusal: m.slice(0, 11)}), delta({content: '.', refusal: m.slice(11)}), delta({content: ' more'})])],
      // Split across two channels, each on a line of its own: the head's 8 digits go on over the
      // line break into the next channel's, as a marker wrapped inside its hex (markers.ts).
      ['split', sse([delta({reasoning_content: `see ${m.slice(0, 15)}`, content: `${m.slice(15)} ok`}), delta({content: ' more'})])],
      // Two choices, each with its channels.
      ['choices', sse([delta({reasoning_content: m.slice(0, 15)}, 1), delta({content: m.slice(15)}, 1), delta({content: 'CANARY-0123456789abcdef0123'}, 0)])],
      // Arguments written with an escape: in a body and in a stream's pieces.
      ['args', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: null, tool_calls: [call(args)]}}]}],
      ['streamed', sse([delta({tool_calls: [call(args.slice(0, 12))]}), delta({tool_calls: [call(args.slice(12))]})])],
    ]
    const lines = responses.map(([request_id, response]) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id, tenant_id: 't', session_id: 's', request: 'q', response}))
    const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
    const result = same(taskOf(bytes), set)
    const tokens = Object.fromEntries(result.marked.map((r) => [r.request_id, r.tokens.map((t) => t.token)]))
    expect(tokens).toEqual({
      reasoning: [m],
      vllm: [m],
      refusal: [m],
      split: [m],
      choices: ['CANARY-0123456789abcdef0123', m],
      // The arguments as the model wrote them (a JSON escape in the marker, folded) and as parsed.
      args: [m, m],
      streamed: [m, m],
    })
    // The streams' channels are read natively; arguments holding an escape are TypeScript's (argumentsText).
    expect(claims(bytes, set)).toEqual({left: 2, blank: 0, record: 5})
  })

  it('reads every text the client was given (function calls, tool items, error texts, error chunks\' choices, a BOM, bare CRs) as TypeScript does, or leaves the line to it', () => {
    // QA's gate repros (test/fixtures/answer-fields): each answer but the first carries the marker where it was not read.
    const fixture = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'answer-fields', 'leaks.jsonl'), 'utf8').trimEnd().split('\n')
    const m = 'CANARY-aaaaaaaaaaaaaaaa1111'
    const err = (message: string) => JSON.stringify({error: {message}})
    // Beside them: an error chunk with choices among chunks one envelope repeats (never a template), an event: error before such a chunk.
    const chunk = (content: string) => JSON.stringify({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})
    const extra = [
      `data: ${chunk('a ')}\n\ndata: ${JSON.stringify({error: {message: 'e1'}, id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: m.slice(0, 9)}}]})}\n\ndata: ${JSON.stringify({error: {message: 'e2'}, id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: m.slice(9)}}]})}\n\ndata: [DONE]\n\n`,
      `data: ${chunk('a ')}\n\nevent: error\ndata: ${chunk(m)}\n\ndata: [DONE]\n\n`,
      `data: ${chunk('a ')}\n\nevent: error\ndata: ${err(`ctx ${m}`)}\n\ndata: [DONE]\n\n`,
      `\ufeffdata: ${chunk(m)}\n\ndata: [DONE]\n\n`,
      `data: ${chunk('a')}\r\n\r\ndata: ${chunk(m)}\r\n\r\n`,
    ].map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `x${i}`, tenant_id: 't', session_id: 's', request: 'q', response}))
    const lines = [...fixture, ...extra]
    const result = same(taskOf(new Uint8Array(Buffer.from(lines.join('\n')))), set)
    const ids = lines.slice(1).map((l) => (JSON.parse(l) as {request_id: string}).request_id)
    expect(result.marked.map((r) => r.request_id)).toEqual(ids)
    expect(result.marked.every((r) => r.tokens.some((t) => t.token === m))).toBe(true)
  })

  it('reads every text a tool item, a result block, a citation or a transcript gave the client as TypeScript does, or leaves the line to it; names the shapes it does not know as TypeScript does', () => {
    // test/fixtures/answer-fields/shapes.jsonl: each answer but the first carries the marker only inside such a shape.
    const m = 'CANARY-aaaaaaaaaaaaaaaa1111'
    const read = (file: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'answer-fields', file), 'utf8').trimEnd().split('\n')
    const lines = read('shapes.jsonl')
    // A chat answer with an empty annotations list or null (OpenAI writes one with every answer) stays the addon's to read.
    const chat = (message: object) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: 'plain', tenant_id: 't', session_id: 's', request: 'q', response: {object: 'chat.completion', choices: [{index: 0, message}]}})
    const plain = [chat({role: 'assistant', content: `a ${m}`, annotations: []}), chat({role: 'assistant', content: `a ${m}`, annotations: null})]
    expect(ingestClaims(new Uint8Array(Buffer.from(plain.join('\n'))))).toMatchObject({record: 2})
    const result = same(taskOf(new Uint8Array(Buffer.from([...lines, ...plain].join('\n')))), set)
    const ids = [...lines.slice(1), ...plain].map((l) => (JSON.parse(l) as {request_id: string}).request_id)
    expect(result.marked.map((r) => r.request_id)).toEqual(ids)
    expect(result.marked.every((r) => r.tokens.some((t) => t.token === m))).toBe(true)
    // The shapes no release reads: the same notes with the addon and without it (same() compares the units whole).
    const unread = read('shapes-unread.jsonl')
    const ingest = runIngest(taskOf(new Uint8Array(Buffer.from(unread.join('\n')))), true, set)
    expect(Object.entries(ingest.notes).filter(([note]) => note.startsWith(UNREAD_SHAPES)).reduce((a, [, n]) => a + n, 0)).toBe(unread.length - 1)
    same(taskOf(new Uint8Array(Buffer.from(unread.join('\n')))), set)
  })

  it('reads an embeddings answer, a chat answer\'s content parts of every type and a computer call\'s screenshot as TypeScript does, or leaves the line to it', () => {
    const m = 'CANARY-aaaaaaaaaaaaaaaa1111'
    const line = (rid: string, response: unknown) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: rid, tenant_id: 't', session_id: 's', request: {model: 'e', input: [`q ${m}`]}, response})
    const chat = (content: unknown) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content}}]})
    const delta = (content: unknown) => `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})}\n\ndata: [DONE]\n\n`
    const lines = [
      line('emb', {object: 'list', data: [{object: 'embedding', embedding: [0.5, -1], index: 0}], model: 'e', usage: {prompt_tokens: 3, total_tokens: 3}}),
      line('emb-b64', {object: 'list', data: [{object: 'embedding', embedding: 'AAAAPw==', index: 0}], model: 'e'}),
      line('emb-text', {object: 'list', data: [{object: 'embedding', embedding: [1], index: 0, text: m}], model: 'e'}),
      line('page', {object: 'list', data: [{id: 'x', text: m}]}),
      line('part-new', chat([{type: 'text', text: 'a '}, {type: 'something_new', text: m}])),
      line('part-untyped', chat([{text: m}])),
      line('part-refusal', chat([{type: 'refusal', refusal: m}])),
      line('delta-new', delta([{type: 'something_new', value: m}])),
      line('screenshot', {object: 'response', output: [{type: 'computer_call_output', call_id: 'c', output: {type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgo='}}, {type: 'message', content: [{type: 'output_text', text: m}]}]}),
    ]
    same(taskOf(new Uint8Array(Buffer.from(lines.join('\n')))), set)
    const ingest = runIngest(taskOf(new Uint8Array(Buffer.from(lines.join('\n')))), true, set)
    const shapes = Object.keys(ingest.notes).filter((note) => note.startsWith(UNREAD_SHAPES)).join('; ')
    expect(shapes).toContain('Chat Completions content part "something_new"')
    expect(Object.keys(ingest.notes)).toContain(EMBEDDING_ANSWER)
    expect(ingest.notes[EMBEDDING_ANSWER]).toBe(2)
    expect(Object.keys(ingest.notes).some((n) => n.startsWith(NOT_SEARCHED) && n.includes('computer_call_output screenshot'))).toBe(true)
  })

  // Many generated streams through both extractors (alone 42 s on a 2-core machine): time allowed, not checked.
  it('reads a stream whose chunks repeat one envelope around their texts as TypeScript does, whatever the texts hold', () => {
    // The native extractor parses such a chunk once and reads the next ones by their bytes
    // around the text (decode.rs Template): texts that hold quotes, backslashes, escapes, control
    // characters or markers cut across chunks, envelopes that differ by a byte, error events
    // between them, all must read as JSON.parse reads them.
    const envelopes = [
      ['{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"', '"},"finish_reason":null}]}'],
      ['{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"', '"},"finish_reason":"stop"}]}'],
      ['{"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"', '"},"finish_reason":null}]}'],
      ['{"choices":[{"index":1,"delta":{"content":"', '"}}]}'],
      ['{"choices":[{"index":1,"delta":{"content":"', '"},"finish_reason":"length","logprobs":null}]}'],
      ['{"choices":[{"delta":{"content":"', '","content":"x"}}]}'],
      ['{"choices":[{"delta":{"content":"x","content":"', '"}}]}'],
      ['{"choices":[{"index":0,"delta":{"reasoning_content":"why ","content":"', '"}}]}'],
      ['{"object":"error","choices":[{"delta":{"content":"', '"}}]}'],
      ['{"choices":[{"index":0,"delta":{"content":"', '"}},{"index":1,"delta":{"content":"two"}}]}'],
      ['{"choices":[{"index":0,"delta":{"content":"', '","tool_calls":[{"index":0,"function":{"arguments":"CANARY-aaaabbbbcccc"}}]}}]}'],
      ['{"choices":[{"index":0,"delta":{"content":"', '"}}]} '],
      ['{"choices":[{"index":0,"delta":{"content":"', '"}}'],
      // Completions streams (`text_completion`): the choice's text, where it has no delta object.
      ['{"id":"c3","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"', '","logprobs":null,"finish_reason":null}]}'],
      ['{"id":"c3","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"', '","logprobs":null,"finish_reason":"length"}],"usage":null}'],
      ['{"choices":[{"index":2,"delta":null,"text":"', '"}]}'],
      ['{"choices":[{"text":"', '","delta":{"content":"from the delta"}}]}'],
      ['{"choices":[{"text":"', '","delta":{}}]}'],
      ['{"choices":[{"text":"x","text":"', '"}]}'],
      ['{"choices":[{"text":"', '","text":"x"}]}'],
      ['{"choices":[{"message":{"content":"not read"},"text":"', '"}]}'],
      ['{"choices":[{"index":0,"text":"', '"},{"index":1,"text":"two"}]}'],
      ['{"error":{"message":"e"},"choices":[{"text":"', '"}]}'],
      // Usage in every chunk, or in one: each chunk read by the template reads its usage again.
      ['{"choices":[{"index":0,"delta":{"content":"', '"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}}'],
      ['{"choices":[{"index":0,"delta":{"content":"', '"}}],"usage":{"prompt_tokens":9,"completion_tokens":7}}'],
      ['{"choices":[{"index":0,"delta":{"content":"', '"}}],"usage":{"input_tokens":4,"cache_read_input_tokens":3}}'],
      // A chunk's own message: what an error event before it names.
      ['{"message":"upstream reset","choices":[{"index":0,"delta":{"content":"', '"}}]}'],
    ] as const
    const middle = fc
      .array(
        fc.oneof(
          {weight: 6, arbitrary: fc.constantFrom('word ', 'CANARY-', 'CANA', 'RY-', '0123456789abcdef', 'ZEBRA-TOKEN-C1', 'ZEBRA-', 'TOKEN-C1')},
          fc.constantFrom('"', '\\"', '\\\\', '\\', '\\u0043', '\\n', '\\ud800', '\u0001', '\t', '\n', 'é', '}', '"}}]}'),
          fc.string({unit: 'binary-ascii', maxLength: 3}),
        ),
        {maxLength: 4},
      )
      .map((parts) => parts.join(''))
    // Each stream mixes two envelopes (most chunks of a real stream share one), and lines that are not chunks.
    const chunk = (a: number, b: number) =>
      fc.oneof(
        {weight: 8, arbitrary: fc.tuple(fc.constantFrom(a, a, b), middle).map(([e, text]) => `data: ${envelopes[e]![0]}${text}${envelopes[e]![1]}`)},
        {weight: 2, arbitrary: fc.constantFrom('event: error', 'data: [DONE]', 'data: {"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":3}}', 'data: {"error":{"message":"overloaded"}}', 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}', 'data: not json', ': keep-alive', 'data:{"choices":[{"delta":{"content":"CANARY-0123"}}]}', 'data: {"choices":[{"index":0,"text":"CANARY-0123"}]}')},
      )
    const envelope = fc.nat({max: envelopes.length - 1})
    // Lines end in LF or CRLF (a CR alone ends none); a stream may open with white space.
    const stream = fc
      .tuple(envelope, envelope, fc.constantFrom('\n\n', '\r\n\r\n', '\n', '\r\n', '\r\n\n', '\r\r\n'), fc.constantFrom('', '', '', ' ', '\n', '\t'))
      .chain(([a, b, end, lead]) => fc.array(chunk(a, b), {minLength: 1, maxLength: 12}).map((chunks) => lead + chunks.join(end) + end))
    let claimed = 0
    let marked = 0
    fc.assert(
      fc.property(fc.array(stream, {minLength: 1, maxLength: 6}), (responses) => {
        const lines = responses.map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'q', response}))
        const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
        same(taskOf(bytes), set)
        claimed += claims(bytes, set).record
        marked += nativeQuickExtractor(set)!.lines(bytes, 'gw-test', 1 << 20).marked?.length ?? 0
      }),
      {seed: 20_261_203, numRuns: 3000},
    )
    // Both sides are reached: streams claimed (marked ones among them) and streams left to TypeScript.
    // (A chunk of the envelope with its own `message` not after an `event: error` line is left to
    // TypeScript, which names that member unread; so is a stream with a chunk after a `data: [DONE]`,
    // which TypeScript names unread too, and one with a line that is no SSE field (a text holding a
    // line break, which breaks its data line in two; white space before the first field), which
    // TypeScript joins to the payload before it or searches as raw text: 980 of this seed's lines
    // are claimed, 403 of them marked.)
    expect(claimed).toBeGreaterThan(900)
    expect(marked).toBeGreaterThan(350)
  }, 240_000)

  it('finds registered markers wherever they lie around the byte its search skips to, as TypeScript does', () => {
    // Where every marker holds one byte (here `-`, which `CANARY-` holds too), the native search
    // reads only the stretches of text within the longest marker's length of that byte
    // (Automaton::is_match, lib.rs). Markers hold it first, last or inside, are of different
    // lengths, sit at a text's ends or next to other `-`s, or miss by their last byte; a set
    // with a marker that lacks the byte is searched whole.
    const letters = fc.string({unit: fc.constantFrom(...'ABCXYZ0129'), minLength: 0, maxLength: 22})
    const marker = fc.tuple(letters, letters).map(([a, b]) => `${a}-${b}`)
    const markers = fc.tuple(fc.uniqueArray(marker, {minLength: 1, maxLength: 6}), fc.boolean()).map(([m, withoutPivot]) => (withoutPivot ? [...m, 'NOPIVOT9'] : m))
    const textOf = (set: string[]) =>
      fc
        .array(
          fc.oneof(
            {weight: 3, arbitrary: fc.constantFrom(...set)},
            {weight: 2, arbitrary: fc.constantFrom(...set).map((m) => m.slice(0, -1))},
            {weight: 4, arbitrary: fc.string({unit: fc.constantFrom('a', 'b', ' ', 'A', 'X', '9', '.'), maxLength: 40})},
            {weight: 1, arbitrary: fc.constantFrom('-', '--', ' - ', 'CANARY-0123456789', 'CANARY')},
          ),
          {maxLength: 8},
        )
        .map((parts) => parts.join(''))
    let marked = 0
    let unmarked = 0
    fc.assert(
      fc.property(
        markers.chain((m) => fc.tuple(fc.constant(m), fc.array(textOf(m), {minLength: 1, maxLength: 8}))),
        ([m, texts]) => {
          const registered = new UnconventionalSet(m)
          const lines = texts.map((response, i) => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'q', response}))
          const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
          const native = same(taskOf(bytes), registered)
          marked += native.marked.length
          unmarked += texts.length - native.marked.length
        },
      ),
      {seed: 61_204, numRuns: 3000},
    )
    expect(marked).toBeGreaterThan(3000)
    expect(unmarked).toBeGreaterThan(1000)
  })

  it('reads a repeating stream\'s chunks by its template, whether the stream is read escaped or decoded', () => {
    // A template that never matched would give the same answers, only slower; this holds the
    // template's bytes to where they are, in both forms: a stream in a JSON string with only
    // two-byte escapes is read from its escaped bytes, one with a \\u escape is decoded first.
    const addonHere = createRequire(import.meta.url)(ADDON_PATH) as {templateReads: () => number}
    const chunk = (text: string) => `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{index: 0, delta: {content: text}, finish_reason: null}]})}`
    const words = Array.from({length: 10}, (_, i) => `word${i} `)
    const streams = [
      words.map(chunk).join('\n\n') + '\n\ndata: [DONE]\n\n',
      words.map(chunk).join('\r\n\r\n') + '\r\n\r\ndata: [DONE]\r\n\r\n',
      // \u00e9 in a chunk's own JSON: the outer string then holds \\u00e9, and the stream is decoded whole.
      [chunk('caf\u00e9 '), ...words.map(chunk)].join('\n\n').replace('caf\u00e9', 'caf\\u00e9') + '\n\n',
    ]
    for (const response of streams) {
      const line = JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: 'r', tenant_id: 't', session_id: 's', request: 'q', response})
      const bytes = new Uint8Array(Buffer.from(line))
      const before = addonHere.templateReads()
      expect(claims(bytes, set)).toEqual({left: 0, blank: 0, record: 1})
      // The first chunk is parsed and makes the template; the other nine are read by it.
      expect(addonHere.templateReads() - before).toBe(9)
      same(taskOf(bytes), set)
    }
  })

  it('an extractor that cannot be built (a bug) is no extractor: the pass reads those units in TypeScript', () => {
    // An UnconventionalSet never holds an empty marker; one that did is refused by the addon.
    const broken = Object.assign(Object.create(UnconventionalSet.prototype) as UnconventionalSet, {markers: ['', 'ZEBRA-TOKEN-C1']})
    expect(nativeQuickExtractor(broken)).toBeNull()
    expect(nativeQuickExtractor(broken)).toBeNull()
    expect(nativeQuickStatus()).toEqual({native: true, reason: null})
    expect(nativeQuickExtractor(set)).not.toBeNull()
  })

  it('builds one automaton for the parse workers of a pass, not one per worker', async () => {
    // Each worker builds its own extractor from the same list: the automaton (8 MB for the
    // 53,950 markers of a 5M-record incident) is built once and shared while any holds it.
    const markers = Array.from({length: 3000}, (_, i) => `ZEBRA-${(i * 7919).toString(36)}-MARK`)
    const line = (marker: string): Uint8Array => new TextEncoder().encode(`${JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', request: 'hi', response: `see ${marker} here`})}\n`)
    const code = `
      const {parentPort, workerData} = require('node:worker_threads')
      const addon = require(workerData.path)
      const x = new addon.QuickExtractor(workerData.markers)
      const out = x.lines(workerData.unit, 'gw', 1 << 20)
      parentPort.postMessage({hits: out.marked.map((m) => m.hits), built: addon.automataBuilt()})
      parentPort.once('message', () => process.exit(0))`
    const start = (list: string[], unit: Uint8Array) => {
      const w = new Worker(code, {eval: true, workerData: {path: ADDON_PATH, markers: list, unit}})
      return {w, answer: new Promise<{hits: number[][]; built: number}>((resolve, reject) => w.once('message', resolve).once('error', reject))}
    }
    const addonHere = createRequire(import.meta.url)(ADDON_PATH) as {automataBuilt: () => number}
    const before = addonHere.automataBuilt()
    const a = start(markers, line(markers[1234]!))
    const b = start(markers, line(markers[17]!))
    const [ra, rb] = await Promise.all([a.answer, b.answer])
    expect([ra.hits, rb.hits]).toEqual([[[1234]], [[17]]])
    expect(addonHere.automataBuilt() - before).toBe(1)
    // Another list is another automaton.
    const c = start(markers.slice(1), line(markers[1234]!))
    expect((await c.answer).hits).toEqual([[1233]])
    expect(addonHere.automataBuilt() - before).toBe(2)
    for (const {w} of [a, b, c]) {
      w.postMessage('done')
      await new Promise((resolve) => w.once('exit', resolve))
    }
  })

  it('lets go of its extractor after the pass (ingest never uses it) and builds one again for a later pass', () => {
    const set = new UnconventionalSet(['ZEBRA-SUMMIT-6820'])
    const first = nativeQuickExtractor(set)
    expect(nativeQuickExtractor(set)).toBe(first)
    releaseNativeQuick()
    const again = nativeQuickExtractor(set)
    expect(again).not.toBe(first)
    expect(again).not.toBeNull()
  })
})

it('CROSSTALK_NATIVE=0 turns the native extractor off, saying so', () => {
  const before = process.env.CROSSTALK_NATIVE
  process.env.CROSSTALK_NATIVE = '0'
  resetNativeQuick()
  try {
    expect(nativeQuickStatus()).toEqual({native: false, reason: 'turned off by CROSSTALK_NATIVE=0'})
    expect(nativeQuickExtractor(undefined)).toBeNull()
  } finally {
    if (before === undefined) delete process.env.CROSSTALK_NATIVE
    else process.env.CROSSTALK_NATIVE = before
    resetNativeQuick()
  }
})
