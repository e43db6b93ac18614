import {DuplicateKeyError, duplicateKeyReason} from '../duplicate-keys.js'
import {epochToIso, unwrapAnyValue} from '../field-path.js'
import {epochWhole, EPOCH_UNITS, implausibleEpoch} from '../../util/timestamps.js'
import {unreadShapesNote} from '../parse-record.js'
import {isPlaceholder, OPENINFERENCE_REDACTED, oiRedactedNote} from '../redaction.js'
import {finishRecord, intOrNull, placeholderBody, strOrNull, type Candidate} from './common.js'
import {noStreamsFound, readStreamText, withStreamTexts} from './stream-texts.js'
import {
  argumentsText,
  completionFromMessages,
  contentFromAttribute,
  errorResponse,
  isObj,
  parseJsonText,
  toChatMessages,
  type Obj,
} from './messages.js'
import {UNDECODED_BYTES, type AdaptedRecord, type AdaptResult, type CompanionIndex, type FormatAdapter, type FormatOptions, type LinePosition, type LineProblem, type NativeRecord, type SniffResult} from './types.js'
import {callTextsOf, lastCall, textLeaves, textsBeyond, withAnswerTexts, withPromptTexts, type CallTexts, type WrapperTexts} from './wrapper-texts.js'

// Specification: OTLP/JSON (OpenTelemetry Protocol, JSON encoding of
// opentelemetry-proto ExportTraceServiceRequest / ExportLogsServiceRequest,
// https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) one export request a line, as
// the OpenTelemetry Collector's file exporter writes it (traces and logs in separate files;
// attributes as `[{key, value: {stringValue|intValue|doubleValue|boolValue|arrayValue|kvlistValue}}]`;
// times as nanosecond strings, or numbers from the JS SDK's exporter; ids in hex), read with
// the GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/, v1.37
// and the v1.26–v1.36 forms still emitted):
//
//   a GenAI span (gen_ai.operation.name chat / text_completion / generate_content, Semantic
//   Kernel's chat.completions / chat.streaming_completions / text.completions /
//   text.streaming_completions, LiteLLM's call types that answer with text (GENAI_OPERATIONS),
//   or a span with gen_ai.request.model and no other operation), or an OpenInference LLM span
//   (openinference.span.kind LLM, or llm.input_messages.* / llm.output_messages.* attributes;
//   https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md), or an older
//   OpenLLMetry span (llm.request.type chat / completion, llm.prompts.N.* / llm.completions.N.*) -> one record
//   gen_ai.response.id, else spanId          -> request_id; a response id another call of the set
//                                               gives for another tenant or session is qualified
//                                               with the call's own (recordIdentity)
//   endTimeUnixNano (startTimeUnixNano)      -> ts; a value that cannot be nanoseconds of a time
//                                               from 2000 to 2100 (milliseconds, say) is no time:
//                                               the other stands in, noted, else a bad item (readUnixNano)
//   gen_ai.conversation.id, else session.id  -> session_id, looked up on the span, then its
//                                               ancestors (a companion index of every span), then the resource
//   tenant attribute keys (option; default tenant.id) -> tenant_id, same lookup order. Not
//                                               service.namespace unless given: it names a group of
//                                               services (a deployment's "prod"), not a customer. A
//                                               span without the tenant is a bad item whose reason
//                                               names the attributes it carries that may hold it
//   http.response.status_code (http.status_code) -> status, on the span, else on the nearest
//                                               SERVER span above it whose path is an inference
//                                               endpoint (a gateway's; not an application's own
//                                               handler); span status ERROR and error.type make
//                                               the response an error, never a status
//   url.path (url.full, http.route, http.target) of that server span -> endpoint, where the span has none
//   server.address[:server.port]             -> decode_node: the address the client called (a
//                                               load balancer, if there is one; prefill_node stays unknown)
//   url.path (from url.full)                 -> endpoint
//   gen_ai.response.model (llm.response.model), else gen_ai.request.model, else llm.model_name,
//     ai.model.id, llm.request.model           -> model
//   gen_ai.usage.input_tokens / output_tokens (older prompt_tokens / completion_tokens), else
//     llm.token_count.prompt / completion, ai.usage.*, llm.usage.prompt_tokens / completion_tokens -> tokens
//   content, of every convention and every form the span carries (where two give different
//   texts, both are kept: the messages of each in turn, an answer's as further choices;
//   identical texts once), within the GenAI conventions each of:
//     gen_ai.input.messages / gen_ai.output.messages (+ gen_ai.system_instructions), parts
//       format, as a JSON string or structured, on the span or on a
//       gen_ai.client.inference.operation.details event (span event or log record);
//     gen_ai.content.prompt / gen_ai.content.completion span events (gen_ai.prompt / gen_ai.completion);
//     gen_ai.prompt.N.role/content and gen_ai.completion.N.{role,content,finish_reason,tool_calls.M.*}
//       attributes (OpenLLMetry style);
//     events named gen_ai.system.message, gen_ai.user.message, gen_ai.assistant.message,
//       gen_ai.tool.message (bodies {content, tool_calls}) and gen_ai.choice ({index,
//       finish_reason, message}, read closed-world as a chat choice: a text beside it read,
//       content beside message read too, any other member named; or the answer under content: a text, or Gemini's Content
//       {role: 'model', parts: [{text}]}, as LiveKit Agents and Google ADK write it): OTLP log records linked by traceId/spanId (what
//       @opentelemetry/instrumentation-openai and opentelemetry-instrumentation-openai-v2 emit),
//       or span events of the span, whose attributes are the body, or whose
//       gen_ai.event.content holds it as JSON (Azure AI Inference's tracing);
//   the Vercel AI SDK's ai.prompt.messages (else ai.prompt; tool-result parts, v4 `result` and
//     v5 `output.value`, read as prompt text) / ai.response.text, ai.response.reasoning and
//     ai.response.toolCalls, on its provider-call spans (gen_ai.* metadata, or ai.operationId
//     ai.*.doGenerate / ai.*.doStream: model ai.model.id, tokens ai.usage.*);
//   OpenInference's llm.input_messages.N.message.* / llm.output_messages.N.message.* (content,
//     contents.M.message_content.text of every part type, reasoning included,
//     tool_calls.J.tool_call.*); and input.value / output.value (an OpenAI request /
//     chat.completion body where the mime type is application/json, else plain text);
//   older OpenLLMetry's llm.prompts.N.* / llm.completions.N.* (as gen_ai.prompt.N / completion.N).
//   LangSmith's gen_ai.prompt / gen_ai.completion span attributes (its run's inputs and outputs
//     as JSON text) and OpenLIT's gen_ai.content.prompt / gen_ai.content.completion (plain
//     text), gen_ai.content.reasoning and gen_ai.tool.name / .call.id / .args (the answer's
//     reasoning and tool calls, beside its messages) (fromContentAttributes, fromOpenLitAnswer).
//   A call span's attributes are read closed-world: one neither read nor known to hold no text
//     of the answer that holds a string is named as not read (unreadAttributes), so the record
//     is not read whole; a span event of a name not read likewise.
//   An answer's text that is a stream's SSE or NDJSON text (a gateway's body copied in), whole or
//   in an output message's content or text part, is read as the stream, as a native line's body
//   is; a value that is a JSON string literal is the string it
//   encodes, and an empty JSON answer (output.value {} or {"choices": []}, gen_ai.output.messages
//   "\"\"") is an answer with no text.
//   A value that is exactly OpenInference's placeholder __REDACTED__ (OPENINFERENCE_HIDE_*) is
//   no text: a prompt or answer left with none is noted as redacted at the source, and such an
//   answer is counted as not logged (redaction.ts), so a gate does not pass on it. So is a
//   prompt or answer of any convention (GenAI messages, attributes and events included) whose
//   text is nothing but a placeholder redaction.ts knows (finishRecord, common.ts).
//   A span or log record read as no call that carries model texts (input.value, llm.*, ai.prompt,
//   traceloop.entity.*, GenAI texts of an agent span, in its attributes or its span events) is counted as unread, by convention, where
//   no model call of its trace is among the lines given, or, where it carries answer text, no
//   such call has answer text (hidden, or not captured: the wrapper's is then the only text of
//   that answer): ingest does not take such a file as read (ingest-file.ts). A span that wraps a
//   call read (a chain, agent, workflow) is read with the call of its trace that ended last: an
//   answer text of it that is not among that call's texts (an application's post-processing, an
//   agent step) is a further choice of the call's answer, its input texts further prompt text
//   (wrapper-texts.ts); one that names another tenant or session than that call is counted as unread.
//   Log records whose span is not among the spans given still make a record (request id and
//   time from the events), so a logs file read alone is not lost.
//
// Unknown in this format unless the attributes above are present: status, endpoint, tokens
// (streams without include_usage), prefill_node.

/** How a span's note says its content may be in log records of a file not given (a gate's advice looks for it). */
export const OTLP_LOGS_NOT_GIVEN = 'the OTLP logs file not given'

/** How the note of a span whose only texts are in attributes this release does not read starts (ingest-file.ts words its refusal's fix by it). */
export const CONTENT_NOT_READ = 'message content on the span in attributes this release does not read'

/**
 * A model call's span attributes are read closed-world, as a chat answer is: each attribute is
 * read as content (CONTENT_READ_KEYS, CONTENT_READ_PATTERN), or is known to hold no text of the
 * answer (NO_TEXT_KEYS, NO_TEXT_PREFIXES: names, ids, counts, times, request parameters, the
 * tool definitions the caller sent), or, where it holds a string, is named as not read
 * (unreadAttributes), so the record is not read whole and no gate passes on it. An allow-list,
 * not a list of the content attributes: a convention this release does not know (a new
 * producer's answer attribute, a custom one) is named, never passed over.
 */
const CONTENT_READ_KEYS = new Set([
  'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions',
  // LangSmith's (its run's inputs and outputs as JSON text) and OpenLIT's (plain text) prompt and answer.
  'gen_ai.prompt', 'gen_ai.completion', 'gen_ai.content.prompt', 'gen_ai.content.completion',
  // OpenLIT: the answer's reasoning_content, and its tool calls' names, ids and arguments.
  'gen_ai.content.reasoning', 'gen_ai.tool.args', 'gen_ai.tool.name', 'gen_ai.tool.call.id',
  'ai.prompt', 'ai.prompt.messages', 'ai.response.text', 'ai.response.reasoning', 'ai.response.toolCalls',
  'input.value', 'output.value', 'input.mime_type', 'output.mime_type',
])
const CONTENT_READ_PATTERN = /^(gen_ai\.(prompt|completion)\.\d+\.|llm\.(prompts|completions)\.\d+\.|llm\.(input|output)_messages\.)/

/**
 * Logfire's content attributes (its OpenAI and Anthropic instrumentations write the request body
 * as request_data, the answer as response_data, and in its GenAI-conventions mode the messages as
 * a JSON list of events in `events`): a shape this release does not read, named whenever given,
 * even where it holds no string.
 */
const LOGFIRE_CONTENT_KEYS = new Set(['request_data', 'response_data', 'events'])

/** Span attributes known to hold no text of the call's answer (ids, names, counts, times, flags, request parameters, tool definitions). */
const NO_TEXT_KEYS = new Set([
  // GenAI conventions
  'gen_ai.operation.name', 'gen_ai.system', 'gen_ai.provider.name', 'gen_ai.conversation.id', 'gen_ai.output.type',
  'gen_ai.response.id', 'gen_ai.response.model', 'gen_ai.response.finish_reasons', 'gen_ai.response.service_tier',
  'gen_ai.response.system_fingerprint', 'gen_ai.agent.id', 'gen_ai.agent.name', 'gen_ai.agent.description', 'gen_ai.data_source.id',
  'gen_ai.tool.definitions', 'gen_ai.tool.type', 'gen_ai.tool.description', 'gen_ai.token.type',
  'gen_ai.openai.response.service_tier', 'gen_ai.openai.response.system_fingerprint',
  'gen_ai.openai.api_base', 'gen_ai.openai.api_version', 'gen_ai.openai.api_type',
  // OpenLIT
  'gen_ai.environment', 'gen_ai.application_name', 'gen_ai.sdk.version', 'gen_ai.system_fingerprint', 'gen_ai.response.finish_reason',
  // LangSmith: the decorated function's name, signature and docstring (code, not an answer)
  'gen_ai.serialized.name', 'gen_ai.serialized.signature', 'gen_ai.serialized.doc',
  // HTTP, the server called, errors, sessions, users
  'server.address', 'server.port', 'error.type', 'session.id', 'user.id', 'enduser.id', 'deployment.environment', 'deployment.environment.name',
  // OpenInference
  'openinference.span.kind', 'llm.model_name', 'llm.provider', 'llm.system', 'llm.invocation_parameters', 'tag.tags',
  // OpenLLMetry (Traceloop)
  'llm.request.type', 'llm.response.model', 'llm.is_streaming', 'llm.headers', 'llm.user', 'llm.frequency_penalty',
  'llm.presence_penalty', 'llm.top_k', 'llm.chat.stop_sequences', 'llm.response.finish_reason', 'llm.response.stop_reason',
  'traceloop.span.kind', 'traceloop.workflow.name', 'traceloop.entity.name', 'traceloop.entity.path', 'traceloop.entity.version',
  // the Vercel AI SDK
  'ai.operationId', 'operation.name', 'resource.name', 'ai.model.id', 'ai.model.provider', 'ai.telemetry.functionId',
  'ai.prompt.format', 'ai.prompt.tools', 'ai.prompt.toolChoice', 'ai.response.finishReason', 'ai.response.id',
  'ai.response.model', 'ai.response.timestamp', 'ai.response.msToFirstChunk', 'ai.response.msToFinish',
  'ai.response.avgCompletionTokensPerSecond', 'ai.response.avgOutputTokensPerSecond', 'ai.schema', 'ai.schema.name',
  'ai.schema.description', 'ai.settings.output', 'ai.settings.mode',
  // LangSmith
  'langsmith.span.id', 'langsmith.trace.id', 'langsmith.span.dotted_order', 'langsmith.span.parent_id', 'langsmith.trace.session_id',
  'langsmith.trace.session_name', 'langsmith.span.kind', 'langsmith.trace.name', 'langsmith.span.tags', 'langsmith.span.runtime',
  'langsmith.request.streaming', 'langsmith.request.headers',
])
/**
 * Prefixes of attribute families that hold no text of the answer: the request's parameters (its
 * model, sampling settings, stop sequences, the functions offered), token counts and costs,
 * HTTP and URL attributes, the SDK's and the code's own, LangChain's ls_* metadata (its provider,
 * model and settings), timing.
 */
