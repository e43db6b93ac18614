import {DuplicateKeyError} from '../duplicate-keys.js'
import {decodeResponse, decodeStreamText} from '../decode.js'
import {unreadShapesNote} from '../parse-record.js'
import {isPlaceholder} from '../redaction.js'
import {finishRecord, intOrNull, notAnObject, pick, pickTime, single, sniffByShare, strOrNull} from './common.js'
import {completionFromMessage, completionFromMessages, errorResponse, isObj, parseJsonText, toChatMessages, type Obj} from './messages.js'
import type {AdaptContext, AdaptResult, CompanionIndex, FormatAdapter, FormatOptions, LinePosition, NativeRecord} from './types.js'
import {noStreamsFound, withStreamTexts} from './stream-texts.js'
import {callTextsOf, lastCall, textLeaves, textsBeyond, withAnswerTexts, withPromptTexts, type CallTexts, type WrapperTexts} from './wrapper-texts.js'

// Specification: Langfuse observations, as its exports write them, one observation a line:
// - the public API's observation object (v1 GET /api/public/observations and v2
//   GET /api/public/v2/observations, camelCase: id, traceId, type, startTime, endTime, model /
//   providedModelName, input, output, level, statusMessage, usage / usageDetails, metadata;
//   v2 adds sessionId and userId from the trace and returns input/output as JSON text (a
//   string input as a JSON string literal);
//   https://langfuse.com/docs/api-and-data-platform/features/observations-api);
// - the blob-storage and UI exports (snake_case: trace_id, start_time, end_time,
//   usage_details, session_id on enriched observations_v2 rows; timestamps written
//   `YYYY-MM-DD HH:MM:SS.ffffff` in UTC;
//   https://langfuse.com/docs/api-and-data-platform/features/blob-storage-export-fields).
//
//   type GENERATION          -> one record (SPAN, EVENT and the rest are not model calls: ignored;
//                               one with an output in a trace (traceId / trace_id) no GENERATION
//                               of the files given belongs to is counted as unread, as otel does;
//                               in a trace with one, an output that is not among the texts of the
//                               GENERATION that ended last is read into its record as a further
//                               choice, with the observation's input (wrapper-texts.ts), unless it
//                               names another session or tenant: then it is counted as unread)
//   id                       -> request_id
//   endTime (startTime)      -> ts; Langfuse's zone-less timestamps are UTC by its docs, so they
//                               are written with Z, unless --assume-tz names their zone (an
//                               export through a database tool in local time); an empty or 0
//                               endTime is unset, and startTime is read; one dated by its
//                               startTime (no endTime) says so in a note
//   sessionId / session_id   -> session_id (legacy exports keep sessions on the trace only)
//   metadata.tenant_id (tenantId, tenant) -> tenant_id (Langfuse has no tenant; say where it is with --map)
//   model, providedModelName -> model
//   usageDetails.input/output (usage.input/output, promptTokens/completionTokens) -> tokens
//   input  (messages array, {messages}, a prompt string, JSON text of those) -> request
//   input of any other structure (a decorated function's {args, kwargs}) -> its JSON text as the prompt
//   output (assistant message {role, content, tool_calls}, a string, a list of messages,
//           a chat.completion or one of its choices) -> a chat.completion; an Anthropic
//           message object, or a message or list whose content is Anthropic blocks with a
//           thinking or tool_use block -> a Messages API response, read as the decoder reads
//           /v1/messages answers (thinking text, tool inputs, text, in order; in a list of
//           several messages, each such message read so, as one choice); JSON of any other
//           shape (a JSON answer Langfuse kept as text) -> that text as the answer; a stream
//           kept as its SSE or NDJSON text, whole or as a message's content or text part ->
//           read as the stream, as a native line's body is; an empty
//           object ({} or its v2 text "{}") -> an answer with no text
//   level ERROR              -> an error response carrying statusMessage
//
// An observation written without `type` (an export of a generations table, or one whose field
// selection left it out) is a GENERATION where it carries what only a model call's observation
// does: a model (model, providedModelName, internalModelId), model parameters, usage or cost
// details, a completion start time. One without type and without any of these is not known to be
// a model call or not: a bad line, never read as either (its texts would be judged nowhere, or
// read as an answer they are not).
//
// Unknown in this format, and left null: status, endpoint, prefill_node, decode_node.