const NO_TEXT_PREFIXES = [
  'gen_ai.request.', 'gen_ai.usage.', 'gen_ai.openai.request.', 'gen_ai.server.', 'gen_ai.client.',
  'llm.request.', 'llm.usage.', 'llm.token_count.', 'llm.cost.', 'llm.tools.', 'llm.openai.',
  'ai.usage.', 'ai.settings.', 'ai.request.headers.',
  'http.', 'url.', 'network.', 'otel.', 'telemetry.', 'code.', 'thread.', 'service.', 'logfire.',
  'langsmith.metadata.ls_',
]

/** A span event on a call span that holds no text of its answer, by its name: an exception's (the error is read from the span's status). */
const NO_TEXT_EVENTS = new Set(['exception'])

/** An attribute key or event name as a note gives it: as it is where it is plain, else quoted as JSON writes it (a control character made visible); at most 60 characters. */
function keyName(key: string): string {
  const cut = key.length > 60 ? `${key.slice(0, 60)}…` : key
  return /^[\w.:/@-]+$/.test(cut) ? cut : JSON.stringify(cut)
}

/**
 * The gen_ai.operation.name values of a model call: the conventions' chat, text_completion and
 * generate_content; Semantic Kernel's and Microsoft Agent Framework's chat.completions,
 * chat.streaming_completions, text.completions, text.streaming_completions; and LiteLLM's
 * (its OpenTelemetry callback writes its call type there and in llm.request.type) calls that
 * answer with text.
 */
const GENAI_OPERATIONS = new Set([
  'chat', 'text_completion', 'generate_content', 'completion',
  'chat.completions', 'chat.streaming_completions', 'text.completions', 'text.streaming_completions',
  ...litellmCallTypes(),
])

/** LiteLLM's call types that are a model call with an answer text (CallTypes; its async variants prefixed with a). */
function litellmCallTypes(): string[] {
  const sync = ['completion', 'text_completion', 'responses', 'anthropic_messages', 'generate_content', 'generate_content_stream']
  return [...sync, ...sync.map((t) => `a${t}`)]
}
const LITELLM_CALL_TYPES = new Set(litellmCallTypes())
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details'
const MESSAGE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
}
const SESSION_KEYS = ['gen_ai.conversation.id', 'session.id'] as const
const STATUS_KEYS = ['http.response.status_code', 'http.status_code'] as const
const PATH_KEYS = ['url.path', 'url.full', 'http.route', 'http.target'] as const
/** The paths of an inference request (OpenAI-compatible, and the native /generate of SGLang and TGI), with or without a version prefix. */
const INFERENCE_PATH = /\/(chat\/completions|completions|responses|generate)\/?$/

// ------------------------------------------------------------------ the OTLP document

interface SpanView {
  item: number
  span: Obj
  attrs: Obj
  /** The attribute keys whose value is bytes that are no UTF-8 text (unwrapAnyValue): in attrs as null. */
  undecoded: string[]
  resource: Obj
  scope: Obj
}

interface LogView {
  item: number
  record: Obj
  attrs: Obj
  /** Whether an attribute or the body holds bytes that are no UTF-8 text (null in attrs and the body). */
  undecoded: boolean
  resource: Obj
}

/** An attribute list as an object; the keys whose value held bytes that are no UTF-8 text are added to `undecoded`. */
function attrsOf(list: unknown, undecoded: string[] = []): Obj {
  const out: Obj = {}
  if (!Array.isArray(list)) return out
  for (const kv of list) {
    if (!isObj(kv) || typeof kv.key !== 'string') continue
    const key = kv.key
    out[key] = unwrapAnyValue(kv.value, () => undecoded.push(key))
  }
  return out
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/**
 * The path of the first attribute an attribute list (`[{key, value}]`: a resource's, a span's, an
 * event's, a log record's attributes, a kvlistValue's values) gives twice with different values,
 * or null. attrsOf keeps the last, a reader of the first copy would see another text or tenant:
 * the line cannot be read with certainty (duplicate-keys.ts). A key repeated with the same value
 * reads the same either way and is let be: SDKs do repeat attributes. Every list of the document
 * is checked, read or not: which attributes some reader (a --map path, a convention) takes is not
 * this check's to know.
 */
export function duplicateAttribute(doc: unknown): string | null {
  const stack: Array<{v: unknown; path: string}> = [{v: doc, path: ''}]
  while (stack.length > 0) {
    const {v, path} = stack.pop()!
    if (Array.isArray(v)) {
      let seen: Map<string, unknown> | null = null
      for (let i = 0; i < v.length; i++) {
        const kv = v[i]
        if (isObj(kv) && typeof kv.key === 'string') {
          seen ??= new Map()
          const before = seen.get(kv.key)
          if (before === undefined) seen.set(kv.key, kv.value ?? null)
          else if (JSON.stringify(before) !== JSON.stringify(kv.value ?? null)) return `${path}[${JSON.stringify(kv.key)}]`
        }
        if (typeof kv === 'object' && kv !== null) stack.push({v: kv, path: `${path}[${i}]`})
      }
    } else if (isObj(v)) {
      for (const k in v) {
        const item = v[k]
        if (typeof item === 'object' && item !== null) stack.push({v: item, path: path === '' ? k : `${path}.${k}`})
      }
    }
  }
  return null
}

function spansOf(doc: Obj): SpanView[] {
  const out: SpanView[] = []
  let item = 0
  for (const rs of arr(doc.resourceSpans)) {
    if (!isObj(rs)) continue
    const resource = attrsOf(isObj(rs.resource) ? rs.resource.attributes : undefined)
    for (const ss of arr(rs.scopeSpans ?? rs.instrumentationLibrarySpans)) {
      if (!isObj(ss)) continue
      const scope = isObj(ss.scope) ? ss.scope : isObj(ss.instrumentationLibrary) ? ss.instrumentationLibrary : {}
      for (const span of arr(ss.spans)) {
        if (isObj(span)) {
          const undecoded: string[] = []
          out.push({item, span, attrs: attrsOf(span.attributes, undecoded), undecoded, resource, scope})
        }
        item++
      }
    }
  }
  return out
}

function logsOf(doc: Obj): LogView[] {
  const out: LogView[] = []
  let item = 0
  for (const rl of arr(doc.resourceLogs)) {
    if (!isObj(rl)) continue
    const resource = attrsOf(isObj(rl.resource) ? rl.resource.attributes : undefined)
    for (const sl of arr(rl.scopeLogs ?? rl.instrumentationLibraryLogs)) {
      if (!isObj(sl)) continue
      for (const record of arr(sl.logRecords)) {
        if (isObj(record)) {
          const undecoded: string[] = []
          const attrs = attrsOf(record.attributes, undecoded)
          if (isObj(record.body)) unwrapAnyValue(record.body, () => undecoded.push('body'))
          out.push({item, record, attrs, undecoded: undecoded.length > 0, resource})
        }
        item++
      }
    }
  }
  return out
}

const idKey = (traceId: unknown, spanId: unknown): string | null =>
  typeof traceId === 'string' && typeof spanId === 'string' && traceId !== '' && spanId !== '' ? `${traceId.toLowerCase()}:${spanId.toLowerCase()}` : null

function isGenAiSpan(attrs: Obj): boolean {
  const op = attrs['gen_ai.operation.name']
  if (typeof op === 'string') return GENAI_OPERATIONS.has(op)
  return typeof attrs['gen_ai.request.model'] === 'string' || 'gen_ai.input.messages' in attrs || 'gen_ai.prompt.0.content' in attrs
}

/** An OpenInference LLM span (Arize Phoenix and the OpenInference instrumentations): span kind LLM, or its message attributes. */
function isOpenInferenceLlmSpan(attrs: Obj): boolean {
  const kind = attrs['openinference.span.kind']
  if (typeof kind === 'string') return kind.toUpperCase() === 'LLM'
  for (const k in attrs) if (k.startsWith('llm.input_messages.') || k.startsWith('llm.output_messages.')) return true
  return false
}

/**
 * The Vercel AI SDK's provider-call span (ai.generateText.doGenerate, ai.streamText.doStream, ...),
 * by its ai.operationId: the SDK's releases before the gen_ai.* attributes wrote only ai.*.
 */
function isVercelCallSpan(attrs: Obj): boolean {
  const op = attrs['ai.operationId']
  return typeof op === 'string' && /^ai\.\w+\.do(Generate|Stream)$/.test(op)
}

/** An older OpenLLMetry (Traceloop) LLM span: llm.request.type, llm.prompts.N.* / llm.completions.N.* attributes. */
function isOldOpenLlmetrySpan(attrs: Obj): boolean {
  // Its embedding and rerank spans carry the same attribute and no answer.
  const type = attrs['llm.request.type']
  if (typeof type === 'string') return type === 'chat' || type === 'completion' || LITELLM_CALL_TYPES.has(type)
  for (const k in attrs) if (/^llm\.(prompts|completions)\.\d+\./.test(k)) return true
  return false
}

/** A span this adapter reads as one model call: a GenAI span, an OpenInference LLM span, an AI SDK provider call, or an older OpenLLMetry one. */
function isCallSpan(attrs: Obj): boolean {
  return isGenAiSpan(attrs) || isOpenInferenceLlmSpan(attrs) || isVercelCallSpan(attrs) || isOldOpenLlmetrySpan(attrs)
}

/**
 * The convention of an item not read as a model call that still carries model input or output
 * text (a chain, agent, workflow or tool span; a wrapper of the AI SDK's calls; a GenAI agent
 * span), or null. Such an item is counted, never silently ignored: where no model call of its
 * trace is read, its texts are not judged anywhere (see unreadItems in adapt).
 */
export function unreadConventionOf(attrs: Obj): string | null {
  let found: string | null = null
  for (const k in attrs) {
    const v = attrs[k]
    if (v === undefined || v === null || v === '') continue
    const label = CONTENT_KEYS.find(([test]) => test(k))?.[1]
    if (label === undefined) continue
    found = label
    break
  }
  return found
}

/** Attribute keys that hold a model's answer text, in any of the conventions above. */
const ANSWER_KEY = /^(output\.value|llm\.(output_messages|completions?|choices)\..*|ai\.response\.(text|object|toolCalls|reasoning)|traceloop\.entity\.output|gen_ai\.(output\.messages|completion|content\.(completion|reasoning))(\..*)?)$/

/** Whether an item carries answer text (not empty, not a placeholder: redaction.ts). */
function carriesAnswerText(attrs: Obj): boolean {
  for (const k in attrs) {
    const v = attrs[k]
    if (v === undefined || v === null || v === '' || isPlaceholder(v)) continue
    if (ANSWER_KEY.test(k)) return true
  }
  return false
}

/** Attribute keys that hold model input or output text in the LLM conventions a span may use, and the convention's name. */
const CONTENT_KEYS: ReadonlyArray<readonly [(key: string) => boolean, string]> = [
  [(k) => /^llm\.(prompts|completions)\.\d+\./.test(k), 'OpenLLMetry (llm.prompts/llm.completions)'],
  [(k) => k === 'input.value' || k === 'output.value' || /^llm\.(input_messages|output_messages|prompts?|completions?|messages|choices)(\.|$)/.test(k), 'OpenInference'],
  [(k) => /^ai\.(prompt|response\.(text|object|toolCalls))(\.|$)/.test(k), 'Vercel AI SDK'],
  [(k) => k === 'traceloop.entity.input' || k === 'traceloop.entity.output', 'Traceloop (OpenLLMetry)'],
  [(k) => /^gen_ai\.(input\.messages|output\.messages|prompt|completion|system_instructions|content\.(prompt|completion|reasoning))(\.|$)/.test(k), 'GenAI'],
]

/** The last part of an attribute key that labels a text instead of holding one (a message's role, a part's type). */
const LABEL_SEGMENT = /\.(role|type|id|finish_reason|tool_call_id|mime_type)$/

/** A span whose output is what the model is given (a tool's result, retrieved documents), not an answer. */
function givesTheModel(attrs: Obj): boolean {
  const kind = attrs['openinference.span.kind']
  return (typeof kind === 'string' && /^(tool|retriever|embedding|reranker)$/i.test(kind)) || attrs['traceloop.span.kind'] === 'tool' || attrs['gen_ai.operation.name'] === 'execute_tool'
}

/** The texts a span read as no call carries, in whichever convention, each attribute's strings as they are logged. */
function wrapperTextsOf(attrs: Obj): WrapperTexts {
  const texts: WrapperTexts = {prompt: [], answer: []}
  const toPrompt = givesTheModel(attrs)
  for (const k in attrs) {
    if (LABEL_SEGMENT.test(k) || !CONTENT_KEYS.some(([test]) => test(k))) continue
    texts[toPrompt || !ANSWER_KEY.test(k) ? 'prompt' : 'answer'].push(...textLeaves(attrs[k]))
  }
  return texts
}

/** The keys a span's GenAI span-event texts are given under for unreadConventionOf, carriesAnswerText and wrapperTextsOf. */
const EVENT_PROMPT_KEY = 'gen_ai.prompt.span_events'
const EVENT_ANSWER_KEY = 'gen_ai.completion.span_events'
/** An event attribute that labels a GenAI event (its index, its reason to stop, the system) and holds no text. */
const EVENT_LABEL_KEYS = new Set(['index', 'finish_reason', 'role', 'gen_ai.system', 'gen_ai.provider.name', 'event.name'])

/**
 * The GenAI texts a span carries in its span events (gen_ai.content.prompt / completion, the
 * message events and gen_ai.choice, gen_ai.client.inference.operation.details), as two
 * attributes: input texts under EVENT_PROMPT_KEY, answer texts under EVENT_ANSWER_KEY, each the
 * events' attribute values as logged (any form: a text in an attribute not read as a call's is
 * still a text). A span not read as a call is judged by its attributes and these together: an
 * invoke_agent span whose answer is in a gen_ai.choice event is counted as unread as one with
 * gen_ai.output.messages is, never dropped.
 */
function eventTextAttributes(span: Obj): Obj {
  const prompt: unknown[] = []
  const answer: unknown[] = []
  for (const e of arr(span.events)) {
    if (!isObj(e) || typeof e.name !== 'string') continue
    const name = e.name
    const genai = name === DETAILS_EVENT || name === 'gen_ai.content.prompt' || name === 'gen_ai.content.completion' || name in MESSAGE_EVENTS || name === 'gen_ai.choice'
    if (!genai) continue
    const attrs = attrsOf(e.attributes)
    for (const [k, v] of Object.entries(attrs)) {
      if (EVENT_LABEL_KEYS.has(k) || v === undefined || v === null || v === '') continue
      const isAnswer = name === 'gen_ai.choice' || name === 'gen_ai.content.completion' || (name === DETAILS_EVENT && k === 'gen_ai.output.messages')
      ;(isAnswer ? answer : prompt).push(v)
    }
  }
  const out: Obj = {}
  if (textLeaves(prompt).length > 0) out[EVENT_PROMPT_KEY] = prompt
  if (textLeaves(answer).length > 0) out[EVENT_ANSWER_KEY] = answer
  return out
}

/** A span's attributes with the GenAI texts of its span events (eventTextAttributes), as an item not read as a call is judged by. */
const withEventTexts = (attrs: Obj, span: Obj): Obj => ({...attrs, ...eventTextAttributes(span)})

/** SPAN_KIND_SERVER, as the enum's number or (some exporters) its name. */
function isServerSpan(span: Obj): boolean {
  return span.kind === 2 || span.kind === '2' || span.kind === 'SPAN_KIND_SERVER'
}

function eventNameOf(log: LogView): string | null {
  const n = log.record.eventName ?? log.attrs['event.name']
  return typeof n === 'string' && n !== '' ? n : null
}

const isGenAiEvent = (name: string | null): boolean => name !== null && (name === DETAILS_EVENT || name in MESSAGE_EVENTS || name === 'gen_ai.choice')

// ------------------------------------------------------------------ the companion index

interface IndexedSpan {
  /** The line the span is on. */
  at: LinePosition
  parent: string | null
  genai: boolean
  /** SPAN_KIND_SERVER: the span of a request this service received */
  server: boolean
  /** Only the attributes a lookup needs: session and tenant keys, and the HTTP status and path. */
  attrs: Obj
  resource: Obj
}

interface IndexedEvent {
  at: LinePosition
  name: string
  body: unknown
  attrs: Obj
  timeNs: string | null
  /** Its body or an attribute held bytes that are no UTF-8 text. */
  undecoded: boolean
}

/** A GenAI event's name, body and attributes, from a log record or a span event. */
type GenAiEvent = Pick<IndexedEvent, 'name' | 'body' | 'attrs'>

interface LogGroup {
  first: {file: string; line: number; item: number}
  events: IndexedEvent[]
  resource: Obj
}

export interface OtelIndex extends CompanionIndex {
  span(key: string): IndexedSpan | undefined
  logs(key: string): LogGroup | undefined
  /** Whether a model call of this trace (a span read as one, or GenAI log records) is among the lines given. */
  hasCall(traceId: unknown): boolean
  /** Whether such a call holds answer text (on its span, or GenAI log records of the trace): not hidden, not left out. */
  hasAnswer(traceId: unknown): boolean
  /** The call of the trace its wrappers' texts are read with (wrapper-texts.ts lastCall); null where it has none. */
  target(traceId: unknown): CallRef | null
  /** The trace's spans that are no call and carry an answer text, in the order of their keys. */
  wrappers(traceId: unknown): readonly WrapperSpan[]
  wrapper(key: string): WrapperSpan | undefined
  /** The calls (span or log-record keys, first line each) that give this gen_ai.response.id. */
  sharers(responseId: string): readonly ResponseIdUse[]
  /** Every gen_ai.response.id a call of the lines given gives. */
  responseIds(): string[]
  /**
   * A record an earlier ingest stored under this gen_ai.response.id alone (no tenant and session
   * added), for this tenant and session: a call for them that gives the id is a retry of it, and
   * keeps the id alone (recordIdentity), whatever other calls of other ingests give it.
   */
  noteStoredRecord(responseId: string, recipient: {tenant: string | null; session: string | null}): void
  storedRecords(responseId: string): ReadonlyArray<{tenant: string | null; session: string | null}>
}

/** A call that gives a gen_ai.response.id: its key (trace:span) and the line it is first on. */
interface ResponseIdUse {
  key: string
  at: LinePosition
}

/** A model call of a trace: its span's key, when it ended (ns), the lines it is read from. */
interface CallRef {
  key: string
  end: number
  lines: LinePosition[]
}

/** A span read as no call that carries model texts (a chain, agent, workflow, tool), as a lookup and a wrapper's reading need it. */
interface WrapperSpan {
  key: string
  at: LinePosition
  parent: string | null
  attrs: Obj
  resource: Obj
  /** The convention of its texts, as unread items are counted by. */
  convention: string
  texts: WrapperTexts
}

function newOtelIndex(options: FormatOptions): OtelIndex {
  const spans = new Map<string, IndexedSpan>()
  const groups = new Map<string, LogGroup>()
  const callTraces = new Set<string>()
  const answerTraces = new Set<string>()
  const calls = new Map<string, Map<string, CallRef>>()
  const wrappers = new Map<string, WrapperSpan[]>()
  const wrapperByKey = new Map<string, WrapperSpan>()
  const byResponseId = new Map<string, ResponseIdUse[]>()
  const stored = new Map<string, Array<{tenant: string | null; session: string | null}>>()
  const addResponseId = (v: unknown, key: string, at: LinePosition): void => {
    const id = strOrNull(v)
    if (id === null) return
    const list = byResponseId.get(id) ?? []
    if (!list.some((u) => u.key === key)) list.push({key, at})
    byResponseId.set(id, list)
  }
  const addCall = (traceId: unknown, key: string, end: number, at: LinePosition): void => {
    const trace = String(traceId).toLowerCase()
    const ofTrace = calls.get(trace) ?? new Map<string, CallRef>()
    calls.set(trace, ofTrace)
    const c = ofTrace.get(key) ?? {key, end, lines: []}
    // The latest time any line gives, so the same lines in any order give the same.
    c.end = Math.max(c.end, end)
    if (!c.lines.some((p) => p.file === at.file && p.line === at.line)) c.lines.push(at)
    ofTrace.set(key, c)
  }
  const keep = new Set<string>([...SESSION_KEYS, ...options.tenantAttributes, ...STATUS_KEYS, ...PATH_KEYS])
  const slim = (attrs: Obj): Obj => {
    const out: Obj = {}
    for (const k of keep) if (attrs[k] !== undefined) out[k] = attrs[k]
    return out
  }
  return {
    add(value: unknown, at: LinePosition) {
      if (!isObj(value)) return
      for (const s of spansOf(value)) {
        const key = idKey(s.span.traceId, s.span.spanId)
        if (key === null || spans.has(key)) continue
        const parent = idKey(s.span.traceId, s.span.parentSpanId)
        const call = isCallSpan(s.attrs)
        if (call) callTraces.add(String(s.span.traceId).toLowerCase())
        if (call && hasAnswerText(s)) answerTraces.add(String(s.span.traceId).toLowerCase())
        if (call) addCall(s.span.traceId, key, nanosOf(s.span.endTimeUnixNano ?? s.span.startTimeUnixNano), at)
        if (call) addResponseId(s.attrs['gen_ai.response.id'], key, at)
        else {
          const withEvents = withEventTexts(s.attrs, s.span)
          const convention = unreadConventionOf(withEvents)
          const texts = convention === null ? null : wrapperTextsOf(withEvents)
          // Only an answer is read from a wrapper (readWrappers), its input with it.
          if (convention !== null && texts !== null && texts.answer.length > 0) {
            const w: WrapperSpan = {key, at, parent, attrs: slim(s.attrs), resource: slim(s.resource), convention, texts}
            const trace = String(s.span.traceId).toLowerCase()
            const list = wrappers.get(trace) ?? []
            list.push(w)
            list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
            wrappers.set(trace, list)
            wrapperByKey.set(key, w)
          }
        }
        spans.set(key, {at, parent, genai: call, server: isServerSpan(s.span), attrs: slim(s.attrs), resource: slim(s.resource)})
      }
      for (const l of logsOf(value)) {
        const name = eventNameOf(l)
        if (!isGenAiEvent(name)) continue
        const key = idKey(l.record.traceId, l.record.spanId)
        if (key === null) continue
        callTraces.add(String(l.record.traceId).toLowerCase())
        answerTraces.add(String(l.record.traceId).toLowerCase())
        let g = groups.get(key)
        if (!g) {
          g = {first: {file: at.file, line: at.line, item: l.item}, events: [], resource: slim(l.resource)}
          groups.set(key, g)
        }
        g.events.push(eventOf(l, name!, at))
        addResponseId(l.attrs['gen_ai.response.id'], key, at)
        addCall(l.record.traceId, key, nanosOf(logRecordTime(l.record)), at)
      }
    },
    span: (key) => spans.get(key),
    logs: (key) => groups.get(key),
    hasCall: (traceId) => typeof traceId === 'string' && traceId !== '' && callTraces.has(traceId.toLowerCase()),
    hasAnswer: (traceId) => typeof traceId === 'string' && traceId !== '' && answerTraces.has(traceId.toLowerCase()),
    target: (traceId) => (typeof traceId === 'string' && traceId !== '' ? lastCall(calls.get(traceId.toLowerCase())?.values() ?? []) : null),
    wrappers: (traceId) => (typeof traceId === 'string' && traceId !== '' ? (wrappers.get(traceId.toLowerCase()) ?? []) : []),
    wrapper: (key) => wrapperByKey.get(key),
    sharers: (responseId) => byResponseId.get(responseId) ?? [],
    responseIds: () => [...byResponseId.keys()],
    noteStoredRecord: (responseId, recipient) => {
      const list = stored.get(responseId) ?? []
      list.push(recipient)
      stored.set(responseId, list)
    },
    storedRecords: (responseId) => stored.get(responseId) ?? [],
  }
}

/**
 * Whether a call span's content has an answer. A content that gives a key twice has none that can
 * be read (its line is refused as it is adapted): the wrappers of its trace then count as unread.
 */
function hasAnswerText(s: SpanView): boolean {
  try {
    return holdsAnswer(spanContent(s.span, s.attrs, undefined))
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false
    throw error
  }
}

/** A time in nanoseconds as a number (to order calls; the last digits may round), unknown before every known time. */
function nanosOf(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN
  return Number.isFinite(n) && n > 0 ? n : Number.NEGATIVE_INFINITY
}

/**
 * A log record's time: timeUnixNano, or where that is unset (absent, or 0 as OTLP writes
 * "unset") the observedTimeUnixNano the collector stamped, as OTLP says to use.
 */
function logRecordTime(record: {timeUnixNano?: unknown; observedTimeUnixNano?: unknown}): unknown {
  const t = record.timeUnixNano
  return t === undefined || t === null || t === '' || t === '0' || t === 0 ? record.observedTimeUnixNano : t
}

function eventOf(l: LogView, name: string, at: LinePosition): IndexedEvent {
  const t = logRecordTime(l.record)
  return {at, name, body: unwrapAnyValue(l.record.body), attrs: l.attrs, timeNs: t === undefined || t === null ? null : String(t), undecoded: l.undecoded}
}

// ------------------------------------------------------------------ content

interface Content {
  input: unknown[] | null
  /** A prompt that is not a message list (plain text). */
  promptText: string | null
  output: unknown[] | null
  completionText: string | null
  /** The source wrote OpenInference's placeholder (__REDACTED__) in place of the prompt's / the answer's text. */
  redactedInput?: boolean
  redactedOutput?: boolean
  /** Shapes the response decoder does not read in an answer kept as a stream's text (readStreamTexts). */
  streamUnread?: string[]
  /** The error an answer kept as a stream's text ended with (readStreamTexts). */
  streamError?: string
}

const emptyContent = (): Content => ({input: null, promptText: null, output: null, completionText: null})

/** Whether a span's content holds answer text: an answer that is only a placeholder (redaction.ts) holds none. */
function holdsAnswer(c: Content): boolean {
  if (c.output === null && c.completionText === null) return false
  return placeholderBody(completionFromMessages(c.output ?? [{role: 'assistant', content: c.completionText}]), 'response') === null
}

const isOiRedacted = (v: unknown): boolean => typeof v === 'string' && v.trim() === OPENINFERENCE_REDACTED


function messagesValue(v: unknown): unknown[] | string | null {
  const parsed = jsonStringLiteral(parseJsonText(v))
  if (Array.isArray(parsed)) return parsed
  if (typeof parsed === 'string' && parsed !== '') return parsed
  return null
}

/**
 * A text that is a JSON string literal (`"\"\""`, `"\"hi\""`: a value JSON-encoded as the
 * attribute's value) as the string it encodes, so an empty one is no text, not the two quote
 * marks read as an answer; any other value as it is.
 */
function jsonStringLiteral(v: unknown): unknown {
  if (typeof v !== 'string') return v
  const t = v.trim()
  if (t.length < 2 || !t.startsWith('"') || !t.endsWith('"')) return v
  try {
    const inner = JSON.parse(t) as unknown
    return typeof inner === 'string' ? inner : v
  } catch {
    return v // quoted text, not a JSON string
  }
}

/**
 * A streamed answer kept as its SSE or NDJSON text where an answer's text belongs (a gateway's
 * body copied into gen_ai.completion.N.content, gen_ai.output.messages, an output message's text
 * part, a span event's message or OpenInference's output.value) is read as the stream it is
 * (stream-texts.ts, as the response decoder reads such a body in a native line), so a marker
 * split across two chunks is whole; read as plain text, it would be missed (the gate passing)
 * and its pieces taken for markers registered to nobody. What the decoder does not read in the
 * stream, and the error it ended with, are kept for the record.
 */
function readStreamTexts(c: Content): Content {
  const found = noStreamsFound()
  if (c.completionText !== null) c.completionText = readStreamText(c.completionText, found)
  if (c.output !== null) c.output = c.output.map((m) => withStreamTexts(m, found))
  for (const shape of found.unread) if (!(c.streamUnread ??= []).includes(shape)) c.streamUnread.push(shape)
  if (found.error !== null && c.streamError === undefined) c.streamError = found.error
  return c
}

/** gen_ai.input.messages / gen_ai.output.messages / gen_ai.system_instructions from a bag of attributes. */
function fromMessageAttributes(attrs: Obj, into: Content): void {
  const input = messagesValue(attrs['gen_ai.input.messages'])
  if (input !== null && into.input === null && into.promptText === null) {
    const system = messagesValue(attrs['gen_ai.system_instructions'])
    const lead = Array.isArray(system) && system.length > 0 ? [{role: 'system', parts: system}] : []
    if (Array.isArray(input)) into.input = [...lead, ...input]
    else into.promptText = input
  }
  const output = messagesValue(attrs['gen_ai.output.messages'])
  if (output !== null && into.output === null && into.completionText === null) {
    if (Array.isArray(output)) into.output = output
    else into.completionText = output
  }
}

/**
 * The GenAI texts a span's events carry, one Content per form (merged with the span's other
 * forms by mergeContents, so a text in any of them is read): each
 * gen_ai.client.inference.operation.details event; the v1.26 gen_ai.content.prompt {gen_ai.prompt}
 * and gen_ai.content.completion {gen_ai.completion} events; and the v1.27-v1.36 message events
 * (gen_ai.system / user / assistant / tool.message, gen_ai.choice) written as span events rather
 * than log records, read as the log records are (fromLogEvents).
 */
function fromSpanEvents(span: Obj): Content[] {
  const out: Content[] = []
  const messageEvents: GenAiEvent[] = []
  for (const e of arr(span.events)) {
    if (!isObj(e) || typeof e.name !== 'string') continue
    const attrs = attrsOf(e.attributes)
    const c = emptyContent()
    if (e.name === DETAILS_EVENT) fromMessageAttributes(attrs, c)
    else if (e.name === 'gen_ai.content.prompt') {
      const v = messagesValue(attrs['gen_ai.prompt'])
      if (Array.isArray(v)) c.input = v
      else if (typeof v === 'string') c.promptText = v
    } else if (e.name === 'gen_ai.content.completion') {
      const v = messagesValue(attrs['gen_ai.completion'])
      if (Array.isArray(v)) c.output = v
      else if (typeof v === 'string') c.completionText = v
    } else if (e.name in MESSAGE_EVENTS || e.name === 'gen_ai.choice') {
      messageEvents.push({name: e.name, body: spanEventBody(attrs), attrs})
      continue
    } else continue
    out.push(c)
  }
  if (messageEvents.length > 0) {
    const c = emptyContent()
    fromLogEvents(messageEvents, c)
    out.push(c)
  }
  return out
}

/**
 * The body of a GenAI event written as a span event, which has attributes but no body: the JSON
 * object in gen_ai.event.content where there is one (Azure AI Inference's tracing writes the
 * whole body there; a plain text there is the message's content), else the attributes
 * themselves ({index, finish_reason, message} of a gen_ai.choice, {role, content} of a message
 * event), with a message or tool calls given as JSON text parsed.
 */
function spanEventBody(attrs: Obj): Obj {
  const packed = parseJsonText(attrs['gen_ai.event.content'])
  const body: Obj = isObj(packed) ? {...packed} : {...attrs}
  if (typeof packed === 'string' && packed !== '' && body.content === undefined) body.content = packed
  for (const k of ['message', 'tool_calls'] as const) if (body[k] !== undefined) body[k] = parseJsonText(body[k])
  return body
}

/**
 * The members of an indexed message (gen_ai.completion.N.*) read as such, or known to hold no text:
 * its role, content and finish reason, and Azure's content filter verdicts (content_filter_results,
 * a JSON text of verdicts); an answer's tool_call_id (an id). The tool calls, function call, refusal, reasoning and tool call id are
 * read by fromIndexedAttributes; any other member is kept on the message under its attribute's
 * name, so decode.ts, which reads an answer's message closed-world, names it as not read.
 */
const INDEXED_READ = new Set(['role', 'content', 'finish_reason', 'content_filter_results'])

/**
 * OpenLLMetry-style indexed attributes: gen_ai.prompt.N.*, gen_ai.completion.N.*; with prefix
 * `llm.`, the same shape as its older releases wrote it (llm.prompts.N.*, llm.completions.N.*).
 */
function fromIndexedAttributes(attrs: Obj, into: Content, prefix: 'gen_ai' | 'llm' = 'gen_ai'): void {
  const pattern = prefix === 'gen_ai' ? /^gen_ai\.(prompt|completion)\.(\d+)\.(.+)$/ : /^llm\.(prompt|completion)s\.(\d+)\.(.+)$/
  const prompts = new Map<number, Obj>()
  const completions = new Map<number, Obj>()
  for (const [key, value] of Object.entries(attrs)) {
    const m = pattern.exec(key)
    if (!m) continue
    const bucket = m[1] === 'prompt' ? prompts : completions
    const n = Number(m[2])
    const entry = bucket.get(n) ?? {}
    entry[m[3]!] = value
    bucket.set(n, entry)
  }
  const toMessage = (e: Obj, role: string, n: number): Obj => {
    const msg: Obj = {role: typeof e.role === 'string' ? e.role : role, content: typeof e.content === 'string' ? contentFromAttribute(e.content) : null}
    const calls = new Map<number, Obj>()
    const legacy: Obj = {}
    for (const [k, v] of Object.entries(e)) {
      const t = /^tool_calls\.(\d+)\.(id|name|arguments|type)$/.exec(k)
      const f = /^function_call\.(name|arguments)$/.exec(k)
      if (t) {
        const call = calls.get(Number(t[1])) ?? {}
        call[t[2]!] = v
        calls.set(Number(t[1]), call)
      } else if (f) legacy[f[1]!] = v
      else if (k === 'refusal' || k === 'reasoning_content' || (k === 'tool_call_id' && role === 'user')) msg[k] = v
      else if (!INDEXED_READ.has(k) && k !== 'tool_call_id') msg[`${prefix}.${role === 'user' ? 'prompt' : 'completion'}${prefix === 'llm' ? 's' : ''}.${n}.${k}`] = v
    }
    if (calls.size > 0) {
      msg.tool_calls = [...calls.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, c]) => ({id: strOrNull(c.id), type: 'function', function: {name: strOrNull(c.name) ?? '', arguments: argumentsText(c.arguments)}}))
    }
    // The legacy functions API's call (OpenLLMetry writes {prefix}.function_call.name / .arguments).
    if (Object.keys(legacy).length > 0) {
      const call = {name: strOrNull(legacy.name) ?? '', arguments: argumentsText(legacy.arguments)}
      // An answer's is read as decode.ts reads message.function_call; a prompt's (the caller replaying
      // its history) as a tool call, whose arguments are request text.
      if (role === 'user') msg.tool_calls = [...((msg.tool_calls as unknown[] | undefined) ?? []), {id: null, type: 'function', function: call}]
      else msg.function_call = call
    }
    if (e.finish_reason !== undefined) msg.finish_reason = e.finish_reason
    return msg
  }
  const ordered = (m: Map<number, Obj>, role: string) => [...m.entries()].sort((a, b) => a[0] - b[0]).map(([n, e]) => toMessage(e, role, n))
  if (prompts.size > 0 && into.input === null && into.promptText === null) into.input = ordered(prompts, 'user')
  if (completions.size > 0 && into.output === null && into.completionText === null) into.output = ordered(completions, 'assistant')
}