const GENERATION = /^generation$/i

/** What only a model call's observation carries (the header above): an untyped observation holding one is a GENERATION. */
const MODEL_CALL_FIELDS = [
  'model', 'providedModelName', 'provided_model_name', 'internalModelId', 'internal_model_id', 'modelParameters', 'model_parameters',
  'usage', 'usageDetails', 'usage_details', 'costDetails', 'cost_details', 'completionStartTime', 'completion_start_time',
  'promptTokens', 'completionTokens',
]

/**
 * The observation's type: as written, or GENERATION for one written without a type that holds a
 * model call's fields (MODEL_CALL_FIELDS); null for one without a type and without them.
 */
function typeOf(o: Obj): string | null {
  if (typeof o.type === 'string') return o.type
  if (o.type !== undefined && o.type !== null) return null
  return MODEL_CALL_FIELDS.some((f) => o[f] !== undefined && o[f] !== null && o[f] !== '') ? 'GENERATION' : null
}

/** Langfuse's observation types besides GENERATION; another (a log's own word) is not repeated in messages. */
const OTHER_TYPES = new Set(['SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EVALUATOR', 'EMBEDDING', 'GUARDRAIL'])
const observationKind = (type: string): string => (OTHER_TYPES.has(type.toUpperCase()) ? `Langfuse ${type.toUpperCase()}` : 'Langfuse observations of other types')

/** An input or output that holds something: not absent, null, an empty text, a placeholder (redaction.ts), or an empty object or list. */
function holdsValue(v: unknown): boolean {
  if (v === undefined || v === null) return false
  if (typeof v === 'string') return v.trim() !== '' && v.trim() !== 'null' && !isPlaceholder(v)
  if (Array.isArray(v)) return v.length > 0
  if (isObj(v)) return Object.keys(v).length > 0
  return true
}

/**
 * The traces a GENERATION of the files given belongs to. Exports write one observation a line,
 * a trace's observations on lines of their own, possibly in other files of the set: an
 * observation of another type that carries an input or output is a chain or span wrapping a
 * model call read only where its trace has a GENERATION. Its texts are then read with the last
 * GENERATION of the trace to end (wrapper-texts.ts), where they are not the call's own.
 */
export interface LangfuseIndex extends CompanionIndex {
  hasCall(traceId: unknown): boolean
  /** The id of the GENERATION of the trace its wrappers' texts are read with; null where the trace has none. */
  target(traceId: unknown): string | null
  /** The trace's wrappers that carry texts, in the order of their ids. */
  wrappers(traceId: unknown): readonly LangfuseWrapper[]
  /** The sessions and tenants the lines of a GENERATION give (a retried or updated one may be on several lines). */
  recipients(id: string): readonly Recipient[]
}

interface Recipient {
  session: string | null
  tenant: string | null
}

export interface LangfuseWrapper extends Recipient {
  id: string
  at: LinePosition
  /** Its type as messages name it (Langfuse SPAN). */
  kind: string
  texts: WrapperTexts
}

function traceKey(traceId: unknown): string | null {
  return typeof traceId === 'string' && traceId !== '' ? traceId : null
}

function recipientOf(o: Obj): Recipient {
  const metadata = parseJsonText(o.metadata)
  const meta: Obj = isObj(metadata) ? metadata : {}
  return {session: strOrNull(pick(o, 'sessionId', 'session_id')), tenant: strOrNull(meta.tenant_id) ?? strOrNull(meta.tenantId) ?? strOrNull(meta.tenant)}
}

/** Observation types whose output is what the model is given (a tool's result, retrieved documents), not an answer. */
const GIVES_THE_MODEL = /^(tool|retriever|embedding)$/i