/** Log-record events (the JS and Python OpenAI instrumentations), in the order they were written; span events of the same names too. */
function fromLogEvents(events: readonly GenAiEvent[], into: Content): void {
  const input: unknown[] = []
  const choices: {index: number; message: unknown}[] = []
  for (const e of events) {
    if (e.name === DETAILS_EVENT) {
      fromMessageAttributes(e.attrs, into)
      if (isObj(e.body)) fromMessageAttributes(e.body, into)
      continue
    }
    const body: Obj = isObj(e.body) ? e.body : {}
    const role = MESSAGE_EVENTS[e.name]
    if (role !== undefined) {
      const packed = messageObject(body.content)
      const m: Obj = packed !== null ? withRole(packed, typeof body.role === 'string' ? body.role : role) : {role: typeof body.role === 'string' ? body.role : role, content: body.content ?? null}
      if (Array.isArray(body.tool_calls)) m.tool_calls = body.tool_calls
      input.push(m)
    } else if (e.name === 'gen_ai.choice') {
      // The answer is under message (the conventions' v1.27-v1.36 body), else under content:
      // Google ADK writes {index, finish_reason, content: {role: 'model', parts: [{text}]}},
      // LiveKit Agents and others the text itself. Where a body gives both, both are read (the
      // content a further choice at the same index), and the body is read closed-world, as a
      // chat choice is (choiceMembers).
      const has = (v: unknown): boolean => v !== undefined && v !== null
      const index = typeof body.index === 'number' ? body.index : choices.length
      const given = [has(body.message) ? body.message : null, has(body.content) ? body.content : null].filter(has)
      if (given.length === 0) given.push(undefined)
      const seen = new Set<string>()
      given.forEach((g, i) => {
        const message = {...choiceMessage(g), finish_reason: body.finish_reason ?? null}
        // A content that says what the message says is that text, read once.
        const said = textsOf([message])
        if (i > 0 && seen.has(said)) return
        seen.add(said)
        if (i === 0) choiceMembers(body, message)
        choices.push({index, message})
      })
    }
  }
  if (input.length > 0 && into.input === null && into.promptText === null) into.input = input
  if (choices.length > 0 && into.output === null && into.completionText === null) {
    into.output = choices.sort((a, b) => a.index - b.index).map((c) => c.message)
  }
}

/** A gen_ai.choice body's message or content as an assistant message. */
function choiceMessage(given: unknown): Obj {
  const packed = messageObject(given)
  const message: Obj = packed !== null ? withRole(packed, 'assistant') : isObj(given) ? {role: 'assistant', ...given} : {role: 'assistant', content: typeof given === 'string' ? given : null}
  if (message.content === undefined && !Array.isArray(message.parts)) message.content = null
  return message
}

/**
 * A gen_ai.choice body's members read (its message and content, and a `text` beside them, as a
 * chat choice's is) or known to hold no text: its index and finish reason, a chat choice's other
 * no-text members (logprobs, the answer's own tokens; content filter verdicts), and, on a span
 * event whose attributes are the body, the labels an instrumentation adds (the system, the
 * provider, the event's name, Azure's gen_ai.event.content, read as the body).
 */
const CHOICE_BODY_KNOWN = new Set([
  'message', 'content', 'text', 'index', 'finish_reason', 'native_finish_reason', 'logprobs', 'stop_reason', 'content_filter_results',
  'gen_ai.system', 'gen_ai.provider.name', 'event.name', 'gen_ai.event.content', 'role',
])

/**
 * A gen_ai.choice body read closed-world, as decode.ts reads a chat choice: a `text` beside its
 * message is answer text (read where it says something else, as a text part of the message);
 * any other member that holds a string is kept on the message under `gen_ai.choice.NAME`, which
 * decode.ts, reading the answer's message closed-world, names as not read (`chat message member
 * "gen_ai.choice.x"`), so the record is not read whole.
 */
function choiceMembers(body: Obj, message: Obj): void {
  const text = typeof body.text === 'string' && body.text !== '' && ((body.message !== undefined && body.message !== null) || (body.content !== undefined && body.content !== null)) ? body.text : null
  if (text !== null && textsOf([message]).trim() !== text.trim()) {
    if (Array.isArray(message.parts)) message.parts = [...message.parts, {type: 'text', content: text}]
    else {
      const before = message.content
      const lead = typeof before === 'string' && before !== '' ? [{type: 'text', text: before}, {type: 'text', text: '\n'}] : Array.isArray(before) ? [...before, {type: 'text', text: '\n'}] : []
      message.content = [...lead, {type: 'text', text}]
    }
  } else if (typeof body.text === 'string' && body.text !== '' && text === null) {
    // The body's only text: its answer (a body with neither message nor content).
    if (message.content === null && !Array.isArray(message.parts)) message.content = body.text
  }
  for (const [k, v] of Object.entries(body)) if (!CHOICE_BODY_KNOWN.has(k) && textLeaves(v).length > 0) message[`gen_ai.choice.${k}`] = v
}

/**
 * A message given as an event body's content or message: an object (a parts message {role,
 * parts}, Gemini's and ADK's Content; or an OpenAI message {role, content}), or a JSON text of
 * one (a span event's attribute holds it as text); null for anything else (a text is a text).
 */
function messageObject(v: unknown): Obj | null {
  const parsed = typeof v === 'string' ? parseJsonText(v) : v
  if (!isObj(parsed)) return null
  if (Array.isArray(parsed.parts) || ('role' in parsed && 'content' in parsed)) return parsed
  return null
}

/** A message with its role, Gemini's 'model' read as the assistant's, the event's role where it gives none. */
function withRole(m: Obj, fallback: string): Obj {
  const role = typeof m.role === 'string' && m.role !== '' ? (m.role === 'model' ? 'assistant' : m.role) : fallback
  return {...m, role}
}