function newLangfuseIndex(): LangfuseIndex {
  const calls = new Map<string, Map<string, {key: string; end: number}>>()
  const recipients = new Map<string, Recipient[]>()
  const wrappers = new Map<string, LangfuseWrapper[]>()
  return {
    add(value, at) {
      const type = isObj(value) ? typeOf(value) : null
      if (!isObj(value) || type === null) return
      const key = traceKey(pick(value, 'traceId', 'trace_id'))
      const id = strOrNull(value.id)
      if (key === null) return
      if (GENERATION.test(type)) {
        const ofTrace = calls.get(key) ?? new Map<string, {key: string; end: number}>()
        calls.set(key, ofTrace)
        // One without an id is no record: its trace has a call, none to read a wrapper with.
        if (id === null) return
        const end = endOf(value)
        const known = ofTrace.get(id)
        if (known === undefined || end > known.end) ofTrace.set(id, {key: id, end})
        const r = recipientOf(value)
        const list = recipients.get(id) ?? []
        if (!list.some((x) => x.session === r.session && x.tenant === r.tenant)) list.push(r)
        recipients.set(id, list)
        return
      }
      // The values as logged (textLeaves reads JSON text itself, and keeps one that gives a key twice whole).
      const input = value.input
      const output = value.output
      const texts: WrapperTexts = GIVES_THE_MODEL.test(type)
        ? {prompt: [...textLeaves(input), ...textLeaves(output)], answer: []}
        : {prompt: textLeaves(input), answer: textLeaves(output)}
      // Only an answer is read from a wrapper (readWrappers), its input with it.
      if (id === null || texts.answer.length === 0) return
      const list = wrappers.get(key) ?? []
      if (list.some((w) => w.id === id)) return
      list.push({id, at, kind: observationKind(type), ...recipientOf(value), texts})
      list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      wrappers.set(key, list)
    },
    hasCall: (traceId) => {
      const key = traceKey(traceId)
      return key !== null && calls.has(key)
    },
    target: (traceId) => {
      const key = traceKey(traceId)
      return key === null ? null : (lastCall(calls.get(key)?.values() ?? [])?.key ?? null)
    },
    wrappers: (traceId) => {
      const key = traceKey(traceId)
      return key === null ? [] : (wrappers.get(key) ?? [])
    },
    recipients: (id) => recipients.get(id) ?? [],
  }
}

/** When an observation ended (else started), in milliseconds; unknown is before every known time. */
function endOf(o: Obj): number {
  const t = utcIfZoneless(pickTime(o, 'endTime', 'end_time', 'startTime', 'start_time'), false)
  const ms = typeof t === 'number' ? t : typeof t === 'string' ? Date.parse(t) : Number.NaN
  return Number.isFinite(ms) ? ms : Number.NEGATIVE_INFINITY
}

/**
 * Whether a wrapper names another session or tenant than its call: its texts then went to
 * someone else, and are not read with the call. A field the user maps (--map) is not compared:
 * the map was written for the calls.
 */
function namesOther(w: Recipient, call: Recipient, options: FormatOptions): boolean {
  const differ = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b
  return (options.map.session_id === undefined && differ(w.session, call.session)) || (options.map.tenant_id === undefined && differ(w.tenant, call.tenant))
}

/**
 * The texts of the wrappers of this GENERATION's trace that are not its own, read into its
 * record (where it is the trace's call they are read with): an output as a further choice, an
 * input as further prompt text. Their lines become the record's companions.
 */