/**
 * OpenInference's flattened messages: `llm.input_messages.N.message.{role, content, name,
 * tool_call_id}`, `.message.contents.M.message_content.{type, text}` and
 * `.message.tool_calls.J.tool_call.{id, function.name, function.arguments}`, as OpenAI messages in
 * the order of N; null where there is none.
 */
function openInferenceMessages(attrs: Obj, list: 'llm.input_messages' | 'llm.output_messages', seen: Content): Obj[] | null {
  const prefix = `${list}.`
  const messages = new Map<number, {fields: Obj; parts: Map<number, Obj>; calls: Map<number, Obj>}>()
  for (const [key, value] of Object.entries(attrs)) {
    if (!key.startsWith(prefix)) continue
    const m = /^(\d+)\.message\.(.+)$/.exec(key.slice(prefix.length))
    if (!m) continue
    if (isOiRedacted(value)) {
      if (list === 'llm.input_messages') seen.redactedInput = true
      else seen.redactedOutput = true
      continue
    }
    const n = Number(m[1])
    let entry = messages.get(n)
    if (!entry) messages.set(n, (entry = {fields: {}, parts: new Map(), calls: new Map()}))
    const field = m[2]!
    const part = /^contents\.(\d+)\.message_content\.(.+)$/.exec(field)
    const call = /^tool_calls\.(\d+)\.tool_call\.(.+)$/.exec(field)
    const into = part ? entry.parts : call ? entry.calls : null
    if (into === null) {
      entry.fields[field] = value
      continue
    }
    const at = Number((part ?? call)![1])
    const bag = into.get(at) ?? {}
    bag[(part ?? call)![2]!] = value
    into.set(at, bag)
  }
  if (messages.size === 0) return null
  const ordered = <T>(m: Map<number, T>): T[] => [...m.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)
  const out = [...messages.entries()].sort((a, b) => a[0] - b[0]).map(([index, {fields, parts, calls}]) => {
    const msg: Obj = {role: strOrNull(fields.role) ?? (list === 'llm.input_messages' ? 'user' : 'assistant')}
    // Every part that carries text is read: "text", and "reasoning" (the thinking OpenInference's
    // Anthropic and OpenAI instrumentations record) or any other type with text.
    const texts = ordered(parts).filter((p) => typeof p.text === 'string' && p.text !== '').map((p) => ({type: 'text', text: p.text as string}))
    // The message's content and its contents parts both, where both are given and say different things.
    const whole = typeof fields.content === 'string' ? fields.content : null
    const partsText = texts.map((t) => t.text).join('')
    msg.content = whole !== null && (texts.length === 0 || partsText === whole) ? whole : whole !== null ? [{type: 'text', text: whole}, {type: 'text', text: '\n'}, ...texts] : texts.length > 0 ? texts : null
    if (typeof fields.name === 'string') msg.name = fields.name
    if (typeof fields.tool_call_id === 'string') msg.tool_call_id = fields.tool_call_id
    if (calls.size > 0) {
      msg.tool_calls = ordered(calls).map((c) => ({id: strOrNull(c.id), type: 'function', function: {name: strOrNull(c['function.name']) ?? '', arguments: argumentsText(c['function.arguments'])}}))
    }
    // The legacy functions API's call: message.function_call_name, message.function_call_arguments_json.
    if (fields.function_call_name !== undefined || fields.function_call_arguments_json !== undefined) {
      msg.function_call = {name: strOrNull(fields.function_call_name) ?? '', arguments: argumentsText(fields.function_call_arguments_json)}
    }
    // Any other member of the message, a part or a call is kept under its attribute's name, so
    // decode.ts, which reads an answer closed-world, names it as not read.
    const n = `${list}.${index}.message`
    for (const [k, v] of Object.entries(fields)) if (!OI_MESSAGE_READ.has(k) && typeof v === 'string' && v !== '') msg[`${n}.${k}`] = v
    for (const [i, p] of parts) {
      // An image part's image.image.url is the image (a data URL or an address): no text.
      for (const [k, v] of Object.entries(p)) if (k !== 'type' && k !== 'text' && k !== 'image.image.url' && typeof v === 'string' && v !== '') msg[`${n}.contents.${i}.message_content.${k}`] = v
    }
    for (const [j, c] of calls) for (const [k, v] of Object.entries(c)) if (k !== 'id' && k !== 'function.name' && k !== 'function.arguments' && typeof v === 'string' && v !== '') msg[`${n}.tool_calls.${j}.tool_call.${k}`] = v
    return msg
  })
  // A message left with nothing once its redacted values are dropped is no message.
  const kept = out.filter((m) => m.content !== null || Object.keys(m).some((k) => k !== 'role' && k !== 'content' && k !== 'name' && k !== 'tool_call_id'))
  return kept.length === 0 ? null : kept
}

/** An OpenInference message's members read (openInferenceMessages), its contents and tool calls apart. */
const OI_MESSAGE_READ = new Set(['role', 'content', 'name', 'tool_call_id', 'function_call_name', 'function_call_arguments_json'])

const isJsonMime = (v: unknown): boolean => typeof v === 'string' && /^application\/json\b/i.test(v.trim())

/**
 * OpenInference's `input.value` / `output.value`: with mime type application/json and the body
 * of an OpenAI chat (or completions) request or response, read as that body; any other value as
 * plain text (a JSON text that is no such body is still text a marker can be found in).
 */
function fromOpenInferenceValues(attrs: Obj, into: Content): void {
  if (isOiRedacted(attrs['input.value'])) into.redactedInput = true
  if (isOiRedacted(attrs['output.value'])) into.redactedOutput = true
  const input = isOiRedacted(attrs['input.value']) ? null : strOrNull(attrs['input.value'])
  if (input !== null && into.input === null && into.promptText === null) {
    const body = isJsonMime(attrs['input.mime_type']) ? parseJsonText(input) : input
    if (isObj(body) && Array.isArray(body.messages)) into.input = body.messages
    else if (isObj(body) && typeof body.prompt === 'string') into.promptText = body.prompt
    else into.promptText = input
  }
  const output = isOiRedacted(attrs['output.value']) ? null : strOrNull(attrs['output.value'])
  if (output !== null && into.output === null && into.completionText === null) {
    const body = isJsonMime(attrs['output.mime_type']) ? parseJsonText(output) : output
    const choices = isObj(body) && Array.isArray(body.choices) ? body.choices.filter(isObj) : []
    const messages = choices.map((c) =>
      isObj(c.message) ? {...c.message, finish_reason: c.finish_reason ?? null}
        : {role: 'assistant', content: typeof c.text === 'string' ? c.text : null, finish_reason: c.finish_reason ?? null})
    if (messages.length > 0 || (isObj(body) && Array.isArray(body.choices))) into.output = messages
    // An empty JSON answer (`{}`, `[]`, `""`) holds no text: an answer with no text, never the text "{}".
    else if (isJsonMime(attrs['output.mime_type']) && isEmptyJson(body)) into.output = []
    else into.completionText = output
  }
}

/** A parsed JSON value that holds nothing: an empty object, list or text. */
function isEmptyJson(v: unknown): boolean {
  const value = jsonStringLiteral(v)
  return (isObj(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0) || (typeof value === 'string' && value.trim() === '')
}

/** OpenInference LLM spans' message attributes. */
function fromOpenInference(attrs: Obj, into: Content): void {
  const input = openInferenceMessages(attrs, 'llm.input_messages', into)
  if (input !== null && into.input === null && into.promptText === null) into.input = input
  const output = openInferenceMessages(attrs, 'llm.output_messages', into)
  if (output !== null && into.output === null && into.completionText === null) into.output = output
}

/**
 * The Vercel AI SDK's attributes on its provider-call spans (ai.generateText.doGenerate,
 * ai.streamText.doStream), which carry gen_ai.* metadata but their texts in ai.*:
 * ai.prompt.messages (a JSON message list), else ai.prompt (JSON {system, prompt, messages});
 * ai.response.text and ai.response.toolCalls (JSON [{toolCallId, toolName, args or input}]).
 */
function fromVercelAi(attrs: Obj, into: Content): void {
  if (into.input === null && into.promptText === null) {
    const messages = parseJsonText(attrs['ai.prompt.messages'])
    const prompt = parseJsonText(attrs['ai.prompt'])
    if (Array.isArray(messages)) into.input = messages.map(withVercelToolResults)
    else if (isObj(prompt)) {
      const system = typeof prompt.system === 'string' ? [{role: 'system', content: prompt.system}] : []
      if (Array.isArray(prompt.messages)) into.input = [...system, ...prompt.messages.map(withVercelToolResults)]
      else if (typeof prompt.prompt === 'string') into.input = [...system, {role: 'user', content: prompt.prompt}]
    } else if (typeof prompt === 'string' && prompt !== '') into.promptText = prompt
  }
  if (into.output === null && into.completionText === null) {
    const text = strOrNull(attrs['ai.response.text'])
    const reasoning = vercelReasoning(attrs['ai.response.reasoning'])
    const calls = parseJsonText(attrs['ai.response.toolCalls'])
    const toolCalls = Array.isArray(calls)
      ? calls.filter(isObj).map((c) => ({id: strOrNull(c.toolCallId), type: 'function', function: {name: strOrNull(c.toolName) ?? '', arguments: argumentsText(c.args ?? c.input)}}))
      : []
    const message: Obj = {role: 'assistant', content: text}
    if (toolCalls.length > 0) message.tool_calls = toolCalls
    if (reasoning !== null) message.reasoning_content = reasoning
    if (toolCalls.length > 0 || reasoning !== null) into.output = [message]
    else if (text !== null) into.completionText = text
  }
}

/** ai.response.reasoning: the reasoning text (a string; some releases a JSON list of {type: 'reasoning' | 'text', text}). */
function vercelReasoning(v: unknown): string | null {
  const parsed = parseJsonText(v)
  if (typeof parsed === 'string') return parsed === '' ? null : parsed
  if (!Array.isArray(parsed)) return null
  const texts = parsed.flatMap((p) => (typeof p === 'string' ? [p] : isObj(p) && typeof p.text === 'string' ? [p.text] : []))
  return texts.length === 0 ? null : texts.join('')
}

/**
 * An AI SDK prompt message with its tool-result parts as text parts, so what a tool returned is
 * prompt text (as decode.ts reads Anthropic's tool_result): v4 writes {type: 'tool-result',
 * result}, v5 {type: 'tool-result', output: {type: 'text' | 'json' | ..., value}}.
 */
function withVercelToolResults(m: unknown): unknown {
  if (!isObj(m) || !Array.isArray(m.content)) return m
  let changed = false
  const content = m.content.map((p) => {
    if (!isObj(p) || p.type !== 'tool-result') return p
    changed = true
    const r = isObj(p.output) && 'value' in p.output ? p.output.value : p.output !== undefined ? p.output : p.result
    return {type: 'text', text: r === undefined || r === null ? '' : typeof r === 'string' ? r : JSON.stringify(r)}
  })
  return changed ? {...m, content} : m
}

/**
 * A call's prompt or answer given whole in one span attribute: LangSmith's OpenTelemetry export
 * writes its run's inputs as gen_ai.prompt and outputs as gen_ai.completion (JSON text: the
 * request's {messages}, the answer's chat.completion body, or whatever the traced function took
 * and returned); OpenLIT writes gen_ai.content.prompt / gen_ai.content.completion as plain text.
 * A message list (or {messages}) is read as messages; a chat.completion body as its choices
 * (closed-world: a member of the body or a choice neither read nor known to hold no text is kept
 * on its message under its path, so decode.ts names it as not read); any other value as the text
 * it is, a JSON text with every string in it.
 */
function fromContentAttributes(attrs: Obj): Content[] {
  const out: Content[] = []
  for (const key of ['gen_ai.prompt', 'gen_ai.content.prompt'] as const) {
    const raw = attrs[key]
    if (typeof raw !== 'string' || raw.trim() === '') continue
    const c = emptyContent()
    const v = jsonStringLiteral(parseJsonText(raw))
    const list = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.messages) ? v.messages : null
    if (list !== null && list.length > 0 && list.every((m) => isObj(m) && typeof m.role === 'string')) c.input = list
    else if (typeof v === 'string') c.promptText = v === '' ? null : v
    else c.promptText = raw
    if (c.input !== null || c.promptText !== null) out.push(c)
  }
  for (const key of ['gen_ai.completion', 'gen_ai.content.completion'] as const) {
    const raw = attrs[key]
    if (typeof raw !== 'string' || raw.trim() === '') continue
    const c = emptyContent()
    const v = jsonStringLiteral(parseJsonText(raw))
    if (Array.isArray(v) && v.length > 0 && v.every((m) => isObj(m) && (typeof m.role === 'string' || Array.isArray(m.parts)))) c.output = v
    else if (isObj(v) && Array.isArray(v.choices) && v.choices.length > 0 && v.choices.every(isObj)) c.output = completionBodyMessages(v, key)
    else if (typeof v === 'string') c.completionText = v === '' ? null : v
    else c.completionText = raw
    if (c.output !== null || c.completionText !== null) out.push(c)
  }
  return out
}

/** A chat.completion body's members read or known to hold no text, and a choice's. */
const COMPLETION_BODY_KNOWN = new Set(['choices', 'id', 'object', 'created', 'model', 'usage', 'system_fingerprint', 'service_tier', 'prompt_filter_results'])
const COMPLETION_CHOICE_KNOWN = new Set(['message', 'text', 'index', 'finish_reason', 'logprobs', 'content_filter_results'])

/**
 * The messages of a chat.completion (or completions) body given as an attribute's JSON text, one
 * a choice; a choice's text beside its message a further text part of it; any other member of the
 * body or a choice that holds a string kept on the first message under its path (`KEY.x`,
 * `KEY.choices[0].x`), which decode.ts names as not read.
 */