function readWrappers(record: NativeRecord, value: Obj, ctx: AdaptContext<LangfuseIndex>): {notes: string[]; companions: LinePosition[]} {
  const none = {notes: [], companions: []}
  const index = ctx.index
  const trace = pick(value, 'traceId', 'trace_id')
  if (index === null || index === undefined || index.target(trace) !== strOrNull(value.id)) return none
  let callText: CallTexts
  try {
    callText = callTextsOf(record.request, record.response, value)
  } catch (error) {
    // A body whose JSON text gives a key twice: the record is refused as it is decoded (parse-record.ts).
    if (error instanceof DuplicateKeyError) return none
    throw error
  }
  const prompts: string[] = []
  const answers: string[] = []
  const notes: string[] = []
  const companions: LinePosition[] = []
  for (const w of index.wrappers(trace)) {
    if (namesOther(w, {session: record.session_id, tenant: record.tenant_id}, ctx.options)) continue
    const beyond = textsBeyond(w.texts, callText)
    // An input is read as the prompt that explains the wrapper's answer (an echo, a value the
    // session sent); a wrapper whose answer is the call's own adds nothing to judge.
    if (beyond.answer === null) continue
    if (!(w.at.file === ctx.at.file && w.at.line === ctx.at.line)) companions.push(w.at)
    if (beyond.prompt !== null) {
      prompts.push(beyond.prompt)
      notes.push(`the input of a wrapping ${w.kind} observation is not among the call's texts: read as further prompt text`)
    }
    answers.push(beyond.answer)
    notes.push(`the output of a wrapping ${w.kind} observation is not among the call's texts: read as a further choice of its answer`)
  }
  record.request = withPromptTexts(record.request, prompts, notes)
  record.response = withAnswerTexts(record.response, answers, notes)
  return {notes: [...new Set(notes)], companions}
}

export const langfuse: FormatAdapter<LangfuseIndex> = {
  format: 'langfuse',
  specification:
    'Langfuse observation exports: public API observations v1/v2 and blob-storage/UI exports (https://langfuse.com/docs/api-and-data-platform/features/observations-api)',

  sniff(first) {
    return sniffByShare(
      'langfuse',
      first,
      (o) =>
        'id' in o &&
        ('traceId' in o || 'trace_id' in o) &&
        (typeof o.type === 'string' || (typeOf(o) !== null && ('input' in o || 'output' in o))) &&
        ('startTime' in o || 'start_time' in o),
      'are Langfuse observations (id, traceId, type or a model call\'s fields, startTime)',
    )
  },

  newIndex: () => newLangfuseIndex(),

  adapt(value, ctx): AdaptResult {
    if (!isObj(value)) return notAnObject(value)
    const type = typeOf(value)
    if (type === null) {
      const what = value.type === undefined || value.type === null ? 'without a type' : `whose type is ${typeof value.type === 'object' ? 'not text' : JSON.stringify(value.type)}`
      return {records: [], ignored: 0, problems: [{item: null, reason: `a Langfuse observation ${what}, and without a model call's fields (model, usage, model parameters, cost, completion start time): whether it is a model call is not known; export the observations with their type (API v2 fields=core, or the observations table)`}]}
    }
    if (!GENERATION.test(type)) {
      // A SPAN or EVENT with an output may be a model call logged without the GENERATION type.
      // Where a GENERATION of its trace is among the lines given, it wraps that call, and its
      // texts are read with the call (readWrappers) unless it names another session or tenant;
      // otherwise its texts are judged nowhere, and it is counted as unread (a file of only such
      // observations is refused, one with records read is not read whole). Without a first pass
      // (a line read alone), no GENERATION of its trace is known.
      const unread = !wrapsCall(value, ctx) && holdsValue(ioValue(value.output))
      return {records: [], problems: [], ignored: 1, ...(unread || wrapsForOther(value, ctx) ? {unread: {[observationKind(type)]: 1}} : {})}
    }
    const notes: string[] = []
    if (typeof value.type !== 'string') notes.push("no type: read as a GENERATION by the model call's fields it carries")
    const metadata = parseJsonText(value.metadata)
    const meta: Obj = isObj(metadata) ? metadata : {}
    const level = strOrNull(value.level)
    const statusMessage = strOrNull(pick(value, 'statusMessage', 'status_message'))

    const request = requestOf(ioValue(value.input))
    if (request === null) notes.push('no input recorded')
    let response = responseOf(ioValue(value.output), value.output, notes)
    if (level !== null && level.toUpperCase() === 'ERROR') {
      const error = errorResponse(statusMessage ?? 'Langfuse recorded level ERROR without a status message')
      response = response === null ? error : {...(response as Obj), ...error}
    } else if (response === null) notes.push('no output recorded')

    // An observation still running when exported (or whose end was not recorded) has no endTime:
    // its startTime dates it, said of the record, as otel says a span dated by its start.
    if (pick(value, 'endTime', 'end_time') === undefined && pick(value, 'startTime', 'start_time') !== undefined) {
      notes.push('ts from startTime: the observation has no endTime (still running when exported, or its end not recorded)')
    }
    const usage = pick(value, 'usageDetails', 'usage_details', 'usage')
    const u: Obj = isObj(usage) ? usage : {}
    const sessionId = strOrNull(pick(value, 'sessionId', 'session_id'))

    const out = finishRecord(
      {
        ts: utcIfZoneless(pickTime(value, 'endTime', 'end_time', 'startTime', 'start_time'), ctx.options.zoneAssumed),
        request_id: strOrNull(value.id),
        tenant_id: strOrNull(meta.tenant_id) ?? strOrNull(meta.tenantId) ?? strOrNull(meta.tenant),
        session_id: sessionId,
        status: null,
        endpoint: null,
        model: strOrNull(pick(value, 'model', 'providedModelName', 'provided_model_name')),
        prefill_node: null,
        decode_node: null,
        prompt_tokens: intOrNull(pick(u, 'input', 'promptTokens', 'prompt_tokens', 'input_tokens')),
        completion_tokens: intOrNull(pick(u, 'output', 'completionTokens', 'completion_tokens', 'output_tokens')),
        request,
        response,
      },
      value,
      ctx.options,
      {
        ts: 'the observation has no endTime or startTime',
        request_id: 'the observation has no id',
        tenant_id: 'Langfuse has no tenant field and metadata has no tenant_id or tenant; say where it is with --map tenant_id=PATH (e.g. userId, metadata.customer) or --map tenant_id=const:NAME',
        session_id:
          'the observation has no sessionId (legacy exports keep it on the trace only); export enriched observations (observations_v2, or API v2 with fields=basic), which carry it; --map session_id=traceId only where the application used the conversation as its trace (a trace is usually one request, so each would read as a session of its own)',
      },
    )
    if ('problem' in out) return single(out, notes)
    const wrapped = readWrappers(out.record, value, ctx)
    const result = single(out, [...notes, ...wrapped.notes])
    if (wrapped.companions.length > 0) result.records[0]!.companions = wrapped.companions
    return result
  },
}

function wrapsCall(value: Obj, ctx: AdaptContext<LangfuseIndex>): boolean {
  return ctx.index !== null && ctx.index !== undefined && ctx.index.hasCall(pick(value, 'traceId', 'trace_id'))
}

/**
 * A wrapper with an answer whose trace's call (the one its texts are read with) names another
 * session or tenant on some line: its texts are not read with it, so they are judged nowhere.
 */
function wrapsForOther(value: Obj, ctx: AdaptContext<LangfuseIndex>): boolean {
  if (!wrapsCall(value, ctx)) return false
  const trace = pick(value, 'traceId', 'trace_id')
  const target = ctx.index.target(trace)
  const w = ctx.index.wrappers(trace).find((x) => x.id === strOrNull(value.id))
  return w !== undefined && target !== null && ctx.index.recipients(target).some((r) => namesOther(w, r, ctx.options))
}

/** The request body keys the decoder reads its text from (a chat, completions, Responses or Messages body). */
const REQUEST_KEYS = ['messages', 'prompt', 'input', 'system', 'instructions', 'text']

function requestOf(input: unknown): unknown {
  if (input === undefined || input === null || input === '') return null
  if (Array.isArray(input)) return {messages: toChatMessages(input)}
  if (isObj(input) && Array.isArray(input.messages)) return {...input, messages: toChatMessages(input.messages)}
  // One message object ({role, content} or a parts message) as the whole input.
  if (isObj(input) && ('role' in input || 'parts' in input) && !REQUEST_KEYS.some((k) => k in input)) return {messages: toChatMessages([input])}
  // Any other structure (a decorated function's {args, kwargs}, an application's own object) is
  // still what was sent: its JSON text is the prompt, so a marker the user sent is seen (echo).
  if (isObj(input) && !REQUEST_KEYS.some((k) => k in input)) return {prompt: JSON.stringify(input)}
  return input
}