function completionBodyMessages(body: Obj, key: string): Obj[] {
  const messages = (body.choices as Obj[]).map((c, i) => {
    const m: Obj = isObj(c.message) ? {role: 'assistant', ...c.message} : {role: 'assistant', content: typeof c.text === 'string' ? c.text : null}
    if (isObj(c.message) && typeof c.text === 'string' && c.text !== '') m[`${key}.choices[${i}].text`] = c.text
    if (c.finish_reason !== undefined) m.finish_reason = c.finish_reason
    for (const [k, x] of Object.entries(c)) if (!COMPLETION_CHOICE_KNOWN.has(k) && textLeaves(x).length > 0) m[`${key}.choices[${i}].${k}`] = x
    return m
  })
  for (const [k, x] of Object.entries(body)) if (!COMPLETION_BODY_KNOWN.has(k) && textLeaves(x).length > 0) messages[0]![`${key}.${k}`] = x
  return messages
}

/**
 * What OpenLIT keeps of an answer in span attributes beside its messages: the answer's
 * reasoning_content as gen_ai.content.reasoning (left out of gen_ai.output.messages on purpose),
 * and, with its gen_ai.content.* events, the answer's tool calls as gen_ai.tool.name,
 * gen_ai.tool.call.id and gen_ai.tool.args (the calls' arguments; several calls' joined by ", ").
 * Read as one assistant message, a further choice of the answer where its texts are not the
 * other forms' (mergeContents).
 */
function fromOpenLitAnswer(attrs: Obj, into: Content): void {
  const reasoning = strOrNull(attrs['gen_ai.content.reasoning'])
  const args = attrs['gen_ai.tool.args']
  const hasArgs = args !== undefined && args !== null && args !== ''
  if ((reasoning === null || reasoning.trim() === '') && !hasArgs) return
  const message: Obj = {role: 'assistant', content: null}
  if (reasoning !== null && reasoning.trim() !== '') message.reasoning_content = reasoning
  if (hasArgs) {
    message.tool_calls = [{id: strOrNull(attrs['gen_ai.tool.call.id']), type: 'function', function: {name: strOrNull(attrs['gen_ai.tool.name']) ?? '', arguments: argumentsText(args)}}]
  }
  into.output = [message]
}

/**
 * The attributes of a model call's span that hold a string and are neither read as content nor
 * known to hold no text of its answer (see CONTENT_READ_KEYS), in the span's order: named as not read. The tenant and
 * session attributes and an attribute a --map path reads (`mapped`) are read.
 */
function unreadAttributes(attrs: Obj, options: FormatOptions, mapped: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const [k, v] of Object.entries(attrs)) {
    if (CONTENT_READ_KEYS.has(k) || CONTENT_READ_PATTERN.test(k) || NO_TEXT_KEYS.has(k) || NO_TEXT_PREFIXES.some((p) => k.startsWith(p))) continue
    if (options.tenantAttributes.includes(k) || (SESSION_KEYS as readonly string[]).includes(k) || mapped.has(k)) continue
    if (textLeaves(v).length > 0 || (LOGFIRE_CONTENT_KEYS.has(k) && v !== null && v !== '')) out.push(k)
  }
  // In the span's order, as its producer wrote them.
  return out
}

/** The span events of a model call's span that carry a string and are of no name read (fromSpanEvents) or known to hold no text of its answer. */
function unreadSpanEvents(span: Obj): string[] {
  const out = new Set<string>()
  for (const e of arr(span.events)) {
    if (!isObj(e)) continue
    const name = typeof e.name === 'string' ? e.name : ''
    if (name === DETAILS_EVENT || name === 'gen_ai.content.prompt' || name === 'gen_ai.content.completion' || name in MESSAGE_EVENTS || name === 'gen_ai.choice' || NO_TEXT_EVENTS.has(name)) continue
    if (textLeaves(attrsOf(e.attributes)).length > 0) out.add(name)
  }
  return [...out].sort()
}

/** The span attributes a --map path of the request or response names (`attributes["KEY"]`, `span.attributes["KEY"]`): read through the map. */
function mappedAttributeKeys(map: FormatOptions['map']): Set<string> {
  const out = new Set<string>()
  for (const spec of [map.request, map.response]) {
    if (spec === undefined || spec.kind === 'const') continue
    const steps = spec.path
    const at = steps[0]?.kind === 'key' && steps[0].key === 'span' ? 1 : 0
    const first = steps[at]
    const second = steps[at + 1]
    if (first?.kind === 'key' && first.key === 'attributes' && second?.kind === 'key') out.add(second.key)
  }
  return out
}

/**
 * A span's texts in every convention it carries: each form of the GenAI conventions (message
 * attributes, span events, indexed attributes, the log records of the span), the AI SDK's ai.*,
 * OpenInference's messages, and its input.value / output.value. An instrumentation stack can
 * write several of them for one call, and they need not agree (one may hold a choice, a
 * reasoning text or a tool result the other lacks; a span attribute may be cut at
 * OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT where the log record holds the whole text): where their
 * texts differ, all are kept (the messages of each in turn, an answer's as further choices), so
 * a marker in any of them is found; identical texts are kept once.
 */
function spanContent(span: Obj, attrs: Obj, group: LogGroup | undefined): Content {
  const read = (fill: (into: Content) => void): Content => {
    const c = emptyContent()
    fill(c)
    return readStreamTexts(c)
  }
  return mergeContents([
    read((c) => fromMessageAttributes(attrs, c)),
    ...fromSpanEvents(span).map(readStreamTexts),
    read((c) => fromIndexedAttributes(attrs, c)),
    ...fromContentAttributes(attrs).map(readStreamTexts),
    read((c) => fromOpenLitAnswer(attrs, c)),
    read((c) => {
      if (group) fromLogEvents(group.events, c)
    }),
    read((c) => fromVercelAi(attrs, c)),
    read((c) => fromOpenInference(attrs, c)),
    read((c) => fromOpenInferenceValues(attrs, c)),
    read((c) => fromIndexedAttributes(attrs, c, 'llm')),
  ])
}

/** The texts of chat messages (contents, text parts, reasoning, tool-call arguments), to tell two conventions' texts apart. */
function textsOf(messages: readonly unknown[]): string {
  const out: string[] = []
  const walk = (x: unknown, depth: number): void => {
    if (depth > 32) return
    if (typeof x === 'string') out.push(x)
    else if (Array.isArray(x)) for (const v of x) walk(v, depth + 1)
    else if (isObj(x)) {
      for (const [k, v] of Object.entries(x)) {
        if (k === 'role' || k === 'type' || k === 'id' || k === 'finish_reason' || k === 'tool_call_id') continue
        walk(v, depth + 1)
      }
    }
  }
  walk(messages, 0)
  return out.join('\n')
}

function mergeContents(list: readonly Content[]): Content {
  const out = emptyContent()
  out.redactedInput = list.some((c) => c.redactedInput)
  out.redactedOutput = list.some((c) => c.redactedOutput)
  const unread = [...new Set(list.flatMap((c) => c.streamUnread ?? []))]
  if (unread.length > 0) out.streamUnread = unread
  const streamError = list.find((c) => c.streamError !== undefined)?.streamError
  if (streamError !== undefined) out.streamError = streamError
  const inputs = list.filter((c) => c.input !== null || c.promptText !== null)
  const distinctIn = distinct(inputs, (c) => textsOf(c.input !== null ? toChatMessages(c.input) : [c.promptText]))
  if (distinctIn.length === 1) [out.input, out.promptText] = [distinctIn[0]!.input, distinctIn[0]!.promptText]
  else if (distinctIn.length > 1) out.input = distinctIn.flatMap((c) => c.input ?? [{role: 'user', content: c.promptText}])
  const outputs = list.filter((c) => c.output !== null || c.completionText !== null)
  const distinctOut = distinct(outputs, (c) => textsOf(c.output !== null ? (completionFromMessages(c.output).choices as unknown[]) : [c.completionText]))
  if (distinctOut.length === 1) [out.output, out.completionText] = [distinctOut[0]!.output, distinctOut[0]!.completionText]
  else if (distinctOut.length > 1) out.output = distinctOut.flatMap((c) => c.output ?? [{role: 'assistant', content: c.completionText}])
  return out
}

function distinct(list: readonly Content[], text: (c: Content) => string): Content[] {
  const seen = new Set<string>()
  return list.filter((c) => {
    const t = text(c)
    if (seen.has(t)) return false
    seen.add(t)
    return true
  })
}


// ------------------------------------------------------------------ records

/**
 * Where a call's model texts were given as OTLP bytesValues that are no UTF-8 text (binary data,
 * or no base64 at all): its span's text attributes, its span events, its log records. Such a
 * text is not read (unwrapAnyValue leaves it null), so the item is counted as not read whole
 * (UNDECODED_BYTES) and no gate passes on it.
 */
function undecodedTexts(undecoded: readonly string[], span: Obj | null, group: LogGroup | undefined): string[] {
  const out = undecoded.filter((k) => CONTENT_KEYS.some(([test]) => test(k)) || ANSWER_KEY.test(k))
  for (const e of span === null ? [] : arr(span.events)) {
    if (!isObj(e)) continue
    const keys: string[] = []
    attrsOf(e.attributes, keys)
    if (keys.length > 0) out.push(`span event ${typeof e.name === 'string' ? e.name : ''}`.trim())
  }
  for (const e of group?.events ?? []) if (e.undecoded) out.push(`log record ${e.name}`)
  return [...new Set(out)]
}

const undecodedNote = (where: readonly string[]): string =>
  `model text given as an OTLP bytesValue that is not UTF-8 text (binary data), not read: ${where.join(', ')}`

interface Lookup {
  /** The first value of `key` on the item, its ancestors (spans) or its resource. */
  find(key: string): unknown
  /** The lines of the ancestor spans that gave a value. */
  used: LinePosition[]
  /**
   * Keys whose value came from the resource after the walk up the ancestors stopped at a span
   * not among the files given: that span may carry another value (a parent span ends after its
   * child, so a rotated export often holds it in the next file).
   */
  pastGap: Set<string>
}

function lookupFor(attrs: Obj, resource: Obj, index: OtelIndex, parent: string | null): Lookup {
  const used: LinePosition[] = []
  const pastGap = new Set<string>()
  return {
    used,
    pastGap,
    find(key) {
      if (attrs[key] !== undefined && attrs[key] !== '') return attrs[key]
      let at = parent
      let gap = false
      for (let depth = 0; at !== null && depth < 64; depth++) {
        const s = index.span(at)
        if (!s) {
          gap = true
          break
        }
        if (s.attrs[key] !== undefined && s.attrs[key] !== '') {
          used.push(s.at)
          return s.attrs[key]
        }
        at = s.parent
      }
      if (resource[key] === undefined || resource[key] === '') return undefined
      if (gap) pastGap.add(key)
      return resource[key]
    },
  }
}

/** Distinct positions, first occurrence kept, without the record's own line. */
function otherLines(own: LinePosition, positions: readonly LinePosition[]): LinePosition[] {
  const seen = new Set<string>([`${own.file}\u0000${own.line}`])
  const out: LinePosition[] = []
  for (const p of positions) {
    const key = `${p.file}\u0000${p.line}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(p)
  }
  return out
}

/**
 * The nearest ancestor span that received this request over HTTP: the first SERVER span up the
 * chain, taken only when its path is an inference endpoint (OpenAI-compatible /chat/completions,
 * /completions, /responses, or /generate). A gateway's server span carries the status its client
 * got; an application's own handler span (POST /ask) carries the application's, not the model
 * API's, so it is not used.
 */
function inferenceServerAncestor(index: OtelIndex, parent: string | null): IndexedSpan | null {
  let at = parent
  for (let depth = 0; at !== null && depth < 64; depth++) {
    const s = index.span(at)
    if (!s) return null
    if (s.server) return INFERENCE_PATH.test(pathOf(s.attrs) ?? '') ? s : null
    at = s.parent
  }
  return null
}

/** A note for each of tenant and session read from the resource past a missing ancestor span. */
function gapNotes(lookup: Lookup, tenantKeys: readonly string[]): string[] {
  const notes: string[] = []
  const from = (keys: readonly string[]): string | undefined => keys.find((k) => lookup.pastGap.has(k))
  const tenant = from(tenantKeys)
  const session = from(SESSION_KEYS)
  for (const [field, key] of [['tenant_id', tenant], ['session_id', session]] as const) {
    if (key === undefined) continue
    notes.push(`${field} read from the resource's ${key}: an ancestor span was not among the files given and may set another (give the file that holds it, e.g. the next export file)`)
  }
  return notes
}

function firstOf(lookup: Lookup, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = strOrNull(lookup.find(k))
    if (v !== null) return v
  }
  return null
}

/**
 * A *UnixNano time: its ISO form; absent (not given, or 0, OTLP's unset); or why it cannot be
 * nanoseconds of a plausible time, naming the unit it reads right in, if one does (a hand-rolled
 * exporter that wrote Date.now() milliseconds). Read as nanoseconds, such a value is a time in
 * January 1970, which scope would take for the incident's first sighting.
 */
type UnixNano = {iso: string} | {absent: true} | BadUnixNano
interface BadUnixNano {
  bad: string
  /** The unit it reads right in (seconds, milliseconds, microseconds), or null. */
  unit: string | null
  /** That unit as --map's epoch_UNIT says it. */
  short: 's' | 'ms' | 'us' | null
}
const isBad = (t: UnixNano): t is BadUnixNano => 'bad' in t
const isoOf = (t: UnixNano | undefined): string | null => (t !== undefined && 'iso' in t ? t.iso : null)

function readUnixNano(v: unknown, key: string): UnixNano {
  if (v === undefined || v === null || v === '' || v === '0' || v === 0) return {absent: true}
  const out = epochToIso(v, 'ns')
  if (!('iso' in out)) return {bad: `${key}: ${out.error}`, unit: null, short: null}
  // The window and the unit by magnitude every reader of a time shares (util/timestamps.ts).
  const bad = implausibleEpoch(epochWhole(v as number | string), 'ns', key)
  if (bad === null) return out
  if (bad.fits === null || bad.fits === 'ns') return {bad: bad.text, unit: null, short: null}
  const unit = EPOCH_UNITS.find(([u]) => u === bad.fits)![1]
  return {bad: `${bad.text}, which OTLP never writes`, unit, short: bad.fits}
}

function requestBody(content: Content, model: string | null): unknown {
  if (content.input !== null) {
    const body: Obj = {}
    if (model) body.model = model
    body.messages = toChatMessages(content.input)
    return body
  }
  return content.promptText
}

function responseBody(content: Content, meta: {id: string | null; model: string | null}, error: string | null, errorType: string | null, status: number | null): unknown {
  let body: Obj | null = null
  if (content.output !== null) body = completionFromMessages(content.output, meta)
  else if (content.completionText !== null) body = completionFromMessages([{role: 'assistant', content: content.completionText}], meta)
  if (error === null && status !== null && status >= 400) error = `HTTP ${status}`
  if (error !== null) return {...(body ?? {}), ...errorResponse(error, {type: errorType})}
  return body
}

/** An attribute key that may name the customer: offered in the reason of a span without the tenant, never read as one unless given. */
const TENANT_LIKE_KEY = /tenant|customer|organi[sz]ation/i

/**
 * Why a span has no tenant, and what would give it one: the attributes of the span and its
 * resource that may name the customer, and service.namespace, which earlier versions read as the
 * tenant by default (it names a group of services, so it is read only when given).
 */
function tenantHint(keys: readonly string[], attrs: Obj, resource: Obj): string {
  const parts = [`no ${keys.join(' or ')} attribute on the span, its ancestors or its resource`]
  const carried = [...new Set([...Object.keys(attrs), ...Object.keys(resource)])].filter((k) => !keys.includes(k) && TENANT_LIKE_KEY.test(k))
  if (carried.length > 0) parts.push(`it carries ${carried.slice(0, 3).join(', ')}: --tenant-attribute ${carried[0]} if that names the customer`)
  if (!keys.includes('service.namespace') && strOrNull(resource['service.namespace']) !== null) {
    parts.push("the resource's service.namespace names a group of services, not a customer: it is the tenant only with --tenant-attribute service.namespace")
  }
  parts.push('choose the attribute with --tenant-attribute KEY, or --map tenant_id=resource["KEY"] / const:NAME')
  return parts.join('; ')
}

function hints(options: FormatOptions, attrs: Obj = {}, resource: Obj = {}): Parameters<typeof finishRecord>[3] {
  return {
    ts: 'the span has no endTimeUnixNano or startTimeUnixNano',
    request_id: 'the span has neither gen_ai.response.id nor a spanId',
    tenant_id: tenantHint(options.tenantAttributes, attrs, resource),
    session_id: 'no gen_ai.conversation.id or session.id on the span, its ancestors or its resource (a parent span on another line needs its file given too); or --map session_id=attributes["KEY"]',
  }
}

function recordFromSpan(v: SpanView, index: OtelIndex, options: FormatOptions, here: LinePosition, undecoded: readonly string[]): AdaptedRecord | LineProblem {
  const {span, attrs, resource} = v
  const key = idKey(span.traceId, span.spanId)
  const lookup = lookupFor(attrs, resource, index, idKey(span.traceId, span.parentSpanId))
  const notes: string[] = undecoded.length > 0 ? [undecodedNote(undecoded)] : []

  const group = key === null ? undefined : index.logs(key)
  const content = spanContent(span, attrs, group)
  const noInput = content.input === null && content.promptText === null
  const noOutput = content.output === null && content.completionText === null
  if (noInput && content.redactedInput) notes.push(oiRedactedNote('request'))
  if (noOutput && content.redactedOutput) notes.push(oiRedactedNote('response'))
  // The span's attributes and events are read closed-world: one that holds a string and is
  // neither read nor known to hold no text of the answer is named, so the record is not read whole.
  const unread = unreadAttributes(attrs, options, mappedAttributeKeys(options.map))
  const unreadEvents = unreadSpanEvents(span)
  const unreadShapes = [...unread.map((k) => `span attribute ${JSON.stringify(k.length > 60 ? `${k.slice(0, 60)}…` : k)}`), ...unreadEvents.map((n) => `span event ${JSON.stringify(n.length > 60 ? `${n.slice(0, 60)}…` : n)}`)]
  // Where the span gave no text at all, why, in the place of the notes a refusal's cause is read from.
  const noContent = noInput && noOutput && !content.redactedInput && !content.redactedOutput
  const contentNoteAt = notes.length

  // The status a client got: on the GenAI span, else on the gateway's server span above it.
  const server = attrs['http.response.status_code'] === undefined && attrs['http.status_code'] === undefined ? inferenceServerAncestor(index, idKey(span.traceId, span.parentSpanId)) : null
  const status = intOrNull(attrs['http.response.status_code'] ?? attrs['http.status_code'] ?? server?.attrs['http.response.status_code'] ?? server?.attrs['http.status_code'])
  const spanStatus: Obj = isObj(span.status) ? span.status : {}
  const isError = spanStatus.code === 2 || spanStatus.code === 'STATUS_CODE_ERROR' || attrs['error.type'] !== undefined
  const errorType = strOrNull(attrs['error.type'])
  const error = isError ? (strOrNull(spanStatus.message) ?? errorType ?? 'span status ERROR') : (content.streamError ?? null)
  if (content.streamUnread !== undefined) notes.push(unreadShapesNote(content.streamUnread))
  const responseModel = strOrNull(attrs['gen_ai.response.model']) ?? strOrNull(attrs['llm.response.model'])
  const requestModel = strOrNull(attrs['gen_ai.request.model']) ?? strOrNull(attrs['llm.model_name']) ?? strOrNull(attrs['ai.model.id']) ?? strOrNull(attrs['llm.request.model'])
  const responseId = strOrNull(attrs['gen_ai.response.id'])
  const address = strOrNull(attrs['server.address'])
  const port = intOrNull(attrs['server.port'])

  // OTLP times are nanoseconds: one that cannot be (read so, a time before 2000) is never taken
  // for a 1970 time; the span's other time stands in, said in a note, else the item is refused.
  const end = readUnixNano(span.endTimeUnixNano, 'endTimeUnixNano')
  const start = readUnixNano(span.startTimeUnixNano, 'startTimeUnixNano')
  const ts = isoOf(end) ?? isoOf(start)
  if (isBad(end) && ts !== null) notes.push(`ts from startTimeUnixNano: endTimeUnixNano is not nanoseconds of a plausible time${end.unit === null ? '' : ` (it reads as ${end.unit})`}`)
  const badTime = ts !== null ? null : isBad(end) ? {t: end, key: 'endTimeUnixNano'} : isBad(start) ? {t: start, key: 'startTimeUnixNano'} : null
  if (badTime !== null && options.map.ts === undefined) {
    const fix = badTime.t.short === null ? '' : `; --map ts=epoch_${badTime.t.short}:span.${badTime.key} reads it so`
    return {item: v.item, reason: `bad ts: ${badTime.t.bad}${fix}`}
  }

  const identity = responseId === null ? null : recordIdentity(responseId, key, index, options)
  if (identity?.shared) notes.push(SHARED_RESPONSE_ID_NOTE)
  const candidate: Candidate = {
    ts,
    request_id: identity?.id ?? strOrNull(span.spanId),
    tenant_id: firstOf(lookup, options.tenantAttributes),
    session_id: firstOf(lookup, SESSION_KEYS),
    status,
    endpoint: endpointOf(attrs) ?? (server ? pathOf(server.attrs) : null),
    model: responseModel ?? requestModel,
    prefill_node: null,
    decode_node: address === null ? null : port === null ? address : `${address}:${port}`,
    prompt_tokens: intOrNull(attrs['gen_ai.usage.input_tokens'] ?? attrs['gen_ai.usage.prompt_tokens'] ?? attrs['llm.token_count.prompt'] ?? attrs['ai.usage.promptTokens'] ?? attrs['ai.usage.inputTokens'] ?? attrs['llm.usage.prompt_tokens']),
    completion_tokens: intOrNull(attrs['gen_ai.usage.output_tokens'] ?? attrs['gen_ai.usage.completion_tokens'] ?? attrs['llm.token_count.completion'] ?? attrs['ai.usage.completionTokens'] ?? attrs['ai.usage.outputTokens'] ?? attrs['llm.usage.completion_tokens']),
    request: requestBody(content, requestModel),
    response: responseBody(content, {id: responseId, model: responseModel ?? requestModel}, error, errorType, status),
  }
  const source = {resource, scope: v.scope, span: {...span, attributes: attrs}, attributes: attrs}
  const out = finishRecord(candidate, source, options, hints(options, attrs, resource))
  if ('problem' in out) return {item: v.item, reason: out.problem}
  // A span with no text of its own whose answer --map supplied is read through the map: no note
  // says its content is missing. Content on the span in attributes not read is named as such,
  // never taken for capture off (whose fix, the logs file, would be wrong).
  const mappedAnswer = options.map.response !== undefined && out.record.response !== null && out.record.response !== undefined
  if (noContent && !mappedAnswer) {
    const held = [...unread.map(keyName), ...unreadEvents.map((n) => `span event ${keyName(n)}`)]
    notes.splice(contentNoteAt, 0, held.length > 0
      ? `${CONTENT_NOT_READ} (${held.join(', ')}), not read`
      : `no message content on the span or in any log record given (content capture off, or ${OTLP_LOGS_NOT_GIVEN})`)
  } else if (unreadShapes.length > 0) notes.push(unreadShapesNote(unreadShapes))
  const read = [...(group?.events.map((e) => e.at) ?? []), ...lookup.used, ...(server ? [server.at] : []), ...(identity?.lines ?? [])]
  const wrapped = key === null ? null : readWrappers(out.record, attrs, span.traceId, key, index, options, [here, ...read])
  const companions = otherLines(here, [...read, ...(wrapped?.companions ?? [])])
  return {item: v.item, record: out.record, notes: [...notes, ...gapNotes(lookup, options.tenantAttributes), ...out.notes, ...(wrapped?.notes ?? [])], companions}
}

/** Who a call's record is for, looked up as its record is built: the span's, else its log records'. */
function callRecipient(index: OtelIndex, key: string, options: FormatOptions): Recipient {
  const own = index.span(key)
  if (own?.genai) return recipientOf(lookupFor(own.attrs, own.resource, index, own.parent), options)
  const group = index.logs(key)
  const attrs: Obj = {}
  for (const e of group?.events ?? []) Object.assign(attrs, e.attrs, e.name === DETAILS_EVENT && isObj(e.body) ? e.body : {})
  return recipientOf(lookupFor(attrs, {...(group?.resource ?? {}), ...(own?.resource ?? {})}, index, own ? key : null), options)
}

/** The note of a record whose gen_ai.response.id a call for another tenant or session gives too (recordIdentity). */
export const SHARED_RESPONSE_ID_NOTE =
  "its gen_ai.response.id is given by a call for another tenant or session too (a response served from a cache, an id a provider reused): request_id adds the tenant and session to it, so each is a record, not a retry of the other"

/**
 * A call's request id: its gen_ai.response.id, which is not unique per request (a response cache
 * serves one answer, with its id, to several callers; some providers reuse ids). Calls that
 * give the same id are retries of one request only for one tenant and session (a gateway's
 * retry, an application's retry in a new trace, a span exported twice); where another call of
 * the set gives the id for another tenant or session, the id names the call's own tenant and
 * session (`chatcmpl-1 (tenant t1, session s1)`), so each is a record and neither's answer is
 * set aside as a retry of the other. The first such call's line, and the ancestors its tenant
 * and session are read from, are lines the record is read from: it decodes the same from them
 * alone. A tenant or session the user maps (--map) is not compared (namesOther).
 */
function recordIdentity(responseId: string, key: string | null, index: OtelIndex, options: FormatOptions): {id: string; lines: LinePosition[]; shared: boolean} {
  const others = key === null ? [] : index.sharers(responseId).filter((u) => u.key !== key)
  if (key === null || others.length === 0) return {id: responseId, lines: [], shared: false}
  const own = callRecipient(index, key, options)
  // A retry of a record an earlier ingest stored under the id alone keeps it: that record and this
  // call are one request (its duplicate), however many other tenants' calls give the id since.
  if (index.storedRecords(responseId).some((r) => !namesOther({...r, used: []}, own, options))) return {id: responseId, lines: [], shared: false}
  // One such call decides it, and its lines are enough to decode the record again the same: a
  // cache that served one id to thousands of sessions gives each record one companion, not thousands.
  let lines: LinePosition[] | null = null
  for (const u of others) {
    const r = callRecipient(index, u.key, options)
    if (!namesOther(r, own, options)) continue
    lines = [u.at, ...r.used]
    break
  }
  if (lines === null) return {id: responseId, lines: [], shared: false}
  const parts = [own.tenant === null ? null : `tenant ${own.tenant}`, own.session === null ? null : `session ${own.session}`].filter((p) => p !== null)
  return {id: `${responseId} (${parts.join(', ')})`, lines: [...lines, ...own.used], shared: true}
}

interface Recipient {
  tenant: string | null
  session: string | null
  /** The ancestor spans' lines the lookup read. */
  used: LinePosition[]
}

function recipientOf(lookup: Lookup, options: FormatOptions): Recipient {
  return {tenant: firstOf(lookup, options.tenantAttributes), session: firstOf(lookup, SESSION_KEYS), used: lookup.used}
}

/**
 * Whether a wrapper names another tenant or session than its call (on itself, its ancestors or
 * its resource): its texts then went to someone else, and are not read with the call. A field
 * the user maps (--map) is not compared: the map was written for the calls.
 */
function namesOther(w: Recipient, call: {tenant: string | null; session: string | null}, options: FormatOptions): boolean {
  const differ = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b
  return (options.map.tenant_id === undefined && differ(w.tenant, call.tenant)) || (options.map.session_id === undefined && differ(w.session, call.session))
}

/** Whether a span is a wrapper with an answer whose trace's call (the one its texts are read with) is another tenant's or session's. */
function wrapsForOther(index: OtelIndex, traceId: unknown, key: string | null, options: FormatOptions): boolean {
  const w = key === null ? undefined : index.wrapper(key)
  const target = w === undefined ? null : index.target(traceId)
  return w !== undefined && target !== null && namesOther(recipientOf(lookupFor(w.attrs, w.resource, index, w.parent), options), callRecipient(index, target.key, options), options)
}