/** A piece of a streamed answer: an OpenAI chunk, a Messages or Responses API stream event, a raw SSE data line. */
function isStreamPiece(p: unknown): boolean {
  if (typeof p === 'string') return p.trimStart().startsWith('data:')
  if (!isObj(p)) return false
  if (p.object === 'chat.completion.chunk') return true
  return typeof p.type === 'string' && /^(message_start|message_delta|message_stop|content_block_(start|delta|stop)|ping|response\.)/.test(p.type)
}

/** Anthropic content blocks that OpenAI's content parts have no kind of: the model's thinking, a tool call it wrote. */
const MESSAGES_ONLY_BLOCKS = new Set(['thinking', 'redacted_thinking', 'tool_use', 'server_tool_use'])

/** Content that is a list of Anthropic Messages API blocks, with at least one OpenAI's parts have no kind of. */
function isMessagesContent(content: unknown): content is Obj[] {
  return Array.isArray(content) && content.length > 0 && content.every((b) => isObj(b) && typeof b.type === 'string') &&
    content.some((b) => MESSAGES_ONLY_BLOCKS.has((b as Obj).type as string))
}

/**
 * An Anthropic answer as a Messages API response (`{type: "message", content: [...]}`), which the
 * response decoder reads block by block (thinking, tool inputs and text, in order), as it reads a
 * /v1/messages body; null for any other output. A chat.completion's message has no thinking
 * block, so converting one that holds them would drop the model's thinking.
 */
function messagesResponseOf(m: unknown): Obj | null {
  if (!isObj(m)) return null
  if (m.type === 'message' && Array.isArray(m.content)) return m
  if (!('tool_calls' in m) && isMessagesContent(m.content)) return {...m, type: 'message', role: typeof m.role === 'string' ? m.role : 'assistant'}
  return null
}

/**
 * One message of an output list as a chat message. An Anthropic message among several (thinking
 * or tool_use blocks in its content) has its text as the response decoder reads that message
 * alone (thinking, tool inputs and text, in order): a chat message's content parts have no kind
 * for a thinking block, so converting its blocks would drop the model's thinking, which the
 * single-message shape reads.
 */
function asChatMessage(m: unknown, unread: string[]): unknown {
  const message = isObj(m) && isObj(m.message) ? m.message : m
  const anthropic = messagesResponseOf(message)
  if (anthropic === null) return message
  const finish = isObj(message) ? message.finish_reason : undefined
  const decoded = decodeResponse(anthropic)
  // Blocks of a type the decoder does not read: said of the record (its notes), as the decoder says it of a body it reads itself.
  for (const shape of decoded.unread) if (!unread.includes(shape)) unread.push(shape)
  return {role: 'assistant', content: decoded.text, ...(finish === undefined ? {} : {finish_reason: finish})}
}