/**
 * The texts of the wrappers of this call's trace that are not its own, read into its record where
 * it is the trace's call they are read with: an answer as a further choice, an input as further
 * prompt text. `item`: what the call's item logged (its attributes); `from`: the lines the record
 * is read from so far. The companions returned make the record decode again the same from its
 * lines alone: a wrapper read and the ancestors that gave its tenant and session, or, for another
 * call of the trace on whose lines a wrapper is, the lines of the call its texts are read with.
 */
function readWrappers(
  record: NativeRecord, item: Obj, traceId: unknown, key: string, index: OtelIndex, options: FormatOptions, from: readonly LinePosition[],
): {notes: string[]; companions: LinePosition[]} {
  const wrappers = index.wrappers(traceId)
  const target = index.target(traceId)
  if (wrappers.length === 0 || target === null) return {notes: [], companions: []}
  const onLines = (w: WrapperSpan): boolean => from.some((p) => p.file === w.at.file && p.line === w.at.line)
  if (target.key !== key) return {notes: [], companions: wrappers.some(onLines) ? target.lines : []}
  let callText: CallTexts
  try {
    callText = callTextsOf(record.request, record.response, item)
  } catch (error) {
    // A body whose JSON text gives a key twice: the record is refused as it is decoded (parse-record.ts).
    if (error instanceof DuplicateKeyError) return {notes: [], companions: []}
    throw error
  }
  const prompts: string[] = []
  const answers: string[] = []
  const notes = new Set<string>()
  const companions: LinePosition[] = []
  for (const w of wrappers) {
    const beyond = textsBeyond(w.texts, callText)
    // An input is read as the prompt that explains the wrapper's answer (an echo, a value the
    // session sent); a wrapper whose answer is the call's own adds nothing to judge.
    if (beyond.answer === null) continue
    const convention = w.convention
    const recipient = recipientOf(lookupFor(w.attrs, w.resource, index, w.parent), options)
    if (namesOther(recipient, {tenant: record.tenant_id, session: record.session_id}, options)) {
      if (onLines(w)) companions.push(...recipient.used)
      continue
    }
    companions.push(w.at, ...recipient.used)
    if (beyond.prompt !== null) {
      prompts.push(beyond.prompt)
      notes.add(`the input of a wrapping span (${convention}) is not among the call's texts: read as further prompt text`)
    }
    answers.push(beyond.answer)
    notes.add(`the output of a wrapping span (${convention}) is not among the call's texts: read as a further choice of its answer`)
  }
  const unread: string[] = []
  record.request = withPromptTexts(record.request, prompts, unread)
  record.response = withAnswerTexts(record.response, answers, unread)
  for (const n of unread) notes.add(n)
  return {notes: [...notes], companions}
}

function recordFromLogs(
  item: number, traceId: unknown, spanId: unknown, group: LogGroup, index: OtelIndex, options: FormatOptions, here: LinePosition, undecoded: readonly string[],
): AdaptedRecord | LineProblem {
  const attrs: Obj = {}
  for (const e of group.events) Object.assign(attrs, e.attrs, e.name === DETAILS_EVENT && isObj(e.body) ? e.body : {})
  const key = idKey(traceId, spanId)
  const own = key === null ? undefined : index.span(key)
  const lookup = lookupFor(attrs, {...group.resource, ...(own?.resource ?? {})}, index, own ? key : null)
  const content = emptyContent()
  fromLogEvents(group.events, content)
  readStreamTexts(content)
  // The last record's time, as nanoseconds (see recordFromSpan); one that cannot be is never a 1970 time.
  const times = [...group.events].reverse().map((e) => readUnixNano(e.timeNs, 'timeUnixNano'))
  const time = times.find((t) => 'iso' in t)
  const badTime = times.find(isBad)
  if (badTime !== undefined && time === undefined && options.map.ts === undefined) return {item, reason: `bad ts: ${badTime.bad}`}
  const timeNotes = badTime !== undefined && time !== undefined
    ? [`ts from another GenAI log record: a timeUnixNano is not nanoseconds of a plausible time${badTime.unit === null ? '' : ` (it reads as ${badTime.unit})`}`] : []
  const responseId = strOrNull(attrs['gen_ai.response.id'])
  const responseModel = strOrNull(attrs['gen_ai.response.model'])
  const requestModel = strOrNull(attrs['gen_ai.request.model'])
  const errorType = strOrNull(attrs['error.type'])
  const identity = responseId === null ? null : recordIdentity(responseId, key, index, options)
  const candidate: Candidate = {
    ts: isoOf(time),
    request_id: identity?.id ?? strOrNull(spanId),
    tenant_id: firstOf(lookup, options.tenantAttributes),
    session_id: firstOf(lookup, SESSION_KEYS),
    status: null,
    endpoint: null,
    model: responseModel ?? requestModel,
    prefill_node: null,
    decode_node: strOrNull(attrs['server.address']),
    prompt_tokens: intOrNull(attrs['gen_ai.usage.input_tokens']),
    completion_tokens: intOrNull(attrs['gen_ai.usage.output_tokens']),
    request: requestBody(content, requestModel),
    response: responseBody(content, {id: responseId, model: responseModel ?? requestModel}, errorType ?? content.streamError ?? null, errorType, null),
  }
  const source = {resource: group.resource, attributes: attrs, events: group.events}
  const out = finishRecord(candidate, source, options, {
    ...hints(options, attrs, group.resource),
    ts: 'the GenAI log records carry no timeUnixNano (nor observedTimeUnixNano)',
  })
  if ('problem' in out) return {item, reason: out.problem}
  const read = [...group.events.map((e) => e.at), ...(own ? [own.at] : []), ...lookup.used, ...(identity?.lines ?? [])]
  const wrapped = key === null ? null : readWrappers(out.record, source, traceId, key, index, options, [here, ...read])
  const companions = otherLines(here, [...read, ...(wrapped?.companions ?? [])])
  const undecodedNotes = [...(undecoded.length > 0 ? [undecodedNote(undecoded)] : []), ...(content.streamUnread !== undefined ? [unreadShapesNote(content.streamUnread)] : [])]
  return {item, record: out.record, companions, notes: ['built from OTLP log records alone: their span was not among the files given (tokens, status and node unknown)', ...timeNotes, ...(identity?.shared ? [SHARED_RESPONSE_ID_NOTE] : []), ...undecodedNotes, ...gapNotes(lookup, options.tenantAttributes), ...out.notes, ...(wrapped?.notes ?? [])]}
}

/** Whether a group of log records with no GenAI span in the set gives no record (its first item is quarantined). */
function groupQuarantined(traceId: unknown, spanId: unknown, group: LogGroup, index: OtelIndex, options: FormatOptions): boolean {
  try {
    return !('record' in recordFromLogs(group.first.item, traceId, spanId, group, index, options, group.first, undecodedTexts([], null, group)))
  } catch (error) {
    // A text in the group that gives a key twice: its first item is refused as it is adapted.
    if (error instanceof DuplicateKeyError) return true
    throw error
  }
}

/** The request path of a server span: url.path, else http.route or http.target (older), else url.full's. */
function pathOf(attrs: Obj): string | null {
  const target = strOrNull(attrs['http.target'])
  return endpointOf(attrs) ?? strOrNull(attrs['http.route']) ?? (target === null ? null : target.split('?')[0]!)
}

function endpointOf(attrs: Obj): string | null {
  const path = strOrNull(attrs['url.path'])
  if (path !== null) return path
  const full = strOrNull(attrs['url.full'])
  if (full === null) return null
  try {
    return new URL(full).pathname
  } catch {
    return null
  }
}

// ------------------------------------------------------------------ the adapter

function sniffOtel(first: readonly unknown[]): SniffResult {
  const n = first.length
  if (n === 0) return {format: 'otel', confidence: 0, reason: 'no readable lines to look at'}
  let traces = 0
  let logs = 0
  let genai = 0
  for (const v of first) {
    if (!isObj(v)) continue
    if (Array.isArray(v.resourceSpans)) {
      traces++
      if (spansOf(v).some((s) => Object.keys(s.attrs).some((k) => k.startsWith('gen_ai.')))) genai++
    } else if (Array.isArray(v.resourceLogs)) {
      logs++
      if (logsOf(v).some((l) => isGenAiEvent(eventNameOf(l)) || Object.keys(l.attrs).some((k) => k.startsWith('gen_ai.')))) genai++
    }
  }
  const hits = traces + logs
  const kinds = [traces > 0 ? `${traces} resourceSpans` : '', logs > 0 ? `${logs} resourceLogs` : ''].filter(Boolean).join(', ')
  return {
    format: 'otel',
    confidence: hits / n,
    reason: `${hits} of ${n} first readable lines are OTLP/JSON export requests${kinds ? ` (${kinds}; ${genai} with GenAI attributes or events)` : ''}`,
  }
}

export const otel: FormatAdapter<OtelIndex> = {
  format: 'otel',
  specification:
    'OTLP/JSON export requests, one a line (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding), with the GenAI semantic conventions v1.26-v1.37 (https://opentelemetry.io/docs/specs/semconv/gen-ai/), and OpenInference LLM spans (https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md)',

  sniff: sniffOtel,

  newIndex: (options) => newOtelIndex(options),

  adapt(value, ctx): AdaptResult {
    if (!isObj(value)) return {records: [], problems: [{item: null, reason: 'not a JSON object'}], ignored: 0}
    if (!Array.isArray(value.resourceSpans) && !Array.isArray(value.resourceLogs)) {
      return {records: [], problems: [{item: null, reason: 'not an OTLP/JSON export request (no resourceSpans or resourceLogs)'}], ignored: 0}
    }
    const twice = duplicateAttribute(value)
    if (twice !== null) return {records: [], problems: [{item: null, reason: duplicateKeyReason(twice)}], ignored: 0}
    // Without a first pass, the line indexes itself: its own spans and log records still join.
    let index = ctx.index
    if (index === null || index === undefined) {
      index = newOtelIndex(ctx.options)
      index.add(value, ctx.at)
    }
    const result: AdaptResult = {records: [], problems: [], ignored: 0}
    const push = (r: AdaptedRecord | LineProblem) => ('record' in r ? result.records.push(r) : result.problems.push(r))
    // A record some of whose texts were bytes that are no UTF-8 text was not read whole.
    const pushRead = (r: AdaptedRecord | LineProblem, undecoded: readonly string[]): void => {
      push(r)
      if (!('record' in r) || undecoded.length === 0) return
      result.unread ??= {}
      result.unread[UNDECODED_BYTES] = (result.unread[UNDECODED_BYTES] ?? 0) + 1
    }
    // An item not read that carries model texts: a wrapper (chain, agent, workflow) of a model
    // call read in its trace holds that call's texts, which are judged there; with no such call
    // among the lines given, its texts are judged nowhere, and it is counted as unread.
    const ignore = (attrs: Obj, traceId: unknown, key: string | null = null): void => {
      result.ignored++
      const convention = unreadConventionOf(attrs)
      if (convention === null) return
      // A wrapper's answer text where the trace's call has none readable (hidden with
      // OpenInference's placeholder, or not captured) is the only text of that answer. A
      // wrapper's texts are read with the call (readWrappers) unless it names another tenant or
      // session than that call: then they are judged nowhere.
      if (index!.hasCall(traceId) && (index!.hasAnswer(traceId) || !carriesAnswerText(attrs)) && !wrapsForOther(index!, traceId, key, ctx.options)) return
      result.unread ??= {}
      result.unread[convention] = (result.unread[convention] ?? 0) + 1
    }
    for (const s of spansOf(value)) {
      if (!isCallSpan(s.attrs)) {
        // A text given as undecodable bytes is still a text the item carries.
        ignore({...withEventTexts(s.attrs, s.span), ...Object.fromEntries(s.undecoded.map((k) => [k, true]))}, s.span.traceId, idKey(s.span.traceId, s.span.spanId))
        continue
      }
      const key = idKey(s.span.traceId, s.span.spanId)
      const undecoded = undecodedTexts(s.undecoded, s.span, key === null ? undefined : index.logs(key))
      pushRead(recordFromSpan(s, index, ctx.options, ctx.at, undecoded), undecoded)
    }
    for (const l of logsOf(value)) {
      const name = eventNameOf(l)
      if (!isGenAiEvent(name)) {
        ignore(l.attrs, l.record.traceId)
        continue
      }
      const key = idKey(l.record.traceId, l.record.spanId)
      if (key === null) {
        if (name === DETAILS_EVENT) {
          const group: LogGroup = {first: {file: ctx.at.file, line: ctx.at.line, item: l.item}, events: [eventOf(l, name, ctx.at)], resource: l.resource}
          const undecoded = undecodedTexts([], null, group)
          pushRead(recordFromLogs(l.item, undefined, undefined, group, index, ctx.options, ctx.at, undecoded), undecoded)
        } else result.problems.push({item: l.item, reason: `${name} log record has no traceId/spanId, so it cannot be joined with the rest of its request`})
        continue
      }
      // A GenAI span given anywhere in the set already carries these events.
      if (index.span(key)?.genai) {
        result.ignored++
        continue
      }
      const group = index.logs(key)
      const isFirst = group !== undefined && group.first.file === ctx.at.file && group.first.line === ctx.at.line && group.first.item === l.item
      if (!isFirst) {
        // Read into its group's record (built at the group's first log record), it is a companion
        // item, counted as ignored. Where that record cannot be built (the item quarantined there),
        // it was read into nothing: not counted so, or a logs file of only such groups would pass
        // for a companion of calls read elsewhere and be kept with nothing read from it.
        if (group === undefined || !groupQuarantined(l.record.traceId, l.record.spanId, group, index, ctx.options)) result.ignored++
        continue
      }
      const undecoded = undecodedTexts([], null, group)
      pushRead(recordFromLogs(l.item, l.record.traceId, l.record.spanId, group, index, ctx.options, ctx.at, undecoded), undecoded)
    }
    return result
  },
}