/** `raw`: the output as the export wrote it; a string that is JSON of no message shape is the answer's text itself. */
function responseOf(output: unknown, raw: unknown, notes: string[]): unknown {
  if (output === undefined || output === null || output === '') return null
  // A streamed answer kept as its SSE or NDJSON text (a converter copying a gateway's body): the
  // response decoder reads it as the stream it is, as it reads such a body in a native line; read
  // as plain text, a marker split across two chunks would be missed and the gate pass.
  if (typeof output === 'string') return decodeStreamText(output) !== null ? output : completionFromMessage({role: 'assistant', content: output})
  // An empty object (or its v2 JSON text "{}"; LiteLLM's "not stored" copied in) holds no answer:
  // an answer with no text, as the response decoder reads `{}` in a native line, never the text "{}".
  if (isObj(output) && Object.keys(output).length === 0) return output
  // A stream kept as its chunks or events: the response decoder reads it as the stream.
  if (Array.isArray(output) && output.length > 0 && output.every(isStreamPiece)) return output
  // A chat.completion or an error: the response decoder's, as in a native line.
  if (isObj(output) && (Array.isArray(output.choices) || isObj(output.error))) return output
  // The same stream kept as its text inside a message (its content or a text part, in one
  // message or a list): read as the stream too (stream-texts.ts), the shapes it leaves unread
  // said and the error it ended with kept.
  const found = noStreamsFound()
  const read = Array.isArray(output) ? output.map((m) => withStreamTexts(m, found)) : withStreamTexts(output, found)
  const response = messagesOf(read, raw, notes)
  if (found.unread.length > 0) notes.push(unreadShapesNote(found.unread))
  return found.error === null ? response : {...(response as Obj), ...errorResponse(found.error)}
}

/** An output (none of the shapes responseOf keeps as they are) as the response the decoder reads. */
function messagesOf(output: unknown, raw: unknown, notes: string[]): unknown {
  if (Array.isArray(output)) {
    // Anthropic content blocks as the output itself, a thinking or tool_use block among them.
    if (isMessagesContent(output)) return {type: 'message', role: 'assistant', content: output}
    // One Anthropic message (or one message of Anthropic blocks) in a list.
    if (output.length === 1) {
      const one = messagesResponseOf(output[0]) ?? (isObj(output[0]) ? messagesResponseOf(output[0].message) : null)
      if (one !== null) return one
    }
    // OpenAI content parts as the output itself: one answer in parts.
    if (output.length > 0 && output.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string')) return completionFromMessage({role: 'assistant', content: output})
    if (output.every((m) => typeof m === 'string' || (isObj(m) && ('content' in m || 'parts' in m || 'tool_calls' in m || 'role' in m || 'message' in m)))) {
      const unread: string[] = []
      const messages = completionFromMessages(output.map((m) => asChatMessage(m, unread)))
      if (unread.length > 0) notes.push(unreadShapesNote(unread))
      return messages
    }
  } else if (isObj(output)) {
    const messages = messagesResponseOf(output) ?? messagesResponseOf(output.message)
    if (messages !== null) return messages
    // One choice of a chat.completion ({index, message, finish_reason}), as some integrations log it.
    if (isObj(output.message)) return completionFromMessage(output.message)
    if ('content' in output || 'parts' in output || 'tool_calls' in output || 'role' in output) return completionFromMessage(output)
  }
  // A JSON answer (the model asked to reply in JSON) that Langfuse kept as text, or a structure
  // of no message shape: its text is what the user received.
  const text = typeof raw === 'string' && raw.trim() !== '' ? raw : JSON.stringify(output)
  return completionFromMessage({role: 'assistant', content: text})
}

/**
 * The v2 API returns input and output as JSON text unless parseIoAsJson is set: an object or
 * array comes back as `{...}` / `[...]`, and a string input as a JSON string literal
 * (`"\"Hello\""`), which is unwrapped here too.
 */
function ioValue(v: unknown): unknown {
  const parsed = parseJsonText(v)
  if (typeof parsed !== 'string') return parsed
  const t = parsed.trim()
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const inner = JSON.parse(t) as unknown
      if (typeof inner === 'string') return inner
    } catch {
      // quoted text, not a JSON string
    }
  }
  return parsed
}

/**
 * Langfuse writes UTC timestamps without a zone (`2024-05-29 13:46:19.963000`): say so, unless
 * the user named the zone with --assume-tz (`zoneAssumed`), which the zone rule then applies.
 */
function utcIfZoneless(v: unknown, zoneAssumed: boolean): string | number | undefined {
  if (typeof v === 'number') return v
  if (typeof v !== 'string') return undefined
  if (zoneAssumed) return v
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)$/.exec(v.trim())
  return m ? `${m[1]}T${m[2]}Z` : v
}
