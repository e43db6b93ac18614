import {uniqueJson, within} from './duplicate-keys.js'
import {jsonPrefix} from './json-prefix.js'
import {safeLine} from '../util/sanitize.js'

// Turns request and response bodies, in every shape the contract allows, into the text
// the model was given and the text the client received. Detection runs on these texts,
// so a marker split across SSE chunks or JSON-escaped in a body is one string here.

export type ResponseKind = 'none' | 'chat' | 'completion' | 'error' | 'sse' | 'json' | 'text'

export interface DecodedResponse {
  kind: ResponseKind
  text: string
  stream: boolean
  isError: boolean
  errorMessage: string | null
  promptTokens: number | null
  completionTokens: number | null
  cachedTokens: number | null
  /**
   * The shapes in the body this release does not read (an output item, a content block, a
   * stream event or delta of a type it does not know), named once each in the order met: the
   * text the client was given in them, if any, was not searched, so the record is not read whole.
   */
  unread: string[]
  /**
   * A stream's data payloads that never made a JSON document (an event cut off mid-document, its
   * JSON malformed, a keep-alive word): their raw text is searched as answer text (decodeSse).
   * Absent where there is none.
   */
  unparsed?: number
  /**
   * Parts of the answer that hold no text to search by their nature (an image), named once each
   * in the order met: counted and said (parse-record.ts NOT_SEARCHED), never read as text. Absent
   * where there is none.
   */
  notSearched?: string[]
  /**
   * Why the whole answer holds no text by design (an embedding answer: vectors), where it does:
   * the record is counted as such, not as an answer that decoded to no text. Absent otherwise.
   */
  noTextByDesign?: string
}

type Json = null | boolean | number | string | Json[] | {[k: string]: Json}
type Obj = {[k: string]: Json}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
// Safe integers only: a count of 2^63 is no count (and no INTEGER column takes the double).
const intOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null)

// ---------------------------------------------------------------- requests

export function decodeRequest(body: unknown): string | null {
  return decodeRequestBody(body).text
}

/** A request's text (decodeRequest) and the members of its body this release does not read. */
export interface DecodedRequest {
  text: string | null
  /**
   * The members of the request body that hold text this release does not read (a top-level member,
   * a message member, a content block or part member of a shape it does not know), named once each
   * in the order met. The prompt was read in part: a marker absent from `text` may sit in one of
   * them, so the echo check cannot rule a sighting out as an echo (parse-record.ts UNREAD_REQUEST).
   */
  unread: string[]
}

export function decodeRequestBody(body: unknown): DecodedRequest {
  const unread: string[] = []
  return {text: requestText(body, unread), unread}
}

function requestText(body: unknown, unread: string[]): string | null {
  if (body === undefined || body === null) return null
  if (typeof body === 'string') {
    const parsed = tryParseJson(body)
    return parsed !== undefined && (isObj(parsed) || Array.isArray(parsed)) ? requestText(parsed, unread) : body
  }
  if (Array.isArray(body)) return messagesText(body, unread)
  if (!isObj(body)) return String(body)
  const parts: string[] = []
  if (typeof body.system === 'string') parts.push(body.system)
  // The Messages API's system prompt as text blocks; Bedrock Converse's (`{text}`, `{guardContent}`).
  else if (Array.isArray(body.system)) parts.push(systemBlocksText(body.system, unread))
  // Gemini's system instruction: a Content (`parts`), `system_instruction` in its REST snake case.
  const gemSystem = body.systemInstruction ?? body.system_instruction
  if (gemSystem !== undefined) parts.push(geminiContentText(gemSystem, unread))
  // The Responses API's system prompt; an Assistants run's own instructions.
  if (typeof body.instructions === 'string') parts.push(body.instructions)
  if (typeof body.additional_instructions === 'string') parts.push(body.additional_instructions)
  if (Array.isArray(body.messages)) parts.push(messagesText(body.messages, unread))
  // Gemini's conversation: Contents, each with parts.
  if (Array.isArray(body.contents)) parts.push(body.contents.map((c) => geminiContentText(c, unread)).filter((t) => t !== '').join('\n'))
  // An Assistants run's messages added to its thread; a thread created with messages (alone or with its run).
  if (Array.isArray(body.additional_messages)) parts.push(messagesText(body.additional_messages, unread))
  if (isObj(body.thread)) parts.push(threadText(body.thread, unread))
  // An Assistants message created on a thread: its role and content at the top level.
  if (typeof body.role === 'string' && body.content !== undefined) parts.push(requestContentText(body.content, unread))
  // An Assistants run's tool outputs handed back to the model.
  if (Array.isArray(body.tool_outputs)) parts.push(body.tool_outputs.flatMap((o) => (isObj(o) ? str(o.output) : [])).join('\n'))
  // Cohere v2 chat's documents: strings, or objects whose `data` is what the model reads.
  if (Array.isArray(body.documents)) parts.push(body.documents.flatMap((d) => cohereDocumentText(d)).join('\n'))
  // Chat Completions' predicted output: text the caller sent, which the model may repeat verbatim.
  if (isObj(body.prediction) && contentText(body.prediction.content) !== '') parts.push(contentText(body.prediction.content))
  if (body.prompt !== undefined) parts.push(promptText(body.prompt))
  if (body.input !== undefined) parts.push(typeof body.input === 'string' ? body.input : Array.isArray(body.input) ? messagesText(body.input, unread) : '')
  if (parts.length === 0 && typeof body.text === 'string') parts.push(body.text)
  // What the caller defined for the model to read: tools, a structured output's schema.
  for (const key of DEFINITION_MEMBERS) {
    if (key === 'text' && !isObj(body.text)) continue
    const t = definitionTexts(body[key]).join('\n')
    if (t !== '') parts.push(t)
  }
  // Gemini's structured output schema, in its generation settings; Ollama's `format` given as a JSON schema (not "json").
  const schemas = [body.generationConfig, body.generation_config].flatMap((g) => (isObj(g) ? GEMINI_SCHEMAS.map((k) => g[k]) : []))
  if (isObj(body.format)) schemas.push(body.format)
  for (const schema of schemas) {
    const t = definitionTexts(schema).join('\n')
    if (t !== '') parts.push(t)
  }
  requestMembers(body, REQUEST_READ, REQUEST_NO_TEXT, 'request body member', unread)
  if (typeof body.role !== 'string' && leafTexts(body.content).length > 0) unreadShape(unread, shapeName('request body member', 'content'))
  // A Responses API prompt template (`{id, version, variables}`): its variables are text put into the prompt, not read here.
  if (isObj(body.prompt) && leafTexts(body.prompt).length > 0) unreadShape(unread, shapeName('request body member', 'prompt'))
  return parts.join('\n')
}

/**
 * Names in `unread` each member of a request object that is neither read nor known to carry no
 * text a user sent, where it holds a string: a marker there, repeated by the model, could be an
 * echo that was not looked for.
 */
function requestMembers(obj: Obj, read: ReadonlySet<string>, noText: ReadonlySet<string>, what: string, unread: string[]): void {
  for (const key of Object.keys(obj)) {
    if (read.has(key) || noText.has(key)) continue
    // A key is the log's text: its controls are shown, never passed to a terminal or a draft.
    if (leafTexts(obj[key]).length > 0) unreadShape(unread, shapeName(what, safeLine(key)))
  }
}

/** The top-level request members decodeRequestBody reads (the Assistants message's `content` only beside its `role`). */
const REQUEST_READ = new Set([
  'system', 'systemInstruction', 'system_instruction', 'instructions', 'additional_instructions', 'messages', 'contents', 'additional_messages', 'thread',
  'tool_outputs', 'documents', 'prediction', 'prompt', 'input', 'text', 'role', 'content', 'tools', 'functions', 'response_format', 'toolConfig', 'tool_config',
])

/**
 * Request members holding definitions the caller wrote for the model to read, in the order read:
 * tools and their JSON schemas (chat `tools` and the legacy `functions`, the Messages API's tools
 * with `input_schema`, the Responses API's and Gemini's `tools`, Bedrock Converse's and Gemini's
 * `toolConfig`), a structured output's schema (`response_format`; the Responses API's `text`
 * object, `text.format`). The model is shown the names, descriptions, enums and schemas in them,
 * so a marker the caller put there and the model repeats is an echo. Read by definitionTexts. (The
 * native addon reads them the same way: native/src/decode.rs keeps the same list.)
 */
const DEFINITION_MEMBERS = ['tools', 'functions', 'response_format', 'toolConfig', 'tool_config', 'text'] as const

/** The members of Gemini's generation settings that hold a structured output's schema, in the order read. */
const GEMINI_SCHEMAS = ['responseSchema', 'response_schema', 'responseJsonSchema', 'response_json_schema'] as const

/**
 * Every string in a definition, in order, one a line: each object key (a schema's property names
 * are read by the model as much as its descriptions) before its value, each string value; empty
 * ones, numbers, booleans and nulls left out. Objects are walked in JavaScript's order of their
 * keys (Object.entries); the native addon leaves a definition with an array-index key ("0", "12"),
 * which JavaScript puts first, to this reader.
 */
function definitionTexts(value: Json | undefined): string[] {
  const out: string[] = []
  // A key is pushed as it is met; a value is walked.
  const stack: Array<{key: string} | {value: Json | undefined}> = [{value}]
  while (stack.length > 0) {
    const item = stack.pop()!
    if ('key' in item) {
      if (item.key !== '') out.push(item.key)
      continue
    }
    const v = item.value
    if (typeof v === 'string') {
      if (v !== '') out.push(v)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({value: v[i]!})
    } else if (isObj(v)) {
      const entries = Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) stack.push({value: entries[i]![1]}, {key: entries[i]![0]})
    }
  }
  return out
}

/**
 * Top-level request members that carry settings, identifiers and definitions, not what the user
 * sent: sampling and length settings, the model, stream options, metadata and end-user ids (the
 * model never reads them), and the tool choices, output settings and safety settings a developer
 * configures (OpenAI, Anthropic, Gemini's generationConfig (its response schema read) / safetySettings, Bedrock Converse's
 * inferenceConfig / guardrailConfig, Cohere's citation_options / safety_mode, Ollama's
 * options / format (a schema read) / keep_alive, Assistants' assistant_id / tool_resources / truncation_strategy).
 */
const REQUEST_NO_TEXT = new Set([
  'model', 'stream', 'stream_options', 'temperature', 'top_p', 'top_k', 'top_a', 'min_p', 'n', 'best_of', 'echo', 'max_tokens', 'max_completion_tokens', 'max_output_tokens',
  'max_prompt_tokens', 'stop', 'stop_sequences', 'seed', 'user', 'metadata', 'logit_bias', 'logprobs', 'top_logprobs', 'presence_penalty', 'frequency_penalty',
  'repetition_penalty', 'parallel_tool_calls', 'tool_choice', 'function_call', 'reasoning_effort', 'reasoning', 'thinking',
  'service_tier', 'store', 'modalities', 'audio', 'previous_response_id', 'truncation', 'include', 'background', 'safety_identifier', 'prompt_cache_key',
  'prompt_cache_retention', 'verbosity', 'web_search_options', 'anthropic_version', 'anthropic_beta', 'betas', 'mcp_servers', 'container', 'context_management',
  'assistant_id', 'thread_id', 'tool_resources', 'truncation_strategy',
  'generationConfig', 'generation_config', 'safetySettings', 'safety_settings', 'cachedContent', 'cached_content', 'labels',
  'modelId', 'inferenceConfig', 'additionalModelRequestFields', 'additionalModelResponseFieldPaths', 'guardrailConfig', 'requestMetadata', 'performanceConfig',
  'citation_options', 'safety_mode', 'strict_tools', 'k', 'p', 'options', 'format', 'keep_alive', 'raw', 'think', 'context', 'images', 'provider', 'transforms', 'models', 'route', 'usage',
])

/** A Gemini Content's parts (`{role, parts}`) in order, one per line: text, a function call's args and a function response's response (as JSON), code and its output. */
function geminiContentText(content: Json, unread: string[]): string {
  if (typeof content === 'string') return content
  if (!isObj(content)) return ''
  requestMembers(content, new Set(['parts']), new Set(['role']), 'Gemini request content member', unread)
  if (!Array.isArray(content.parts)) return ''
  const out: string[] = []
  for (const part of content.parts) {
    if (typeof part === 'string') {
      out.push(part)
      continue
    }
    if (!isObj(part)) continue
    requestMembers(part, GEMINI_PART_TEXT, GEMINI_PART_NONE, 'Gemini request part member', unread)
    out.push(...str(part.text))
    if (isObj(part.functionCall) && part.functionCall.args !== undefined) out.push(JSON.stringify(part.functionCall.args))
    if (isObj(part.functionResponse) && part.functionResponse.response !== undefined) out.push(JSON.stringify(part.functionResponse.response))
    if (isObj(part.executableCode)) out.push(...str(part.executableCode.code))
    if (isObj(part.codeExecutionResult)) out.push(...str(part.codeExecutionResult.output))
  }
  return out.join('\n')
}

const GEMINI_PART_TEXT = new Set(['text', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'])
/** A part's bytes and references (an image's or a file's: no text by design), its flags and signature. */
const GEMINI_PART_NONE = new Set(['inlineData', 'fileData', 'thought', 'thoughtSignature', 'videoMetadata', 'mediaResolution', 'partMetadata'])

/** A Messages API or Bedrock Converse system prompt: its blocks, each on a line of its own (requestBlocksText), Converse's guard content and others as converseBlockText reads them. */
function systemBlocksText(blocks: Json[], unread: string[]): string {
  return requestBlocksText(blocks.map((b) => (isConverseBlock(b) ? converseBlockText(b as Obj, unread) : requestBlockText(b, unread))))
}

/** A Bedrock Converse content block: an object without `type`, keyed by its one shape (`text`, `toolUse`, `toolResult`...). */
function isConverseBlock(block: Json): boolean {
  return isObj(block) && block.type === undefined && Object.keys(block).some((k) => CONVERSE_BLOCKS.has(k))
}

const CONVERSE_BLOCKS = new Set(['toolUse', 'toolResult', 'document', 'guardContent', 'reasoningContent', 'image', 'video', 'cachePoint', 'citationsContent', 'searchResult'])

/**
 * A Bedrock Converse request block's text: `text`; a tool use's `input` and a tool result's
 * `json` as JSON, its `text`, documents and nested blocks; a document's text source (`source.text`,
 * `source.content[].text`); guard content's text; earlier reasoning's text. Images and videos hold
 * no text by design; a document given as bytes (a PDF, a Word file) is named unread: what it says
 * was not searched.
 */
function converseBlockText(block: Obj, unread: string[]): string {
  requestMembers(block, CONVERSE_BLOCK_TEXT, new Set(['image', 'video', 'cachePoint']), 'Converse request content block member', unread)
  const out: string[] = [...str(block.text)]
  if (isObj(block.toolUse) && block.toolUse.input !== undefined) out.push(JSON.stringify(block.toolUse.input))
  if (isObj(block.toolResult) && Array.isArray(block.toolResult.content)) {
    for (const c of block.toolResult.content) {
      if (!isObj(c)) continue
      if (c.json !== undefined) out.push(JSON.stringify(c.json))
      const t = converseBlockText(Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'json')), unread)
      if (t !== '') out.push(t)
    }
  }
  if (isObj(block.document)) out.push(...converseDocumentText(block.document, unread))
  if (isObj(block.guardContent) && isObj(block.guardContent.text)) out.push(...str(block.guardContent.text.text))
  if (isObj(block.reasoningContent) && isObj(block.reasoningContent.reasoningText)) out.push(...str(block.reasoningContent.reasoningText.text))
  return out.join('\n')
}

const CONVERSE_BLOCK_TEXT = new Set(['text', 'toolUse', 'toolResult', 'document', 'guardContent', 'reasoningContent'])

function converseDocumentText(doc: Obj, unread: string[]): string[] {
  const source = isObj(doc.source) ? doc.source : {}
  if (typeof source.text === 'string') return str(source.text)
  if (Array.isArray(source.content)) return source.content.flatMap((c) => (isObj(c) ? str(c.text) : []))
  // Bytes (base64) or an S3 location: a file whose words are not in the log line.
  if (source.bytes !== undefined || source.s3Location !== undefined) unreadShape(unread, 'Converse document block (bytes or an S3 object, not text)')
  return []
}

/** A Cohere document: a string, or an object whose `data` (a string, or fields of text) the model reads. */
function cohereDocumentText(d: Json): string[] {
  if (typeof d === 'string') return str(d)
  if (!isObj(d)) return []
  const data = d.data ?? d.document
  return typeof data === 'string' ? str(data) : isObj(data) ? leafTexts(data) : []
}

/** An Assistants thread created with its run: its messages. */
function threadText(thread: Obj, unread: string[]): string {
  requestMembers(thread, new Set(['messages']), new Set(['tool_resources', 'metadata']), 'Assistants thread member', unread)
  return Array.isArray(thread.messages) ? messagesText(thread.messages, unread) : ''
}

function promptText(prompt: Json): string {
  if (typeof prompt === 'string') return prompt
  // An array of strings is a batch; an array of integers is pre-tokenised and has no text.
  if (Array.isArray(prompt)) return prompt.filter((p): p is string => typeof p === 'string').join('\n')
  return ''
}

/**
 * Request messages (chat `messages`, Messages API `messages`, Responses API `input` items) in
 * order, one per line. Besides a message's content: the arguments of the tool calls it made (chat
 * `tool_calls`), a chat assistant message's `refusal`, and what a Responses API item other than a
 * message carries (itemText): every one of them is text the caller sent the model, replaying its
 * own history or handing back a tool's output.
 */
function messagesText(messages: Json[], unread: string[]): string {
  const out: string[] = []
  for (const m of messages) {
    if (typeof m === 'string') out.push(m)
    else if (isObj(m)) {
      const t = requestContentText(m.content, unread)
      if (t) out.push(t)
      if (Array.isArray(m.tool_calls)) out.push(...toolCallArgs(m.tool_calls, unread))
      if (typeof m.refusal === 'string' && m.refusal !== '') out.push(m.refusal)
      if (typeof m.type === 'string' && READ_ITEMS.has(m.type)) out.push(...itemText(m))
      if (m.type === undefined || m.type === 'message') {
        // A chat message's legacy function call, earlier reasoning sent back (DeepSeek's, vLLM's,
        // Ollama's `thinking`), Cohere's tool plan: text the caller sent the model.
        if (isObj(m.function_call)) out.push(...toolArguments(m.function_call.arguments))
        for (const key of ['reasoning_content', 'reasoning', 'thinking', 'tool_plan'] as const) out.push(...str(m[key]))
        // A participant's name (chat `name`): the model is shown it with the message.
        out.push(...str(m.name))
        requestMembers(m, MESSAGE_IN_READ, MESSAGE_IN_NO_TEXT, 'request message member', unread)
      }
    }
  }
  return out.join('\n')
}

const MESSAGE_IN_READ = new Set(['content', 'tool_calls', 'refusal', 'type', 'function_call', 'reasoning_content', 'reasoning', 'thinking', 'tool_plan', 'name'])
/** A message's role and ids, an image's bytes (Ollama), a cache breakpoint, prefix flags, an Assistants message's attachments (file ids) and metadata. */
const MESSAGE_IN_NO_TEXT = new Set(['role', 'tool_call_id', 'id', 'status', 'audio', 'images', 'tool_name', 'cache_control', 'prefix', 'partial', 'attachments', 'metadata'])

/**
 * Responses API input items (besides messages) read by itemText. An assistant's earlier output
 * items come back in `input` when the caller replays its history, and tool outputs are what the
 * caller hands the model: a marker in any of them, repeated by the model, is an echo.
 */
const READ_ITEMS = new Set([
  'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'reasoning', 'mcp_call', 'mcp_approval_request',
  'computer_call', 'computer_call_output', 'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output',
  'apply_patch_call', 'apply_patch_call_output', 'code_interpreter_call', 'file_search_call', 'web_search_call',
])

const str = (v: Json | undefined): string[] => (typeof v === 'string' && v !== '' ? [v] : [])
/** A tool output: a string, or content parts (`input_text`...) as contentText reads them. */
const outputText = (v: Json | undefined): string[] => str(typeof v === 'string' ? v : contentText(v))
/** Each object's `key` strings, in order. */
const eachOf = (v: Json | undefined, key: string): string[] => (Array.isArray(v) ? v.flatMap((x) => (isObj(x) ? str(x[key]) : [])) : [])

/**
 * A Responses API item's texts beside its `content`, each on its own line: a function or MCP
 * call's arguments, a custom tool's input, any tool's output (and an MCP call's error), a
 * reasoning item's summary (its `reasoning_text` parts are content), a computer action's typed
 * text and the safety checks' messages, a shell command and its output, a patch, interpreter code
 * and logs, file search queries and results, a web search query.
 */
function itemText(m: Obj): string[] {
  switch (m.type) {
    case 'function_call':
    case 'mcp_approval_request':
      return typeof m.arguments === 'string' ? [m.arguments] : []
    case 'function_call_output':
    case 'custom_tool_call_output':
    case 'local_shell_call_output':
    case 'apply_patch_call_output':
      return outputText(m.output)
    case 'custom_tool_call':
      return str(m.input)
    case 'mcp_call':
      return [...str(m.arguments), ...outputText(m.output), ...str(m.error)]
    case 'reasoning':
      return str(contentText(m.summary))
    case 'computer_call':
      return [...(isObj(m.action) ? str(m.action.text) : []), ...eachOf(m.pending_safety_checks, 'message')]
    case 'computer_call_output':
      return eachOf(m.acknowledged_safety_checks, 'message')
    case 'local_shell_call':
      return isObj(m.action) && Array.isArray(m.action.command) ? str(m.action.command.filter((c): c is string => typeof c === 'string').join(' ')) : []
    case 'shell_call':
      return isObj(m.action) && Array.isArray(m.action.commands) ? m.action.commands.flatMap(str) : []
    case 'shell_call_output':
      return Array.isArray(m.output) ? m.output.flatMap((o) => (isObj(o) ? [...str(o.stdout), ...str(o.stderr)] : [])) : outputText(m.output)
    case 'apply_patch_call':
      return isObj(m.operation) ? str(m.operation.diff) : []
    case 'code_interpreter_call':
      return [...str(m.code), ...eachOf(m.outputs, 'logs')]
    case 'file_search_call':
      return [...(Array.isArray(m.queries) ? m.queries.flatMap(str) : []), ...eachOf(m.results, 'text')]
    case 'web_search_call':
      return isObj(m.action) ? [...str(m.action.query), ...(Array.isArray(m.action.queries) ? m.action.queries.flatMap(str) : [])] : []
    default:
      return []
  }
}

/**
 * A request message's content: a string, or its parts (OpenAI content parts, Messages API content
 * blocks), each on a line of its own (requestBlocksText). A block that holds what the caller gave the model, or what
 * the model said earlier and the caller sends back, is read with it (requestBlockText); so a
 * marker the caller sent in, say, a tool result and the model repeats is found in the prompt (an
 * echo, no leak).
 */
function requestContentText(content: Json | undefined, unread: string[]): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return requestBlocksText(content.map((block) => (isConverseBlock(block) ? converseBlockText(block as Obj, unread) : requestBlockText(block, unread))))
}

/**
 * A request's parts, each on a line of its own (parts without text skipped). The caller wrote
 * them apart, and the model saw them apart: vLLM's chat template joins a message's text parts
 * with a newline. Joined with nothing, the last word of one part and the first of the next fused
 * into one word, and a verbatim run across the boundary was lost.
 */
function requestBlocksText(texts: string[]): string {
  return texts.filter((t) => t !== '').join('\n')
}

function requestBlockText(block: Json, unread: string[]): string {
  if (typeof block === 'string') return block
  if (!isObj(block)) return ''
  switch (block.type) {
    case 'tool_result':
    case 'mcp_tool_result':
      return requestContentText(block.content, unread)
    case 'document':
      // A Messages API document (`source`); a Cohere document part (`document.data`).
      return isObj(block.document) ? cohereDocumentText(block.document).join('\n') : documentText(block.source, unread)
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      return isObj(block.input) ? JSON.stringify(block.input) : ''
    // Anthropic's `thinking` string; a Mistral thinking part's text chunks.
    case 'thinking':
      return typeof block.thinking === 'string' ? block.thinking : Array.isArray(block.thinking) ? contentText(block.thinking) : typeof block.text === 'string' ? block.text : ''
    case 'refusal':
      return typeof block.refusal === 'string' ? block.refusal : ''
    case 'search_result':
      return [...str(block.source), ...str(block.title), ...str(requestContentText(block.content, unread))].join('\n')
    case 'web_search_tool_result':
      // Each result's url and title; its page text is encrypted (`encrypted_content`), no text.
      return Array.isArray(block.content) ? block.content.flatMap((r) => (isObj(r) ? [...str(r.url), ...str(r.title)] : [])).join('\n') : ''
    case 'web_fetch_tool_result':
      // The page fetched: its url and a document block.
      return isObj(block.content) ? [...str(block.content.url), ...str(requestBlockText(block.content.content ?? null, unread))].join('\n') : ''
    case 'code_execution_tool_result':
    case 'bash_code_execution_tool_result':
    case 'text_editor_code_execution_tool_result': {
      // The run's stdout and stderr; a viewed file's content (text editor).
      const c = block.content
      return isObj(c) ? [...str(c.stdout), ...str(c.stderr), ...str(c.content)].join('\n') : ''
    }
    default:
      return typeof block.text === 'string' ? block.text : ''
  }
}

/** A Messages API document's text: a plain-text source's `data`, or a content source's blocks (a base64 PDF or a URL holds none here). */
function documentText(source: Json | undefined, unread: string[]): string {
  if (!isObj(source)) return ''
  if (source.type === 'text' && typeof source.data === 'string') return source.data
  if (source.type === 'content') return requestContentText(source.content, unread)
  return ''
}

/**
 * Blocks in order: consecutive text blocks are one running text (split only where, e.g., a
 * citation starts), so they join with nothing between; any other block (thinking, a tool call, a
 * tool result) stands apart on its own line. Blocks without text are skipped.
 */
function blocksText(blocks: Iterable<{text: string; isText: boolean}>): string {
  let text = ''
  let prevText = false
  for (const {text: t, isText} of blocks) {
    if (t === '') continue
    text += text === '' || (isText && prevText) ? t : '\n' + t
    prevText = isText
  }
  return text
}

/** A message's or delta's reasoning text: `reasoning_content` where it is a string, else `reasoning` where that is. */
function reasoningOf(m: Record<string, unknown>): string | null {
  return typeof m.reasoning_content === 'string' ? m.reasoning_content : typeof m.reasoning === 'string' ? m.reasoning : null
}

/**
 * `reasoning` where a server wrote both names and they differ: the client was given both, so both
 * are read (the same text under both names is read once).
 */
function otherReasoningOf(m: Record<string, unknown>): string | null {
  return typeof m.reasoning_content === 'string' && typeof m.reasoning === 'string' && m.reasoning !== m.reasoning_content ? m.reasoning : null
}

/**
 * An answer's `content` (a message's, a delta's): contentText's, a Mistral `thinking` part's own
 * text (a string, or text parts), and a refusal part's refusal, in order. A part of a type not
 * known here (CHAT_ANSWER_PARTS) is read by its `text` where it has one, and named in `unread`:
 * what else it gave the client was not searched. Only answers: a request's content is contentText.
 */
function answerContentText(content: Json | undefined, unread: string[]): string {
  if (!Array.isArray(content)) return contentText(content)
  const out: string[] = []
  for (const part of content) {
    if (isObj(part) && part.type === 'thinking' && part.text === undefined) out.push(answerContentText(part.thinking, unread))
    else if (isObj(part) && part.type === 'refusal' && typeof part.refusal === 'string') out.push(part.refusal)
    else {
      if (isObj(part) ? !(part.type === undefined ? typeof part.text === 'string' : typeof part.type === 'string' && CHAT_ANSWER_PARTS.has(part.type)) : part !== null && typeof part !== 'string') {
        unreadShape(unread, shapeName('Chat Completions content part', isObj(part) ? part.type : undefined))
      }
      out.push(contentText([part]))
    }
  }
  return out.join('')
}

/**
 * The content parts of a chat answer read whole: a text part, Mistral's thinking part (its
 * `thinking` chunks, or its `text`), a refusal part. A part without a type is read by its `text`.
 */
const CHAT_ANSWER_PARTS = new Set(['text', 'thinking', 'refusal'])

/**
 * A function call's arguments as the client was given them: a JSON text, or (some servers) the
 * object itself, written as JSON.
 */
function functionArgs(fn: Json | undefined): string | null {
  if (!isObj(fn)) return null
  if (typeof fn.arguments === 'string') return fn.arguments
  return isObj(fn.arguments) || Array.isArray(fn.arguments) ? JSON.stringify(fn.arguments) : null
}

/**
 * A function call's arguments as the client's code reads them: JSON text it parses. Where the text
 * holds an escape and parses, its strings (keys and values) decoded follow it, each on a line of
 * its own, so a marker written with an escape (`CANARY-\u0066…`) is found as the parsed string
 * holds it, as a Messages API tool input is (streamBlockText). The raw text stays first: it is what
 * was sent, numbers included. Text without an escape has no string that reads otherwise; text
 * that does not parse (a stream cut short, a server's own format) is read as it came. A key given
 * twice is no refusal here: the client's parser takes the last value, and the raw text holds both.
 */
export function argumentsText(raw: string): string {
  if (!raw.includes('\\')) return raw
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return raw
  }
  const strings: string[] = []
  // A walk without recursion: the arguments may nest deeper than the call stack goes.
  const stack: unknown[] = [parsed]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'string') strings.push(v)
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i])
    else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1], entries[i]![0])
    }
  }
  const decoded = strings.filter((t) => t !== '')
  return decoded.length === 0 ? raw : `${raw}\n${decoded.join('\n')}`
}

/**
 * An answer's tool calls' texts: a function call's arguments (functionArgs, `tool_calls[].function`)
 * or a custom tool call's input (`tool_calls[].custom.input`, Chat Completions' custom tools, as the
 * Responses API's `custom_tool_call.input` is read). A call's other members are checked (toolCallText).
 */
function answerToolCallArgs(calls: Json[], unread: string[]): string[] {
  const out: string[] = []
  for (const call of calls) {
    const args = toolCallText(call, unread)
    if (args !== null) out.push(args)
  }
  return out
}

/**
 * One chat tool call's text (a function's arguments, a custom tool's input), or null; a member of
 * the call (or of its `function` or `custom`) neither read nor known to carry no text is named in
 * `unread` (unknownMembers). A function's arguments are read by argumentsText where they are
 * whole (`wholeArgs`); a stream's pieces are joined first (decodeSse).
 */
function toolCallText(call: Json, unread: string[], wholeArgs = true): string | null {
  if (!isObj(call)) return null
  unknownMembers(call, TOOL_CALL_READ, TOOL_CALL_NO_TEXT, 'chat tool call member', unread)
  if (isObj(call.function)) unknownMembers(call.function, FUNCTION_READ, TOOL_NAME, 'chat tool call function member', unread)
  if (isObj(call.custom)) unknownMembers(call.custom, CUSTOM_READ, TOOL_NAME, 'chat custom tool call member', unread)
  const args = functionArgs(call.function)
  if (args !== null) return wholeArgs ? argumentsText(args) : args
  return isObj(call.custom) && typeof call.custom.input === 'string' ? call.custom.input : null
}

/**
 * `content` as a string or as OpenAI content parts (`[{type: "text", text}]`): a request's parts
 * each on a line of its own (requestBlocksText); `between` '' for an answer's parts, pieces of
 * one running text the model wrote (answerContentText joins them so).
 */
function contentText(content: Json | undefined, between = '\n'): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const out: string[] = []
  for (const part of content) {
    if (typeof part === 'string') out.push(part)
    else if (isObj(part) && typeof part.text === 'string') out.push(part.text)
  }
  return between === '' ? out.join('') : requestBlocksText(out)
}

/**
 * A request's earlier tool calls: a function call's arguments (a string, or an object as Ollama
 * sends them, as JSON) and a custom tool call's `input`; any other member holding text is named in
 * `unread`.
 */
function toolCallArgs(calls: Json[], unread: string[]): string[] {
  const out: string[] = []
  for (const call of calls) {
    if (!isObj(call)) continue
    requestMembers(call, new Set(['function', 'custom']), new Set(['id', 'type', 'index']), 'request tool call member', unread)
    if (isObj(call.function)) {
      requestMembers(call.function, new Set(['arguments']), new Set(['name']), 'request tool call function member', unread)
      out.push(...toolArguments(call.function.arguments))
    }
    if (isObj(call.custom)) {
      requestMembers(call.custom, new Set(['input']), new Set(['name']), 'request custom tool call member', unread)
      out.push(...str(call.custom.input))
    }
  }
  return out
}

/** A function call's arguments: the JSON text as sent, or an object's JSON (Ollama). An empty string is pushed as the call's (as before). */
function toolArguments(args: Json | undefined): string[] {
  return typeof args === 'string' ? [args] : isObj(args) ? [JSON.stringify(args)] : []
}

// ---------------------------------------------------------------- responses

export function decodeResponse(body: unknown): DecodedResponse {
  if (body === undefined || body === null) return empty('none')
  if (typeof body === 'string') return decodeResponseString(body)
  if (isObj(body)) return decodeResponseObject(body, false)
  if (Array.isArray(body)) return decodeResponseArray(body)
  return {...empty('json'), text: JSON.stringify(body)}
}

/**
 * A streamed answer logged as a list: its chunks (OpenAI chunks, Messages API events, Responses
 * API events) as objects, or as the raw "data: ..." lines of the stream. It is read as the stream
 * it is, deltas joined, so a marker split across deltas is whole. A list that is not a stream has
 * no readable text: never its JSON dump, where a split marker would be missed and the gate pass.
 */
function decodeResponseArray(items: Json[]): DecodedResponse {
  const lines: string[] = []
  for (const item of items) {
    if (isObj(item)) lines.push('data: ' + JSON.stringify(item))
    else if (typeof item === 'string' && startsAsSse(item.trimStart())) lines.push(item.trimStart())
    else return empty('json')
  }
  return decodeSse(lines.join('\n\n')) ?? empty('json')
}

/**
 * A stream logged as a JSON list of its chunks and cut off (Gemini's `streamGenerateContent`
 * without `alt=sse` answers with such a list): the list as far as it goes (jsonPrefix), read as
 * the stream it is, so a marker split across the last whole chunk and the cut one is found; the
 * raw text is searched as well, as a stream's cut-off event is (decodeSse). The shapes not read
 * are those of the whole chunks (the cut one's rebuilt members may be cut short). Null where the
 * text does not start a list of stream chunks.
 */
function decodeCutList(raw: string): DecodedResponse | null {
  const rebuilt = within('(a list cut off)', () => jsonPrefix(raw))
  if (!Array.isArray(rebuilt) || rebuilt.length === 0 || !rebuilt.every(isObj) || !isStreamChunk(rebuilt[0] as Obj)) return null
  const out = decodeResponseArray(rebuilt)
  if (!out.stream) return null
  out.unread = rebuilt.length > 1 ? decodeResponseArray(rebuilt.slice(0, -1)).unread : []
  out.text = withErrorTexts(out.text, [raw])
  out.unparsed = (out.unparsed ?? 0) + 1
  return out
}

function empty(kind: ResponseKind): DecodedResponse {
  return {kind, text: '', stream: false, isError: false, errorMessage: null, promptTokens: null, completionTokens: null, cachedTokens: null, unread: []}
}

/** The fields a server-sent-event stream's first line can start with (a comment starts with `:`). */
export function startsAsSse(head: string): boolean {
  return head.startsWith('data:') || head.startsWith('event:') || head.startsWith(':') || head.startsWith('id:') || head.startsWith('retry:')
}

/**
 * A text that is a server-sent-event stream, read as the stream it is (deltas joined, so a marker
 * split across chunks is whole); null for any other text. A text that only starts like a stream
 * (":) thanks", "data: see below") holds no event: it is text, and null here. The readers of
 * formats that keep a gateway's raw body in a string (a Langfuse output, an OTel completion's
 * content) read such a string with this, as decodeResponse reads a body that is one.
 */
export function decodeSseText(raw: string): DecodedResponse | null {
  if (!startsAsSse(raw.trimStart())) return null
  // A stream whose line breaks were lost ("data: {...}data: {...}data: [DONE]"): its events split
  // where a data field starting a JSON document or [DONE] follows one's closing brace.
  const text = !raw.includes('\n') && !raw.includes('\r') && raw.includes('}data:') ? raw.replace(/\}(?=data: ?(?:\{|\[DONE\]))/g, '}\n\n') : raw
  return decodeSse(text)
}

function decodeResponseString(raw: string): DecodedResponse {
  const head = raw.trimStart()
  if (startsAsSse(head)) return decodeSseText(raw) ?? {...empty('text'), text: raw}
  if (head.startsWith('{') || head.startsWith('[')) {
    const parsed = tryParseJson(raw)
    if (isObj(parsed)) return decodeResponseObject(parsed, false)
    if (Array.isArray(parsed)) return decodeResponseArray(parsed)
    if (head.startsWith('{')) {
      const ndjson = decodeNdjson(raw)
      if (ndjson !== null) return ndjson
    }
    if (head.startsWith('[')) {
      const cut = decodeCutList(raw)
      if (cut !== null) return cut
    }
  }
  return {...empty('text'), text: raw}
}

/**
 * A body of several JSON documents one per line (NDJSON): a stream logged as its chunks without
 * the `data: ` fields (OpenAI chunks one per line; Ollama's /api/chat and /api/generate stream
 * NDJSON). Read as plain text, a marker split across chunks would be missed and the gate pass.
 * A stream (ndjsonStream) is read as the stream it is. Any other NDJSON body (objects of no
 * stream shape) is no text: not read, never searched as plain text, so the gate cannot pass it.
 * Null where the body is not two or more lines each opening with a JSON object, the first of
 * them whole.
 */
function decodeNdjson(raw: string): DecodedResponse | null {
  const lines = ndjsonLines(raw)
  if (lines === null) return null
  return ndjsonStream(lines) ?? empty('json')
}

/**
 * A text that is a stream kept as NDJSON (ndjsonStream), read as the stream it is; null for any
 * other text, lines of JSON objects of no stream shape included: those stay the text they are.
 */
function decodeNdjsonText(raw: string): DecodedResponse | null {
  const lines = ndjsonLines(raw)
  return lines === null ? null : ndjsonStream(lines)
}

/** The non-blank lines of a text of two or more lines each opening with a JSON object, the first of them whole; null for any other text. */
function ndjsonLines(raw: string): {lines: string[]; docs: unknown[]} | null {
  const lines = splitLines(raw).map((l) => l.trim()).filter((l) => l !== '')
  if (lines.length < 2 || !lines.every((l) => l.startsWith('{'))) return null
  const docs = lines.map(parseLoose)
  return isObj(docs[0]) ? {lines, docs} : null
}

/**
 * NDJSON lines that are a stream, read as it: where every line that is a JSON document is a
 * chunk or event of a stream this decoder reads (stream chunks with `choices`, Responses API
 * `response.*` events, Messages API events, error objects), the lines are read as that stream is
 * (decodeSse: deltas joined; a line that is no document, such as a last line cut off, searched
 * as its raw text). An Ollama stream (every line a whole chunk with `done` and a `message` or
 * `response`) is read as its chunks joined (ollamaTexts). Null for lines of any other objects.
 */
function ndjsonStream({lines, docs}: {lines: string[]; docs: unknown[]}): DecodedResponse | null {
  if (docs.every((d) => isObj(d) && isOllama(d))) {
    // An Ollama stream: its chunks' message content (or `response`) joined in order; the done chunk's counts.
    const out = empty('json')
    out.stream = true
    out.kind = 'chat'
    const chunks = docs as Obj[]
    out.text = ollamaTexts(chunks, out.unread)
    const last = chunks[chunks.length - 1]!
    out.promptTokens = intOrNull(last.prompt_eval_count)
    out.completionTokens = intOrNull(last.eval_count)
    return out
  }
  if (!docs.every((d) => d === undefined || (isObj(d) && isStreamChunk(d)))) return null
  return decodeSse(lines.map((l) => `data: ${l}`).join('\n\n'))
}

/**
 * A text that is a stream, read as the stream it is (deltas joined, so a marker split across
 * chunks is whole): its server-sent-event text (decodeSseText), or its chunks one per line
 * without `data: ` fields (NDJSON, as Ollama streams and some gateways log a stream), decided as
 * decodeResponse decides a body that is one (decodeNdjson); null for any other text, which stays
 * the text it is. The readers of formats that keep a gateway's raw body in a string (a Langfuse
 * output or message content, an OTel completion's content or text part) read such a string with this.
 */
export function decodeStreamText(raw: string): DecodedResponse | null {
  return decodeSseText(raw) ?? (raw.trimStart().startsWith('{') ? decodeNdjsonText(raw) : null)
}

/** JSON.parse's value, or undefined (no duplicate-key check: decodeSse reads the documents again with it). */
function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Whether a document is a chunk or event of a stream decodeSse reads: chat/completions chunks, Responses or Messages API events, an error, another provider's stream's (isProviderStreamChunk). */
function isStreamChunk(d: Obj): boolean {
  if (Array.isArray(d.choices)) return true
  if (typeof d.type === 'string' && (d.type.startsWith('response.') || MESSAGES_EVENTS.has(d.type))) return true
  return errorOf(d) !== null || isProviderStreamChunk(d)
}

function decodeResponseObject(obj: Obj, stream: boolean): DecodedResponse {
  const out = empty('json')
  out.stream = stream
  if (isEmbeddingList(obj)) {
    // Vectors answer an embedding request: no text the client was given, so none to search.
    out.noTextByDesign = EMBEDDING_ANSWER
    readUsage(obj.usage, out)
    return out
  }
  const error = errorOf(obj)
  if (error !== null) {
    out.kind = 'error'
    out.isError = true
    out.errorMessage = error
  }
  if (Array.isArray(obj.choices)) {
    const texts: string[] = []
    let chat = false
    for (const choice of obj.choices) {
      if (!isObj(choice)) continue
      unknownMembers(choice, CHOICE_READ, CHOICE_NO_TEXT, 'chat choice member', out.unread)
      // A message; a choice giving a `delta` instead (a stream's chunk logged as the body) is read as one.
      const msgs = [choice.message, choice.delta].filter(isObj)
      for (const msg of msgs) {
        chat = true
        unknownMembers(msg, MESSAGE_READ, MESSAGE_NO_TEXT, 'chat message member', out.unread)
        const t = [answerContentText(msg.content, out.unread)]
        // An audio answer's words (`message.audio.transcript`): what the client was given, content null beside it.
        const transcript = audioTranscript(msg.audio)
        if (transcript !== null) t.push(transcript)
        // Reasoning text: `reasoning_content` (DeepSeek's name, vLLM until 2026) or `reasoning` (vLLM since, OpenRouter, gpt-oss); both where a server writes both and they differ.
        const reasoning = reasoningOf(msg)
        const other = otherReasoningOf(msg)
        if (other !== null) t.unshift(other)
        if (reasoning !== null) t.unshift(reasoning)
        if (Array.isArray(msg.tool_calls)) t.push(...answerToolCallArgs(msg.tool_calls, out.unread))
        // The legacy `functions` API's call, which a message may carry beside its content.
        const legacy = functionArgs(msg.function_call)
        if (legacy !== null) t.push(argumentsText(legacy))
        // A refusal is what the client was shown in place of content (OpenAI's `message.refusal`).
        if (typeof msg.refusal === 'string') t.push(msg.refusal)
        // A web search answer's citations (`annotations[].url_citation`: url and title), given to the client with it.
        t.push(...leafTexts(msg.annotations))
        const extras = messageExtras(msg, out.unread)
        // Reasoning details repeating the reasoning read above are that text.
        if (extras.details !== (reasoning ?? '')) t.push(extras.details)
        // LiteLLM's thinking blocks repeating the reasoning read above are that text.
        if (extras.thinking !== (reasoning ?? '')) t.push(extras.thinking)
        t.push(...extras.lines)
        // A choice's `text` beside its message, where it says something else.
        if (msg === msgs[0] && typeof choice.text === 'string' && choice.text !== '' && choice.text !== contentText(msg.content, '')) t.push(choice.text)
        texts.push(t.filter(Boolean).join('\n'))
      }
      if (msgs.length === 0 && typeof choice.text === 'string') texts.push(choice.text)
    }
    // The sources a search model answered from (citations, search results), after the choices.
    texts.push(...sourceTexts(obj))
    out.text = texts.join('\n')
    if (!out.isError) out.kind = chat || obj.object === 'chat.completion' ? 'chat' : 'completion'
    unknownMembers(obj, topRead(obj, false), TOP_NO_TEXT, 'chat body member', out.unread)
  } else if (Array.isArray(obj.output)) {
    // The Responses API (/v1/responses: OpenAI, vLLM, SGLang): `output` items in order.
    out.text = responsesOutput(obj.output, out.unread, out)
    if (!out.isError) out.kind = 'chat'
  } else if (obj.type === 'message' && Array.isArray(obj.content)) {
    // Anthropic's Messages API (/v1/messages; vLLM serves it too): content blocks in order.
    out.text = messagesBlocks(obj.content, out.unread)
    if (!out.isError) out.kind = 'chat'
  } else if (wellKnownAnswer(obj, out)) {
    // Another provider's answer (Gemini, Bedrock, Cohere, Titan, Assistants, Ollama): read by its shape.
    if (!out.isError) out.kind = 'chat'
  } else if (error !== null) {
    // An error body (no answer beside it): its members are the error's, or known to carry no text.
    unknownMembers(obj, topRead(obj, false), TOP_NO_TEXT, 'error body member', out.unread)
  }
  out.text = withErrorTexts(out.text, error === null || isUnnamedError(obj) ? [] : [error, ...errorDetails(obj)])
  readUsage(obj.usage, out)
  return out
}

/** What an embedding answer is said to be, where it is counted (parse-record.ts). */
export const EMBEDDING_ANSWER = 'an embedding answer: vectors, no text to search'

/** The members an embeddings answer (OpenAI's `/v1/embeddings`; vLLM and Mistral add `id` and `created`) and each of its items hold. */
const EMBEDDING_LIST_KEYS = new Set(['object', 'data', 'model', 'usage', 'id', 'created'])
const EMBEDDING_KEYS = new Set(['object', 'embedding', 'index'])

/**
 * Whether a body is an embeddings answer and nothing else: `{"object": "list", "data": [{"object":
 * "embedding", "embedding": [numbers] or a base64 string, "index"}...]}` with no member beyond
 * those the API gives. Anything else (a member more, an item of another kind) is no embedding
 * answer, and what it holds is not passed over as vectors.
 */
function isEmbeddingList(obj: Obj): boolean {
  if (obj.object !== 'list' || !Array.isArray(obj.data) || obj.data.length === 0) return false
  if (!Object.keys(obj).every((k) => EMBEDDING_LIST_KEYS.has(k))) return false
  if (!(obj.model === undefined || typeof obj.model === 'string') || !(obj.id === undefined || typeof obj.id === 'string') || !(obj.created === undefined || typeof obj.created === 'number')) return false
  return obj.data.every(
    (e) =>
      isObj(e) && e.object === 'embedding' && Object.keys(e).every((k) => EMBEDDING_KEYS.has(k)) &&
      (typeof e.embedding === 'string' || (Array.isArray(e.embedding) && e.embedding.every((x) => typeof x === 'number'))),
  )
}

/**
 * The response text with the error messages the body carried (errorOf's, a stream's error
 * events'): the client was shown them, and a server may write what it was asked or another
 * request's data into one, so they are searched as the answer is. Each stands on its own line
 * after the answer's text, in the order given; a message crosstalk names itself ('error',
 * 'response failed') is none of the body's and is not added.
 */
function withErrorTexts(text: string, errors: string[]): string {
  return [text, ...errors].filter((t) => t !== '').join('\n')
}

/** vLLM's flat error without a message: errorOf names it 'error', a text the body does not hold. */
const isUnnamedError = (obj: Obj): boolean => obj.object === 'error' && typeof obj.message !== 'string'

/**
 * A Messages API response's blocks in order, joined as blocksText joins them (consecutive text
 * blocks with nothing between). A stream of the same answer gives the same text (messagesStreamText).
 */
function messagesBlocks(content: Json[], unread: string[]): string {
  const cited: string[] = []
  const text = blocksText(content.map((block) => ({text: messagesBlock(block, unread, cited), isText: isObj(block) && block.type === 'text'})))
  return withCitations(text, cited)
}

/**
 * The text blocks' citations after the blocks, each string on its own line: the running text of
 * consecutive text blocks stays one text (a marker split where a citation starts is whole).
 */
function withCitations(text: string, cited: readonly string[]): string {
  return [text, ...cited].filter((t) => t !== '').join('\n')
}

/**
 * A Messages API content block's text: a text block's (its citations' cited text, titles and
 * URLs added to `cited`), a thinking block's, a tool call's input as JSON, and the strings of a
 * block a server tool or an MCP server handed back (`mcp_tool_result`, `web_search_tool_result`,
 * `web_fetch_tool_result`, `code_execution_tool_result` and every other `…_tool_result`: the
 * pages, outputs and documents the client received), or of a `document` or `search_result`. A
 * `redacted_thinking` block (encrypted) and a `container_upload` (a file id) hold no text. A block
 * of any other type is named in `unread`: its text, if any, is not searched.
 */
function messagesBlock(block: Json, unread: string[], cited: string[]): string {
  if (!isObj(block)) {
    if (block !== null) unreadShape(unread, shapeName('Messages API content block', undefined))
    return ''
  }
  const type = block.type
  if (type === 'text') {
    cited.push(...leafTexts(block.citations))
    return typeof block.text === 'string' ? block.text : ''
  }
  if (type === 'thinking') return typeof block.thinking === 'string' ? block.thinking : ''
  if (isToolUse(type)) return isObj(block.input) ? JSON.stringify(block.input) : ''
  if (type === 'redacted_thinking' || type === 'container_upload') return ''
  if (typeof type === 'string' && (type.endsWith('_tool_result') || type === 'document' || type === 'search_result')) return leafTexts(block).join('\n')
  unreadShape(unread, shapeName('Messages API content block', type))
  return ''
}

/**
 * Keys whose strings are identifiers, states or opaque data (an encrypted payload, a signature),
 * not text a person reads: leafTexts passes over them.
 */
const OPAQUE_KEYS = new Set([
  'type', 'id', 'call_id', 'tool_use_id', 'item_id', 'status', 'encrypted_content', 'encrypted_index', 'signature', 'file_id', 'container_id', 'approval_request_id', 'media_type',
])

/**
 * Every string in a value, in document order, except under OPAQUE_KEYS and a base64 source's
 * `data` (a PDF's or an image's bytes): what a tool's call and answer (a search's results, a
 * shell's output, a fetched document) gave the client, each string one text. Numbers and booleans
 * are no text. Walked with a stack of its own: a body nested deeper than the call stack is still
 * read whole.
 */
function leafTexts(value: Json | undefined): string[] {
  // Most answers carry none (no annotations, an empty list): no walk.
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return []
  const out: string[] = []
  const stack: Json[] = value === undefined ? [] : [value]
  while (stack.length > 0) {
    const v = stack.pop()!
    if (typeof v === 'string') {
      if (v !== '') out.push(v)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]!)
    } else if (isObj(v)) {
      const entries = Object.entries(v).filter(([k]) => !OPAQUE_KEYS.has(k) && !(k === 'data' && v.type === 'base64'))
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]![1])
    }
  }
  return out
}

/**
 * What a chat message or delta carries besides its content, reasoning, tool calls, refusal,
 * annotations and audio: `details`, the text of its `reasoning_details` (OpenRouter: a
 * `reasoning.text`'s text and a `reasoning.summary`'s summary, joined; a `reasoning.encrypted`
 * holds no text; a detail of another type is named in `unread`); `thinking`, the text of
 * LiteLLM's `thinking_blocks` (thinkingBlocksText); and `lines`, every string of Azure OpenAI On
 * Your Data's `context` (the retrieved documents' `citations[].content`, titles and paths, the
 * `intent`, `all_retrieved_documents`), of Groq's `executed_tools` (a tool's arguments, output
 * and search results) and of the `citations` in LiteLLM's `provider_specific_fields`: texts the
 * client was handed with the answer.
 */
function messageExtras(m: Obj, unread: string[]): {details: string; thinking: string; lines: string[]} {
  let details = ''
  if (Array.isArray(m.reasoning_details)) {
    for (const d of m.reasoning_details) {
      if (!isObj(d)) {
        if (d !== null) unreadShape(unread, shapeName('reasoning detail', undefined))
        continue
      }
      if (d.type === 'reasoning.text' && typeof d.text === 'string') details += d.text
      else if (d.type === 'reasoning.summary' && typeof d.summary === 'string') details += d.summary
      else if (d.type !== 'reasoning.encrypted' && d.type !== 'reasoning.text' && d.type !== 'reasoning.summary') unreadShape(unread, shapeName('reasoning detail', d.type))
    }
  }
  // LiteLLM's `thinking_blocks`, on the message and in its `provider_specific_fields` (the same blocks, read once).
  const psf = isObj(m.provider_specific_fields) ? m.provider_specific_fields : null
  const thinking = thinkingBlocksText(m.thinking_blocks, unread)
  const psfThinking = psf === null ? '' : thinkingBlocksText(psf.thinking_blocks, unread)
  const lines = [...leafTexts(m.context), ...leafTexts(m.executed_tools)]
  if (psf !== null) {
    unknownMembers(psf, PSF_READ, new Set(), 'LiteLLM provider_specific_fields member', unread)
    // Anthropic's citations, which LiteLLM moves here: the cited texts and sources the client was given.
    lines.push(...leafTexts(psf.citations))
  }
  return {details, thinking: psfThinking === '' || psfThinking === thinking ? thinking : thinking === '' ? psfThinking : `${thinking}\n${psfThinking}`, lines}
}

/** The members of LiteLLM's `provider_specific_fields` whose shape is known and read; any other holding a string is named unread. */
const PSF_READ = new Set(['thinking_blocks', 'citations'])

/**
 * LiteLLM's `thinking_blocks` (Anthropic's thinking blocks, which LiteLLM passes on beside
 * `reasoning_content`): a `thinking` block's text, joined; a `redacted_thinking` block's `data` is
 * encrypted, a signature opaque. Thinking text returned to the client is text it received. A block
 * of another type, or a member not known here holding a string, is named in `unread`.
 */
function thinkingBlocksText(blocks: Json | undefined, unread: string[]): string {
  if (!Array.isArray(blocks)) {
    if (blocks !== undefined && blocks !== null && leafTexts(blocks).length > 0) unreadShape(unread, shapeName('LiteLLM thinking blocks', undefined))
    return ''
  }
  let text = ''
  for (const b of blocks) {
    if (isObj(b) && b.type === 'thinking') {
      unknownMembers(b, new Set(['thinking']), THINKING_BLOCK_NO_TEXT, 'LiteLLM thinking block member', unread)
      if (typeof b.thinking === 'string') text += b.thinking
    } else if (isObj(b) && b.type === 'redacted_thinking') unknownMembers(b, new Set(), THINKING_BLOCK_NO_TEXT, 'LiteLLM thinking block member', unread)
    else if (b !== null) unreadShape(unread, shapeName('LiteLLM thinking block', isObj(b) ? b.type : undefined))
  }
  return text
}
/** A thinking block's type, signature (`signature_delta` in LiteLLM's streams), a redacted block's encrypted `data`, a cache control. */
const THINKING_BLOCK_NO_TEXT = new Set(['type', 'signature', 'signature_delta', 'data', 'cache_control'])

/**
 * Names in `unread` each member of `obj` that is neither read (`read`) nor known to carry no
 * answer text (`noText`) and holds a string leafTexts would read (a member holding only numbers,
 * flags, nulls or opaque ids drops no text): `what "name"`. A chat body, chunk, choice, message,
 * delta and tool call are so read closed-world: a member this release does not know, which may
 * hold what the client was shown, makes the record not read whole instead of being passed over.
 */
function unknownMembers(obj: Obj, read: ReadonlySet<string>, noText: ReadonlySet<string>, what: string, unread: string[]): void {
  for (const key of Object.keys(obj)) {
    if (read.has(key) || noText.has(key)) continue
    if (leafTexts(obj[key]).length > 0) unreadShape(unread, shapeName(what, key))
  }
}

/** A chat body's or chunk's top-level members read: its choices, error and usage (counts); a flat error's (`object: "error"`) `message`, or one read as an error event's (`messageRead`). */
function topRead(obj: Obj, messageRead: boolean): ReadonlySet<string> {
  return obj.object === 'error' || messageRead ? TOP_READ_ERROR : TOP_READ
}
const TOP_READ = new Set(['choices', 'error', 'usage', 'citations', 'search_results'])
const TOP_READ_ERROR = new Set([...TOP_READ, 'message'])

/**
 * Every string of a search model's top-level `citations` (Perplexity's and xAI's source URLs) and
 * `search_results` (Perplexity's titles, URLs, dates and snippets): what the client was handed
 * with the answer.
 */
function sourceTexts(obj: Obj): string[] {
  return [...leafTexts(obj.citations), ...leafTexts(obj.search_results)]
}
/**
 * A chat or completions body's (or stream chunk's, or error body's) top-level members that carry
 * no answer text: ids, the object's and model's names, times, the service tier, usage breakdowns,
 * content filter verdicts (Azure `prompt_filter_results`, `prompt_annotations` in its earlier API versions), the provider's name (OpenRouter
 * `provider`), Groq's `x_groq` and `usage_breakdown`, vLLM's prompt logprobs and token ids and
 * `kv_transfer_params`, OpenAI's stream `obfuscation` padding, request `metadata` (SGLang's weight
 * version), an error's type, code and parameter name, TGI's `error_type`, Anthropic's `request_id`.
 */
const TOP_NO_TEXT = new Set([
  'id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier', 'prompt_filter_results', 'prompt_annotations', 'provider', 'type', 'request_id', 'x_groq', 'usage_breakdown',
  'prompt_logprobs', 'prompt_token_ids', 'kv_transfer_params', 'obfuscation', 'metadata', 'param', 'code', 'error_type',
])
/** A choice's members read: its message, delta, text. */
const CHOICE_READ = new Set(['message', 'delta', 'text'])
/**
 * A choice's members that carry no answer text: its index, finish reason (OpenRouter's
 * `native_finish_reason` too), logprobs (the answer's own tokens), vLLM's `stop_reason` and
 * SGLang's `matched_stop` (a stop sequence the request gave), Azure's content filter verdicts,
 * Together's `seed`, vLLM's token ids.
 */
const CHOICE_NO_TEXT = new Set([
  'index', 'finish_reason', 'native_finish_reason', 'logprobs', 'stop_reason', 'matched_stop', 'content_filter_results', 'content_filter_result', 'content_filter_offsets',
  'seed', 'token_ids',
])
/** A chat message's or delta's members read (decodeResponseObject, decodeSse, messageExtras). */
const MESSAGE_READ = new Set([
  'content', 'refusal', 'reasoning', 'reasoning_content', 'tool_calls', 'function_call', 'audio', 'annotations', 'reasoning_details', 'context', 'executed_tools',
  'thinking_blocks', 'provider_specific_fields',
])
/**
 * A chat message's or delta's members that carry no answer text: its role, an author's name, Azure
 * On Your Data's `end_turn` flag, the images an image model answered with (OpenRouter `images`:
 * their data or URLs).
 */
const MESSAGE_NO_TEXT = new Set(['role', 'name', 'end_turn', 'images'])
/** A chat tool call's members read, and those with no text (its id, type, index; Gemini's `extra_content` thought signature is opaque). */
const TOOL_CALL_READ = new Set(['function', 'custom'])
const TOOL_CALL_NO_TEXT = new Set(['id', 'type', 'index', 'extra_content'])
const FUNCTION_READ = new Set(['arguments'])
const CUSTOM_READ = new Set(['input'])
/** A function's or custom tool's name: the request's tool's, no answer text. */
const TOOL_NAME = new Set(['name'])

/**
 * Every string of an error object the client was shown besides its message (errorOf), its type,
 * code, status and parameter name: Google's `details` (a BadRequest's field violations'
 * descriptions), Azure's `innererror`, Groq's `failed_generation`, any `metadata`. A flat error
 * (`object: "error"`) is its body, whose members are checked as a body's are.
 */
function errorDetails(obj: Obj): string[] {
  // An error without a string message is given whole already (errorOf writes it as JSON).
  if (obj.object === 'error' || !isObj(obj.error) || typeof obj.error.message !== 'string') return []
  return leafTexts(Object.fromEntries(Object.entries(obj.error).filter(([k]) => !ERROR_NO_TEXT.has(k))))
}
const ERROR_NO_TEXT = new Set(['message', 'type', 'code', 'status', 'param'])

/** An audio answer's transcript (chat `message.audio` / `delta.audio`), or null. */
function audioTranscript(audio: Json | undefined): string | null {
  return isObj(audio) && typeof audio.transcript === 'string' ? audio.transcript : null
}

/** Adds a shape not read to a response's `unread`, once. */
function unreadShape(unread: string[], name: string): void {
  if (!unread.includes(name)) unread.push(name)
}

/** A shape's name as status and the gate give it: what it is and its type, quoted as JSON writes it (a control character made visible), at most 60 characters of it. */
function shapeName(what: string, type: Json | undefined): string {
  if (typeof type !== 'string') return `${what} without a type`
  return `${what} ${JSON.stringify(type.length > 60 ? `${type.slice(0, 60)}…` : type)}`
}

/** A tool call the model wrote: a client tool's (`tool_use`), a server tool's such as web search (`server_tool_use`) or an MCP server's (`mcp_tool_use`); its input is text the model wrote. */
const isToolUse = (type: Json | undefined): boolean => type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use'

/** What a Messages API stream's deltas carry, by delta type: the text shown, the model's thinking, a tool call's input (JSON text in pieces). */
const MESSAGES_DELTAS: Record<string, string> = {text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'partial_json'}
/** The block a delta belongs to, where its start event was not logged. */
const DELTA_BLOCKS: Record<string, string> = {text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'tool_use'}
/** Deltas that carry no text: a thinking block's signature. A citation's delta is read (citations_delta). */
const NO_TEXT_DELTAS = new Set(['signature_delta'])
/** A Messages API stream's events that carry no text of their own (a message_start's content is read, where it holds any). */
const MESSAGES_EVENTS = new Set(['message_start', 'message_delta', 'message_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'ping', 'error'])

/** A Messages API stream's content block as its events build it: its type, its pieces of text, and a tool call's input as its start event gave it. */
interface StreamBlock {
  type: string | null
  pieces: string[]
  input: Json | undefined
}

/**
 * One event of a Messages API stream: a delta appended to its content block (index); a block
 * started with text already in it; the usage from message_start and message_delta.
 */
function messagesEvent(chunk: Obj, blocks: Map<number, StreamBlock>, cited: string[], out: DecodedResponse): void {
  const index = typeof chunk.index === 'number' ? chunk.index : 0
  const block = (): StreamBlock => {
    let b = blocks.get(index)
    if (!b) blocks.set(index, (b = {type: null, pieces: [], input: undefined}))
    return b
  }
  if (!MESSAGES_EVENTS.has(chunk.type as string)) {
    unreadShape(out.unread, shapeName('stream event', chunk.type))
  } else if (chunk.type === 'content_block_delta') {
    const delta = isObj(chunk.delta) ? chunk.delta : null
    const type = delta !== null && typeof delta.type === 'string' ? delta.type : undefined
    const key = type === undefined ? undefined : MESSAGES_DELTAS[type]
    if (delta === null || type === undefined) unreadShape(out.unread, shapeName('Messages API delta', type))
    else if (key !== undefined) {
      const piece = delta[key]
      if (typeof piece === 'string' && piece !== '') {
        const b = block()
        b.type ??= DELTA_BLOCKS[type]!
        b.pieces.push(piece)
      }
    } else if (type === 'citations_delta') cited.push(...leafTexts(delta.citation))
    else if (!NO_TEXT_DELTAS.has(type)) unreadShape(out.unread, shapeName('Messages API delta', type))
  } else if (chunk.type === 'content_block_start' && isObj(chunk.content_block)) {
    const b = block()
    const started = chunk.content_block
    b.type = typeof started.type === 'string' ? started.type : null
    if (isToolUse(started.type)) b.input = started.input
    else {
      const t = messagesBlock(started, out.unread, cited)
      if (t !== '') b.pieces.push(t)
    }
  } else if (chunk.type === 'message_start' && isObj(chunk.message)) {
    readUsage(chunk.message.usage, out)
    // A message started with blocks in it (none, from Anthropic): read as the message they begin.
    if (Array.isArray(chunk.message.content)) {
      const t = messagesBlocks(chunk.message.content, out.unread)
      if (t !== '') blocks.set(-1, {type: null, pieces: [t], input: undefined})
    }
  } else if (chunk.type === 'message_delta') {
    readUsage(chunk.usage, out)
  }
}

/**
 * A Messages API stream's blocks in index order, as the message they build would read
 * (messagesBlocks): consecutive text blocks joined with nothing between, so a marker split at a
 * block boundary is found in a stream exactly as in the same answer not streamed. A tool call's
 * input, streamed as pieces of JSON text, is written as the message's input object is
 * (JSON.stringify of the parsed pieces); pieces that do not parse (a stream cut short) are kept as
 * they came.
 */
function messagesStreamText(blocks: Map<number, StreamBlock>): string {
  return blocksText([...blocks].sort((a, b) => a[0] - b[0]).map(([, b]) => ({text: streamBlockText(b), isText: b.type === 'text'})))
}

function streamBlockText(b: StreamBlock): string {
  const joined = b.pieces.join('')
  if (!isToolUse(b.type)) return joined
  if (joined === '') return isObj(b.input) ? JSON.stringify(b.input) : ''
  const parsed = within('(tool input)', () => tryParseJson(joined))
  return isObj(parsed) ? JSON.stringify(parsed) : joined
}

/**
 * A Responses API `output`: per item, a message's text parts (`output_text`) and refusals, a
 * function call's arguments, or a reasoning item's text (its summary's `summary_text` parts,
 * then its `reasoning_text` content), in order; items one per line, as a chat completion's
 * choices are. The same text a stream of its deltas gives (responsesEvent).
 */
function responsesOutput(output: Json[], unread: string[], found: DecodedResponse): string {
  const texts: string[] = []
  for (const item of output) {
    if (!isObj(item)) {
      if (item !== null) unreadShape(unread, shapeName('Responses API output item', undefined))
      continue
    }
    const type = item.type
    const annotations: string[] = []
    let t = ''
    if (type === 'reasoning' && Array.isArray(item.summary)) for (const part of item.summary) t += responsesPart(part, unread, annotations)
    if (Array.isArray(item.content)) for (const part of item.content) t += responsesPart(part, unread, annotations)
    t += toolItemText(item)
    const readAlready = typeof type === 'string' && Object.hasOwn(LEAF_ITEMS, type) ? LEAF_ITEMS[type]! : null
    const image = typeof type === 'string' && Object.hasOwn(IMAGE_ITEMS, type) ? IMAGE_ITEMS[type]! : null
    // An image the item gives (a screenshot, a generated picture): no text to search, said as such (never its base64 read as text).
    if (image !== null && item[image[0]] !== undefined && item[image[0]] !== null && item[image[0]] !== '') noteNotSearched(found, `image (Responses API ${type as string} ${image[1]})`)
    if (readAlready !== null) {
      // What a built-in tool was asked and gave back, every string of it (leafTexts), on lines of their own.
      const leaves = leafTexts(Object.fromEntries(Object.entries(item).filter(([k]) => !readAlready.includes(k))))
      if (leaves.length > 0) t += (t === '' ? '' : '\n') + leaves.join('\n')
    } else if (!(typeof type === 'string' && TEXT_ITEMS.has(type)) && !(type === undefined && Array.isArray(item.content))) {
      unreadShape(unread, shapeName('Responses API output item', type))
    }
    if (t) texts.push(t)
    // A text part's annotations (a citation's title and URL, a file's name) after the item's text.
    texts.push(...annotations)
  }
  return texts.join('\n')
}

/** Responses API output items whose text is their parts (responsesPart) and toolItemText's members: the rest of them is ids and states. */
const TEXT_ITEMS = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call', 'mcp_approval_request'])

/**
 * Responses API output items of built-in tools, read by every string they hold (leafTexts), and
 * the members left out of that: read already (toolItemText), no text (an image's base64), or the
 * names the request gave (an MCP server's label, the tool it called). A
 * `file_search_call`'s results hold the documents' texts, a `web_search_call`'s action its query
 * and the pages' URLs, a `code_interpreter_call`'s outputs its logs, an `mcp_call` its error, an
 * `mcp_list_tools` the server's tools, a `computer_call`, `local_shell_call`, `shell_call` or
 * `apply_patch_call` what the model asked done, an `image_generation_call` its revised prompt.
 */
const LEAF_ITEMS: Record<string, readonly string[]> = {
  file_search_call: [], web_search_call: [], computer_call: [], local_shell_call: [], shell_call: [], apply_patch_call: [], mcp_list_tools: ['server_label'],
  code_interpreter_call: ['code'], mcp_call: ['arguments', 'output', 'name', 'server_label'], image_generation_call: ['result'],
  // Items a request's input holds, which a server may echo in its output: a tool's answer handed
  // back (its output), an approval (its reason); a compaction or an item reference holds no text.
  // A computer call's output is a screenshot (IMAGE_ITEMS); its safety checks' messages are read.
  function_call_output: [], custom_tool_call_output: [], local_shell_call_output: [], shell_call_output: [], apply_patch_call_output: [], mcp_approval_response: [],
  computer_call_output: ['output'], compaction: [], item_reference: [],
}

/**
 * Responses API items that give an image, by the member holding it: a computer call's output (a
 * `computer_screenshot`: an image URL, usually a base64 data URL, or a file id) and an image
 * generation call's result (base64). An image holds no text a search can read: it is counted as a
 * part not searched (DecodedResponse.notSearched), not read as text.
 */
const IMAGE_ITEMS: Record<string, readonly [member: string, what: string]> = {computer_call_output: ['output', 'screenshot'], image_generation_call: ['result', 'generated image']}

/** Adds a part not searched to a response's `notSearched`, once. */
function noteNotSearched(out: DecodedResponse, name: string): void {
  const list = (out.notSearched ??= [])
  if (!list.includes(name)) list.push(name)
}

/**
 * What a Responses API tool call item the model wrote holds: a function call's or an MCP call's
 * (and an MCP approval request's) `arguments`, a custom tool call's `input`, a code interpreter
 * call's `code`, and an MCP call's `output` (the tool's answer, handed to the client in the body).
 */
function toolItemText(item: Obj): string {
  let t = ''
  if (typeof item.arguments === 'string' && (item.type === 'function_call' || item.type === 'mcp_call' || item.type === 'mcp_approval_request')) t += argumentsText(item.arguments)
  if (item.type === 'custom_tool_call' && typeof item.input === 'string') t += item.input
  if (item.type === 'code_interpreter_call' && typeof item.code === 'string') t += item.code
  // The tool's answer on a line of its own: no token is made across the call and its answer.
  if (item.type === 'mcp_call' && typeof item.output === 'string' && item.output !== '') t += (t === '' ? '' : '\n') + item.output
  return t
}

/** Responses API content parts that hold a text or a refusal, or none (an empty one). */
const TEXT_PARTS = new Set(['output_text', 'refusal', 'reasoning_text', 'summary_text', 'text'])

/**
 * One content part of a Responses API output item: its text (output_text, reasoning_text) or its
 * refusal; its annotations' strings added to `annotations`. A part of another type that holds
 * neither is named in `unread`.
 */
function responsesPart(part: Json, unread: string[], annotations: string[]): string {
  if (!isObj(part)) {
    if (part !== null) unreadShape(unread, shapeName('Responses API content part', undefined))
    return ''
  }
  annotations.push(...leafTexts(part.annotations))
  if (typeof part.text === 'string') return part.text
  if (typeof part.refusal === 'string') return part.refusal
  if (!(typeof part.type === 'string' && TEXT_PARTS.has(part.type))) unreadShape(unread, shapeName('Responses API content part', part.type))
  return ''
}

/** Deltas of a Responses API stream that carry what the client was shown, by event type. */
const RESPONSES_DELTAS = new Set([
  'response.output_text.delta', 'response.refusal.delta', 'response.reasoning_text.delta', 'response.reasoning_summary_text.delta', 'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta', 'response.code_interpreter_call_code.delta', 'response.mcp_call_arguments.delta',
])

/** A Responses API stream's `….done` events that repeat a part's whole text, by event type: the member holding it. */
const RESPONSES_DONE: Record<string, string> = {
  'response.output_text.done': 'text', 'response.refusal.done': 'refusal', 'response.reasoning_text.done': 'text', 'response.reasoning_summary_text.done': 'text',
  'response.function_call_arguments.done': 'arguments', 'response.custom_tool_call_input.done': 'input', 'response.code_interpreter_call_code.done': 'code',
  'response.mcp_call_arguments.done': 'arguments',
}

/**
 * Where a reasoning summary's parts sit among an item's parts: before its content parts
 * (summary_index from here, content_index from 0), as responsesOutput reads the summary first.
 */
const SUMMARY_PARTS = -(2 ** 31)

/** A Responses API stream as it is read: each output item's deltas by part, and the whole texts its `….done` events and final response repeat. */
interface ResponsesStream {
  /** Deltas by output item (output_index) and part (content_index, or a summary's place). */
  parts: Map<number, Map<number, string[]>>
  /** A part's whole text, from its `….done` event, by output item and part. */
  doneParts: Map<number, Map<number, string>>
  /** An item's whole text (responsesOutput) from `response.output_item.done`, by output item. */
  doneItems: Map<number, string>
  /** The final response (completed, incomplete, failed), if logged. */
  final: Obj | null
  /** Texts given beside the items: annotations added to a text, an audio answer's transcript. */
  extra: string[]
  /** An audio answer's transcript deltas. */
  transcript: string[]
  /** Output items whose deltas or `….done` text are a function's arguments (argumentsText reads them joined). */
  args: Set<number>
}

/** A Responses API stream's events whose text is a function's arguments, JSON text the client parses. */
const RESPONSES_ARGUMENTS = new Set(['response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done'])

/**
 * A Responses API stream's events that carry no text, or only a text another event or the final
 * response repeats (an item added, a part done): read where they do (responsesEvent), none left
 * unnamed. An event of a type not here and not read is named in DecodedResponse.unread.
 */
const RESPONSES_EVENTS = new Set([
  'response.created', 'response.in_progress', 'response.queued', 'response.output_item.added', 'response.content_part.added', 'response.content_part.done',
  'response.reasoning_summary_part.added', 'response.reasoning_summary_part.done', 'response.output_text.annotation.added',
  'response.file_search_call.in_progress', 'response.file_search_call.searching', 'response.file_search_call.completed',
  'response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed',
  'response.code_interpreter_call.in_progress', 'response.code_interpreter_call.interpreting', 'response.code_interpreter_call.completed',
  'response.image_generation_call.in_progress', 'response.image_generation_call.generating', 'response.image_generation_call.completed', 'response.image_generation_call.partial_image',
  'response.mcp_call.in_progress', 'response.mcp_call.completed', 'response.mcp_call.failed',
  'response.mcp_list_tools.in_progress', 'response.mcp_list_tools.completed', 'response.mcp_list_tools.failed',
  'response.audio.delta', 'response.audio.done', 'response.audio.transcript.delta', 'response.audio.transcript.done',
])

/** The part an event's text belongs to: a summary's parts sit before the content's (SUMMARY_PARTS). */
function responsesPartOf(chunk: Obj): number {
  return chunk.type === 'response.reasoning_summary_text.delta' || chunk.type === 'response.reasoning_summary_text.done'
    ? SUMMARY_PARTS + (typeof chunk.summary_index === 'number' ? chunk.summary_index : 0)
    : typeof chunk.content_index === 'number' ? chunk.content_index : 0
}

/**
 * One event of a Responses API stream (`type: "response.…"`): a delta is appended to its output
 * item (output_index) and part (content_index); a `….done` event's whole text and a done item
 * are kept; the final event gives the usage, and the response's own error when it failed
 * (returned, to be searched with the answer: withErrorTexts).
 */
function responsesEvent(chunk: Obj, stream: ResponsesStream, out: DecodedResponse): string | null {
  const type = chunk.type as string
  const item = typeof chunk.output_index === 'number' ? chunk.output_index : 0
  if (RESPONSES_ARGUMENTS.has(type)) stream.args.add(item)
  if (RESPONSES_DELTAS.has(type)) {
    if (typeof chunk.delta !== 'string' || chunk.delta === '') return null
    const part = responsesPartOf(chunk)
    let byPart = stream.parts.get(item)
    if (!byPart) stream.parts.set(item, (byPart = new Map()))
    const buf = byPart.get(part) ?? []
    buf.push(chunk.delta)
    byPart.set(part, buf)
    return null
  }
  const doneKey = RESPONSES_DONE[type]
  if (doneKey !== undefined) {
    const text = chunk[doneKey]
    if (typeof text !== 'string' || text === '') return null
    let byPart = stream.doneParts.get(item)
    if (!byPart) stream.doneParts.set(item, (byPart = new Map()))
    byPart.set(responsesPartOf(chunk), text)
    return null
  }
  if (type === 'response.output_item.done' && isObj(chunk.item)) {
    stream.doneItems.set(item, responsesOutput([chunk.item], out.unread, out))
    return null
  }
  // An item as added (in progress): its text where no done item gives it.
  if (type === 'response.output_item.added' && isObj(chunk.item)) {
    const text = responsesOutput([chunk.item], out.unread, out)
    if (!stream.doneItems.has(item) && text !== '') stream.doneItems.set(item, text)
    return null
  }
  // A part done (a content part, a summary's): its text where no `….done` event of the text gave it.
  if ((type === 'response.content_part.done' || type === 'response.reasoning_summary_part.done') && chunk.part !== undefined) {
    const partIndex = type === 'response.reasoning_summary_part.done' ? SUMMARY_PARTS + (typeof chunk.summary_index === 'number' ? chunk.summary_index : 0) : responsesPartOf(chunk)
    const text = responsesPart(chunk.part, out.unread, stream.extra)
    let byPart = stream.doneParts.get(item)
    if (!byPart) stream.doneParts.set(item, (byPart = new Map()))
    if (text !== '' && !byPart.has(partIndex)) byPart.set(partIndex, text)
    return null
  }
  if (type === 'response.output_text.annotation.added') {
    stream.extra.push(...leafTexts(chunk.annotation))
    return null
  }
  if (type === 'response.audio.transcript.delta') {
    if (typeof chunk.delta === 'string' && chunk.delta !== '') stream.transcript.push(chunk.delta)
    return null
  }
  if (type === 'response.audio.transcript.done') {
    // The whole transcript, where it is not the deltas' (a stream logged without them).
    if (typeof chunk.transcript === 'string' && chunk.transcript !== stream.transcript.join('')) stream.extra.push(chunk.transcript)
    return null
  }
  if ((type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') && isObj(chunk.response)) {
    const response = chunk.response
    stream.final = response
    readUsage(response.usage, out)
    const error = isObj(response.error) ? (typeof response.error.message === 'string' ? response.error.message : JSON.stringify(response.error)) : null
    if (type === 'response.failed' || error !== null) {
      out.isError = true
      out.errorMessage = error ?? 'response failed'
    }
    return error
  }
  if (!RESPONSES_EVENTS.has(type)) unreadShape(out.unread, shapeName('Responses API stream event', type))
  return null
}

/**
 * A Responses API stream's text: its items in output order, each as its deltas give it (parts in
 * content order); and where a `….done` event, a done item or the final response gives an item a
 * whole text other than its deltas' (a function call given only in the final response, a done
 * text never streamed), that text too, on its own line: the client was sent both. A stream logged
 * without its deltas is read from these alone, as the response they repeat.
 */
function responsesStreamText(stream: ResponsesStream, unread: string[], out: DecodedResponse): string[] {
  const finalItems = stream.final !== null && Array.isArray(stream.final.output) ? stream.final.output : []
  const items = new Set<number>([...stream.parts.keys(), ...stream.doneParts.keys(), ...stream.doneItems.keys(), ...finalItems.keys()])
  const inOrder = (m: Map<number, string>) => [...m].sort((a, b) => a[0] - b[0]).map(([, t]) => t).join('')
  const texts: string[] = []
  for (const item of [...items].sort((a, b) => a - b)) {
    const byPart = stream.parts.get(item)
    // A function's arguments read whole (argumentsText), as the item not streamed is (toolItemText).
    const read = stream.args.has(item) ? argumentsText : (t: string) => t
    const streamed = byPart === undefined ? '' : read(inOrder(new Map([...byPart].map(([k, p]) => [k, p.join('')]))))
    const doneParts = stream.doneParts.get(item)
    const whole = item < finalItems.length ? responsesOutput([finalItems[item]!], unread, out) : stream.doneItems.get(item) ?? (doneParts === undefined ? '' : read(inOrder(doneParts)))
    if (streamed !== '') texts.push(streamed)
    if (whole !== '' && whole !== streamed) texts.push(whole)
  }
  const transcript = stream.transcript.join('')
  if (transcript !== '') texts.push(transcript)
  texts.push(...stream.extra.filter((t) => t !== ''))
  return texts
}

/** vLLM: `{"object":"error","message":...}`; OpenAI/SGLang: `{"error":{"message":...}}`; a Responses API error event. */
function errorOf(obj: Obj): string | null {
  if (obj.object === 'error') return typeof obj.message === 'string' ? obj.message : 'error'
  if (isObj(obj.error)) return typeof obj.error.message === 'string' ? obj.error.message : JSON.stringify(obj.error)
  if (typeof obj.error === 'string') return obj.error
  // A Responses API stream's error event: `{"type":"error","code":…,"message":…}`.
  if (obj.type === 'error' && typeof obj.message === 'string') return obj.message
  return null
}

function readUsage(usage: Json | undefined, out: DecodedResponse): void {
  if (!isObj(usage)) return
  // Chat and completions name them prompt/completion tokens; the Responses and Messages APIs input/output tokens.
  out.promptTokens = intOrNull(usage.prompt_tokens) ?? inputTokens(usage) ?? out.promptTokens
  out.completionTokens = intOrNull(usage.completion_tokens) ?? intOrNull(usage.output_tokens) ?? out.completionTokens
  const details = isObj(usage.prompt_tokens_details) ? usage.prompt_tokens_details : usage.input_tokens_details
  if (isObj(details)) out.cachedTokens = intOrNull(details.cached_tokens) ?? out.cachedTokens
  else if (intOrNull(usage.cache_read_input_tokens) !== null) out.cachedTokens = intOrNull(usage.cache_read_input_tokens)
}

/**
 * The prompt's size from `input_tokens`: the Responses API's counts the cached part too; the
 * Messages API's does not, and its cache reads and writes are added (the prompt the pool held is
 * all three).
 */
function inputTokens(usage: Obj): number | null {
  const input = intOrNull(usage.input_tokens)
  if (input === null) return null
  const read = intOrNull(usage.cache_read_input_tokens) ?? 0
  const written = intOrNull(usage.cache_creation_input_tokens) ?? 0
  const sum = input + read + written
  return Number.isSafeInteger(sum) ? sum : null
}

/**
 * Reassembles a server-sent-event stream: every `choices[].delta.content` (chat) or
 * `choices[].text` (completions) in order, per choice index; tool-call and legacy function-call
 * argument deltas per call. Usage-only chunks (`choices: []` or `null`) are read for token counts;
 * an error event inside a 200 stream (SGLang does this) marks the response as an error, and its
 * message is searched with the answer (withErrorTexts); a chunk that carries an error and choices
 * (OpenRouter's mid-stream error, finish_reason "error") gives its choices' text too.
 */
/**
 * A chat stream choice's channels, each its own text as a message's are (decodeResponse): its
 * reasoning, its content, an audio answer's transcript, its refusal, in that order. A marker
 * split across two channels was shown to the client in neither, and one whole in a channel was.
 */
const CHANNELS = ['reasoning', 'content', 'audio', 'refusal'] as const
const [REASONING, CONTENT, AUDIO, REFUSAL] = [0, 1, 2, 3] as const

function decodeSse(raw: string): DecodedResponse | null {
  const out = empty('sse')
  // Whether any data line held a JSON document, or the end mark: else the body is no stream.
  let events = false
  out.stream = true
  // Per choice index: its pieces by channel (CHANNELS).
  const content = new Map<number, string[][]>()
  const tools = new Map<string, string[]>()
  // The keys in `tools` whose pieces are a function's arguments.
  const argumentKeys = new Set<string>()
  // A Responses API stream: deltas by output item and content part, the whole texts repeated.
  const responses: ResponsesStream = {parts: new Map(), doneParts: new Map(), doneItems: new Map(), final: null, extra: [], transcript: [], args: new Set()}
  // A Messages API stream: deltas by content block.
  const blocks = new Map<number, StreamBlock>()
  // A Messages API stream's citations (citations_delta, a started block's), after its blocks.
  const cited: string[] = []
  // Other providers' streams (ProviderStreams).
  const providers = emptyProviderStreams()
  const errors: string[] = []
  const sources = new Set<string>()
  let nextIsError = false
  let pending = ''
  // Whether `pending` holds a line that is no SSE field (a continuation: see the loop).
  let continued = false
  // Data payloads that never made a JSON document, and stray lines (see the loop): searched as text (see flush).
  const unparsed: string[] = []
  let strays = 0
  // The JSON documents read so far, to name the event a key given twice is in.
  let eventNo = 0
  const append = (map: Map<string, string[]> | Map<number, string[]>, key: string | number, piece: string): void => {
    const m = map as Map<string | number, string[]>
    const buf = m.get(key) ?? []
    buf.push(piece)
    m.set(key, buf)
  }
  const shownError = (message: string, details: string[] = []): void => {
    out.isError = true
    out.errorMessage = message
    errors.push(message, ...details)
    nextIsError = false
  }
  // An event's data that never made a JSON document, at the event's end (a blank line, the end
  // mark, the stream's end): an error event's is the error's message; any other's raw text is
  // kept to be searched as answer text (a stream cut off mid-event, or an event whose JSON is
  // malformed, still sent the client those bytes: a body cut off outside a stream is read as its
  // text in the same way). It ends there, so it cannot swallow the chunks after it.
  const flush = (): void => {
    if (pending && nextIsError) {
      events = true
      shownError(pending)
    } else if (pending.trim() !== '') {
      unparsed.push(pending)
      // The document as far as it goes, read as the event it began (jsonPrefix): its piece
      // continues the answer's text where the whole events left it, so a marker split across the
      // last whole event and a cut one is found. The raw text above is searched all the same; a
      // shape in the rebuilt document that this release does not read is no unread shape (its
      // characters are searched as that raw text).
      const rebuilt = within(`(event ${eventNo + 1})`, () => jsonPrefix(pending))
      if (isObj(rebuilt)) {
        const unread = out.unread.length
        readEvent(rebuilt)
        out.unread.length = unread
      }
      if (continued) unreadShape(out.unread, STRAY_LINE)
    }
    pending = ''
    continued = false
  }
  // One event's JSON document read: the data lines (and continuations) pending are spent.
  const readWhole = (chunk: Json): void => {
    pending = ''
    continued = false
    events = true
    eventNo++
    readEvent(chunk)
  }
  // The SSE spec ignores a byte-order mark at the stream's start (it would hide the first field's name).
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  // One event's JSON document, read into the answer (a document rebuilt from an event cut off
  // part-way too: see flush).
  const readEvent = (chunk: Json): void => {
    if (!isObj(chunk)) {
      if (nextIsError) shownError(typeof chunk === 'string' ? chunk : JSON.stringify(chunk))
      return
    }
    const error = errorOf(chunk)
    // Whether the chunk's `message` is read as an error event's message.
    const readMessage = error === null && nextIsError
    if (error !== null || nextIsError) {
      const message = error ?? (typeof chunk.message === 'string' ? chunk.message : JSON.stringify(chunk))
      if (isUnnamedError(chunk)) {
        out.isError = true
        out.errorMessage = message
        nextIsError = false
      } else shownError(message, errorDetails(chunk))
      if (!Array.isArray(chunk.choices)) {
        // An error chunk's other members: the error's, or known to carry no text (a typed event's are its API's).
        if (typeof chunk.type !== 'string') unknownMembers(chunk, topRead(chunk, error === null), TOP_NO_TEXT, 'stream chunk member', out.unread)
        return
      }
    }
    // Another provider's stream (Gemini, Bedrock ConverseStream, Cohere v2, OpenAI Assistants): its events read as its body is.
    const shown = providerStreamEvent(chunk, providers, out)
    if (shown !== null) {
      errors.push(...shown)
      return
    }
    // Typed events (the Responses and Messages APIs); a chunk with choices is a chat chunk whatever else it holds.
    if (typeof chunk.type === 'string' && !Array.isArray(chunk.choices)) {
      if (chunk.type.startsWith('response.')) {
        const failed = responsesEvent(chunk, responses, out)
        if (failed !== null) errors.push(failed)
      } else messagesEvent(chunk, blocks, cited, out)
      return
    }
    readUsage(chunk.usage, out)
    // Every member of a chunk is read or known to carry no text: a chunk of a shape not read at all
    // (a TGI `token`) is named in `unread`; a usage-only or empty (keep-alive) chunk holds nothing else.
    unknownMembers(chunk, topRead(chunk, readMessage), TOP_NO_TEXT, 'stream chunk member', out.unread)
    // A search model's sources, which its chunks repeat: each string once, after the choices.
    for (const t of sourceTexts(chunk)) sources.add(t)
    if (!Array.isArray(chunk.choices)) return
    for (const choice of chunk.choices) {
      if (!isObj(choice)) continue
      unknownMembers(choice, CHOICE_READ, CHOICE_NO_TEXT, 'chat stream choice member', out.unread)
      const index = typeof choice.index === 'number' ? choice.index : 0
      // The choice's pieces by channel (CHANNELS): each channel's pieces run on across chunks,
      // never into another channel's, so a marker is found in a channel exactly as it is there.
      const pieces: string[] = CHANNELS.map(() => '')
      // A delta; a chunk's choice giving a whole `message` instead (some servers' last chunk) is read as one.
      const deltas = [choice.delta, choice.message].filter(isObj)
      for (const delta of deltas) {
        unknownMembers(delta, MESSAGE_READ, MESSAGE_NO_TEXT, 'chat delta member', out.unread)
        pieces[REASONING] += reasoningOf(delta) ?? ''
        pieces[CONTENT] += answerContentText(delta.content, out.unread)
        pieces[AUDIO] += audioTranscript(delta.audio) ?? ''
        if (typeof delta.refusal === 'string') pieces[REFUSAL] += delta.refusal
        // A web search answer's citations, given in a delta: after the choices' texts.
        for (const t of leafTexts(delta.annotations)) append(tools, `${index}:annotations`, (tools.has(`${index}:annotations`) ? '\n' : '') + t)
        if (Array.isArray(delta.tool_calls)) {
          for (const call of delta.tool_calls) {
            const args = toolCallText(call, out.unread, false)
            if (args === null) continue
            const key = `${index}:${isObj(call) && typeof call.index === 'number' ? call.index : 0}`
            append(tools, key, args)
            if (isObj(call) && functionArgs(call.function) !== null) argumentKeys.add(key)
          }
        }
        // The legacy `functions` API's call, one per choice, its arguments in pieces.
        const legacy = functionArgs(delta.function_call)
        if (legacy !== null) {
          append(tools, `${index}:function_call`, legacy)
          argumentKeys.add(`${index}:function_call`)
        }
        // `reasoning` beside a different `reasoning_content` (otherReasoningOf): its own text, after the choices'.
        const other = otherReasoningOf(delta)
        if (other !== null) append(tools, `${index}:reasoning`, other)
        // Reasoning details, in pieces as the reasoning is; retrieved documents and executed tools
        // (messageExtras), each on its own line.
        const extras = messageExtras(delta, out.unread)
        if (extras.details !== '' && extras.details !== (reasoningOf(delta) ?? '')) append(tools, `${index}:reasoning_details`, extras.details)
        if (extras.thinking !== '' && extras.thinking !== (reasoningOf(delta) ?? '')) append(tools, `${index}:thinking_blocks`, extras.thinking)
        for (const t of extras.lines) append(tools, `${index}:extras`, (tools.has(`${index}:extras`) ? '\n' : '') + t)
      }
      if (deltas.length === 0 && typeof choice.text === 'string') pieces[CONTENT] = choice.text
      // A choice's `text` beside its delta (Together writes both), where it says something else.
      else if (typeof choice.text === 'string' && choice.text !== '' && choice.text !== contentText(deltas[0]!.content, '')) append(tools, `${index}:text`, choice.text)
      if (pieces.some((p) => p !== '')) {
        const channels = content.get(index) ?? CHANNELS.map((): string[] => [])
        pieces.forEach((p, c) => p !== '' && channels[c]!.push(p))
        content.set(index, channels)
      }
    }
  }
  const lines = sseLines(text)
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!
    // A line while a data payload has made no JSON document yet: first tried as the rest of the
    // payload's physical line, joined as a log shipper that breaks long lines split it (nothing
    // between), whatever it starts with (a text broken before `: ` or `data:` starts a field).
    // A data line is tried as the SSE spec joins data lines first (below).
    if (pending !== '' && line !== '' && !line.startsWith('data:')) {
      const chunk = within(`(event ${eventNo + 1})`, () => tryParseJson(pending + line))
      if (chunk !== undefined) {
        readWhole(chunk)
        continue
      }
      // Still no document: the line is the payload's all the same (its raw text searched at the
      // event's end, and the record named not read whole: see flush).
      if (!isSseField(line)) {
        pending += line
        continued = true
        continue
      }
    }
    // A line that is no SSE field and continues no payload (text between events): the client's
    // SSE parser would have passed over it, but a log holds it only where the body was altered
    // (a line broken after a whole document, text written into the stream), so what the client
    // was given there is not known. Its raw text is searched, on its own line after the answer's
    // text, and the record is named not read whole, so no gate passes on it. White space alone
    // holds no text.
    if (!isSseField(line)) {
      if (line.trim() !== '') {
        unparsed.push(line)
        strays++
        unreadShape(out.unread, STRAY_LINE)
      }
      continue
    }
    if (line.startsWith('event:')) {
      nextIsError = line.slice(6).trim() === 'error'
      continue
    }
    // A blank line ends an event.
    if (line === '') flush()
    if (!line.startsWith('data:')) continue
    const payload = line.slice(line[5] === ' ' ? 6 : 5)
    if (payload.trim() === '[DONE]') {
      flush()
      events = true
      // What a stream logged after its end mark was not read as received: the client's SDK stops
      // at [DONE], so it may never have been given it. Where it holds more than blank lines,
      // comments, fields without data and further end marks, it is named, so the record is not
      // read whole and no gate passes on it (the Rust decoder leaves such a stream to this one).
      if (lines.slice(at + 1).some((l) => !isEmptyAfterDone(l))) unreadShape(out.unread, AFTER_DONE)
      break
    }
    // One JSON document per data line is the norm; a document wrapped over several data
    // lines (allowed by the SSE spec) is joined until it parses.
    // A data line that does not join so is tried as the rest of a line broken before `data:`.
    const candidate = pending ? `${pending}\n${payload}` : payload
    const chunk = within(`(event ${eventNo + 1})`, () => {
      const joined = tryParseJson(candidate)
      return joined === undefined && pending ? tryParseJson(pending + line) : joined
    })
    if (chunk === undefined) {
      pending = candidate
      continue
    }
    readWhole(chunk)
  }
  // The stream's end (no blank line after its last event, no end mark).
  flush()
  // Each choice's channels in the order a message's texts are read (decodeResponse's choices), one per line.
  const texts = [...content.entries()].sort((a, b) => a[0] - b[0]).map(([, channels]) => channels.map((parts) => parts.join('')).filter((t) => t !== '').join('\n'))
  // A function's arguments read whole, once the stream's pieces are joined (argumentsText).
  for (const [key, parts] of tools) texts.push(argumentKeys.has(key) ? argumentsText(parts.join('')) : parts.join(''))
  texts.push(...sources)
  // The Responses API's items in output order (responsesStreamText).
  texts.push(...responsesStreamText(responses, out.unread, out))
  const messages = withCitations(messagesStreamText(blocks), cited)
  if (messages) texts.push(messages)
  texts.push(...providerStreamText(providers))
  if (!events) return null
  // Payloads not read as events, each on its own line after the answer's text, before the errors.
  out.text = withErrorTexts(texts.join('\n'), [...unparsed, ...errors])
  if (unparsed.length > strays) out.unparsed = unparsed.length - strays
  if (out.isError) out.kind = 'sse'
  return out
}

/** The name of what a stream logged after its `data: [DONE]` end mark, as status and the gate give it. */
export const AFTER_DONE = 'stream data after data: [DONE]'

/**
 * The name of a stream's line, before its end mark, that is no SSE field and did not join a data
 * line's payload into a JSON document: searched as its raw text only, as status and the gate give it.
 */
export const STRAY_LINE = 'stream line outside any SSE field, searched as raw text only'

/**
 * Whether a stream's line is one the SSE spec reads as a field crosstalk knows (data, event, id,
 * retry, a name alone or with a colon), a comment or a blank line: any other line is text a log
 * put into the stream (a long data line broken in two, a line written between events).
 */
function isSseField(line: string): boolean {
  return line === '' || line.startsWith(':') || /^(data|event|id|retry)(:|$)/.test(line)
}

/**
 * A stream's line after its end mark that gives the client nothing: a blank line, a comment, a
 * field other than data (event, id, retry), another end mark.
 */
function isEmptyAfterDone(line: string): boolean {
  if (line.trim() === '' || line.startsWith(':') || /^(event|id|retry)(:|$)/.test(line)) return true
  return line.startsWith('data:') && line.slice(line[5] === ' ' ? 6 : 5).trim() === '[DONE]'
}

/**
 * A stream's lines, ended by CRLF, LF or a bare CR as the SSE spec allows, mixed in one stream
 * too: split at LF alone (splitLines) where there is no CR.
 */
function sseLines(text: string): string[] {
  return text.includes('\r') ? text.split(/\r\n|\r|\n/) : splitLines(text)
}

/** `text.split(/\r?\n/)`, without the regular expression engine (a few per cent of a markers-only parse). */
export function splitLines(text: string): string[] {
  const out: string[] = []
  let start = 0
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    out.push(text.slice(start, nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl))
    start = nl + 1
  }
  out.push(text.slice(start))
  return out
}

/** The JSON value of a text, or undefined where it is no JSON; a text that gives a key twice throws DuplicateKeyError (duplicate-keys.ts). */
function tryParseJson(text: string): Json | undefined {
  let value: Json
  try {
    value = JSON.parse(text) as Json
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null ? uniqueJson(text, value) : value
}

// ---------------------------------------------------------------- other providers' answers

/**
 * Reads a well-known provider's answer body, closed-world (every member read, known to carry no
 * text, or named in `unread`), into `out`: Gemini / Vertex `generateContent`, AWS Bedrock
 * Converse, Cohere v2 chat, Bedrock Titan text, an OpenAI Assistants `thread.message`, Ollama
 * `/api/chat` and `/api/generate`. A shape is taken only where its identifying members are
 * there; false (nothing read) for any other body.
 */
function wellKnownAnswer(obj: Obj, out: DecodedResponse): boolean {
  const unread = out.unread
  if (Array.isArray(obj.candidates)) {
    out.text = geminiText(obj, unread)
    out.promptTokens = isObj(obj.usageMetadata) ? intOrNull(obj.usageMetadata.promptTokenCount) : null
    out.completionTokens = isObj(obj.usageMetadata) ? intOrNull(obj.usageMetadata.candidatesTokenCount) : null
    return true
  }
  if (isObj(obj.output) && isObj(obj.output.message) && Array.isArray(obj.output.message.content)) {
    out.text = converseText(obj, unread)
    if (isObj(obj.usage)) {
      out.promptTokens = intOrNull(obj.usage.inputTokens)
      out.completionTokens = intOrNull(obj.usage.outputTokens)
    }
    return true
  }
  if (obj.object === 'thread.message' && Array.isArray(obj.content)) {
    out.text = assistantsText(obj, unread)
    return true
  }
  if (Array.isArray(obj.results) && obj.results.length > 0 && obj.results.every((r) => isObj(r) && typeof r.outputText === 'string')) {
    unknownMembers(obj, new Set(['results']), TITAN_NO_TEXT, 'Titan body member', unread)
    out.text = obj.results.map((r) => {
      unknownMembers(r as Obj, new Set(['outputText']), TITAN_RESULT_NO_TEXT, 'Titan result member', unread)
      return (r as Obj).outputText as string
    }).join('\n')
    out.promptTokens = intOrNull(obj.inputTextTokenCount)
    const counts = obj.results.map((r) => intOrNull((r as Obj).tokenCount))
    out.completionTokens = counts.every((c) => c !== null) ? (counts as number[]).reduce((a, b) => a + b, 0) : null
    return true
  }
  if (isOllama(obj)) {
    out.text = ollamaTexts([obj], unread)
    out.promptTokens = intOrNull(obj.prompt_eval_count)
    out.completionTokens = intOrNull(obj.eval_count)
    return true
  }
  if (typeof obj.finish_reason === 'string' && isObj(obj.message) && (Array.isArray(obj.message.content) || Array.isArray(obj.message.tool_calls))) {
    out.text = cohereText(obj, unread)
    const usage = isObj(obj.usage) ? obj.usage : {}
    const tokens = isObj(usage.tokens) ? usage.tokens : isObj(usage.billed_units) ? usage.billed_units : {}
    out.promptTokens = intOrNull(tokens.input_tokens)
    out.completionTokens = intOrNull(tokens.output_tokens)
    return true
  }
  return false
}

/** Gemini / Vertex `generateContent`: the candidates' parts in order, then their citations, grounding and finish messages, then a prompt's block message. */
function geminiText(obj: Obj, unread: string[]): string {
  unknownMembers(obj, GEMINI_READ, GEMINI_NO_TEXT, 'Gemini body member', unread)
  const texts: string[] = []
  for (const c of obj.candidates as Json[]) {
    if (!isObj(c)) {
      if (c !== null) unreadShape(unread, shapeName('Gemini candidate', undefined))
      continue
    }
    unknownMembers(c, GEMINI_CANDIDATE_READ, GEMINI_CANDIDATE_NO_TEXT, 'Gemini candidate member', unread)
    const t: string[] = []
    if (isObj(c.content)) {
      unknownMembers(c.content, new Set(['parts']), new Set(['role']), 'Gemini content member', unread)
      t.push(...geminiPartsText(Array.isArray(c.content.parts) ? c.content.parts : [], unread))
    }
    t.push(...geminiCandidateExtras(c))
    texts.push(t.filter(Boolean).join('\n'))
  }
  if (isObj(obj.promptFeedback)) {
    unknownMembers(obj.promptFeedback, new Set(['blockReasonMessage']), new Set(['blockReason', 'safetyRatings']), 'Gemini prompt feedback member', unread)
    if (typeof obj.promptFeedback.blockReasonMessage === 'string') texts.push(obj.promptFeedback.blockReasonMessage)
  }
  return texts.filter(Boolean).join('\n')
}
/**
 * A Gemini candidate's parts, in order: consecutive text parts (a thought's or the answer's) one
 * running text, so a marker split between them is whole; a function call's args as JSON, code and
 * its output each on their own line. A stream's chunks' parts, joined, are read the same way
 * (geminiStreamText): a marker split across chunks is whole.
 */
function geminiPartsText(parts: Json[], unread: string[]): string[] {
  const t: string[] = []
  let run = ''
  for (const part of parts) {
    if (!isObj(part)) {
      if (part !== null) unreadShape(unread, shapeName('Gemini part', undefined))
      continue
    }
    unknownMembers(part, GEMINI_PART_READ, GEMINI_PART_NO_TEXT, 'Gemini part member', unread)
    if (typeof part.text === 'string') {
      run += part.text
      continue
    }
    if (run !== '') t.push(run)
    run = ''
    if (isObj(part.functionCall)) {
      unknownMembers(part.functionCall, new Set(['args']), new Set(['id', 'name']), 'Gemini function call member', unread)
      if (part.functionCall.args !== undefined) t.push(JSON.stringify(part.functionCall.args))
    }
    if (isObj(part.executableCode)) {
      unknownMembers(part.executableCode, new Set(['code']), new Set(['language', 'id']), 'Gemini executable code member', unread)
      if (typeof part.executableCode.code === 'string') t.push(part.executableCode.code)
    }
    if (isObj(part.codeExecutionResult)) {
      unknownMembers(part.codeExecutionResult, new Set(['output']), new Set(['outcome', 'id']), 'Gemini code execution result member', unread)
      if (typeof part.codeExecutionResult.output === 'string') t.push(part.codeExecutionResult.output)
    }
  }
  if (run !== '') t.push(run)
  return t
}

/** A Gemini candidate's texts beside its parts: its finish message, citations, grounding and URL context. */
function geminiCandidateExtras(c: Obj): string[] {
  return [
    ...str(c.finishMessage), ...leafTexts(c.citationMetadata), ...leafTexts(c.groundingMetadata), ...leafTexts(c.groundingAttributions),
    ...leafTexts(c.urlContextMetadata), ...leafTexts(c.urlRetrievalMetadata),
  ]
}

const GEMINI_READ = new Set(['candidates', 'promptFeedback'])
/** Token counts, the model's version, ids, times (Vertex `createTime`). */
const GEMINI_NO_TEXT = new Set(['usageMetadata', 'modelVersion', 'responseId', 'createTime'])
const GEMINI_CANDIDATE_READ = new Set(['content', 'finishMessage', 'citationMetadata', 'groundingMetadata', 'groundingAttributions', 'urlContextMetadata', 'urlRetrievalMetadata'])
/** A candidate's finish reason, safety verdicts, log probabilities (the answer's own tokens), index and token count. */
const GEMINI_CANDIDATE_NO_TEXT = new Set(['finishReason', 'safetyRatings', 'avgLogprobs', 'logprobsResult', 'index', 'tokenCount'])
/** A part's text is read whatever its `thought` flag says (reasoning text); its thought signature is opaque; inline or file data (an image, a file's URI) is no text. */
const GEMINI_PART_READ = new Set(['text', 'functionCall', 'executableCode', 'codeExecutionResult'])
const GEMINI_PART_NO_TEXT = new Set(['thought', 'thoughtSignature', 'inlineData', 'fileData', 'videoMetadata'])

/** Bedrock Converse: `output.message.content` blocks in order, then `additionalModelResponseFields`' and the `trace`'s strings. */
function converseText(obj: Obj, unread: string[]): string {
  unknownMembers(obj, new Set(['output', 'additionalModelResponseFields', 'trace']), new Set(['stopReason', 'usage', 'metrics', 'performanceConfig', 'serviceTier', 'ResponseMetadata']), 'Converse body member', unread)
  const output = obj.output as Obj
  unknownMembers(output, new Set(['message']), new Set(), 'Converse output member', unread)
  const message = output.message as Obj
  unknownMembers(message, new Set(['content']), new Set(['role']), 'Converse message member', unread)
  const texts: string[] = []
  let run = ''
  for (const block of message.content as Json[]) {
    if (!isObj(block)) {
      if (block !== null) unreadShape(unread, shapeName('Converse content block', undefined))
      continue
    }
    unknownMembers(block, CONVERSE_BLOCK_READ, CONVERSE_BLOCK_NO_TEXT, 'Converse content block member', unread)
    if (typeof block.text === 'string') {
      run += block.text
      continue
    }
    if (run !== '') texts.push(run)
    run = ''
    if (isObj(block.reasoningContent)) {
      const rc = block.reasoningContent
      unknownMembers(rc, new Set(['reasoningText']), new Set(['redactedContent']), 'Converse reasoning member', unread)
      if (isObj(rc.reasoningText)) {
        unknownMembers(rc.reasoningText, new Set(['text']), new Set(['signature']), 'Converse reasoning text member', unread)
        if (typeof rc.reasoningText.text === 'string') texts.push(rc.reasoningText.text)
      }
    }
    if (isObj(block.toolUse)) {
      unknownMembers(block.toolUse, new Set(['input']), new Set(['toolUseId', 'name', 'type']), 'Converse tool use member', unread)
      if (block.toolUse.input !== undefined) texts.push(JSON.stringify(block.toolUse.input))
    }
    texts.push(...leafTexts(block.citationsContent), ...leafTexts(block.toolResult), ...leafTexts(block.guardContent), ...leafTexts(block.document))
  }
  if (run !== '') texts.push(run)
  texts.push(...leafTexts(obj.additionalModelResponseFields), ...leafTexts(obj.trace))
  return texts.filter(Boolean).join('\n')
}
/** A document block's strings are read (its name, a text source's text; a base64 source's bytes are searched as they are). */
const CONVERSE_BLOCK_READ = new Set(['text', 'reasoningContent', 'toolUse', 'citationsContent', 'toolResult', 'guardContent', 'document'])
/** Image and video blocks (bytes or an S3 location) and a cache point hold no text. */
const CONVERSE_BLOCK_NO_TEXT = new Set(['image', 'video', 'cachePoint'])

/** An OpenAI Assistants `thread.message`: its content parts' text (with the annotations' strings) and refusals in order. */
function assistantsText(obj: Obj, unread: string[]): string {
  unknownMembers(obj, new Set(['content']), ASSISTANTS_NO_TEXT, 'Assistants message member', unread)
  const texts: string[] = []
  for (const part of obj.content as Json[]) {
    if (!isObj(part)) {
      if (part !== null) unreadShape(unread, shapeName('Assistants content part', undefined))
      continue
    }
    if (part.type === 'text' && isObj(part.text)) {
      unknownMembers(part.text, new Set(['value', 'annotations']), new Set(), 'Assistants text member', unread)
      if (typeof part.text.value === 'string') texts.push(part.text.value)
      texts.push(...leafTexts(part.text.annotations))
    } else if (part.type === 'refusal' && typeof part.refusal === 'string') texts.push(part.refusal)
    else if (part.type !== 'image_file' && part.type !== 'image_url') unreadShape(unread, shapeName('Assistants content part', part.type))
  }
  return texts.filter(Boolean).join('\n')
}
const ASSISTANTS_NO_TEXT = new Set([
  'id', 'object', 'created_at', 'thread_id', 'role', 'assistant_id', 'run_id', 'attachments', 'metadata', 'status', 'incomplete_details', 'completed_at', 'incomplete_at',
])

const TITAN_NO_TEXT = new Set(['inputTextTokenCount'])
const TITAN_RESULT_NO_TEXT = new Set(['tokenCount', 'completionReason'])

/** Cohere v2 chat: the message's text and thinking parts in order, its tool plan and calls' arguments, its citations' texts and sources. */
function cohereText(obj: Obj, unread: string[]): string {
  unknownMembers(obj, new Set(['message']), new Set(['id', 'finish_reason', 'usage', 'logprobs', 'meta']), 'Cohere body member', unread)
  const m = obj.message as Obj
  unknownMembers(m, new Set(['content', 'tool_calls', 'tool_plan', 'citations']), new Set(['role']), 'Cohere message member', unread)
  const texts: string[] = []
  for (const part of Array.isArray(m.content) ? m.content : []) {
    if (!isObj(part)) {
      if (part !== null) unreadShape(unread, shapeName('Cohere content part', undefined))
      continue
    }
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text)
    else if (part.type === 'thinking' && typeof part.thinking === 'string') texts.push(part.thinking)
    else unreadShape(unread, shapeName('Cohere content part', part.type))
  }
  if (typeof m.tool_plan === 'string') texts.push(m.tool_plan)
  if (Array.isArray(m.tool_calls)) texts.push(...answerToolCallArgs(m.tool_calls, unread))
  texts.push(...leafTexts(m.citations))
  return texts.filter(Boolean).join('\n')
}

/** An Ollama `/api/chat` or `/api/generate` answer (or a chunk of its NDJSON stream): `done` a flag, with a `message` or a `response`. */
function isOllama(obj: Obj): boolean {
  return typeof obj.done === 'boolean' && (isObj(obj.message) || typeof obj.response === 'string') && !('choices' in obj)
}

/** Ollama answers or stream chunks in order: their thinking, then their content (or `response`), each joined as the stream gives it, then their tool calls' arguments. */
function ollamaTexts(chunks: Obj[], unread: string[]): string {
  let thinking = ''
  let content = ''
  const calls: string[] = []
  for (const c of chunks) {
    unknownMembers(c, OLLAMA_READ, OLLAMA_NO_TEXT, 'Ollama body member', unread)
    if (typeof c.response === 'string') content += c.response
    if (typeof c.thinking === 'string') thinking += c.thinking
    if (isObj(c.message)) {
      const m = c.message
      unknownMembers(m, new Set(['content', 'thinking', 'tool_calls']), new Set(['role', 'images', 'tool_name']), 'Ollama message member', unread)
      if (typeof m.content === 'string') content += m.content
      if (typeof m.thinking === 'string') thinking += m.thinking
      if (Array.isArray(m.tool_calls)) calls.push(...answerToolCallArgs(m.tool_calls, unread))
    }
  }
  return [thinking, content, ...calls].filter(Boolean).join('\n')
}
const OLLAMA_READ = new Set(['message', 'response', 'thinking'])
/** The model, times, durations, token counts, the done flag and reason, and `/api/generate`'s `context` (token ids). */
const OLLAMA_NO_TEXT = new Set([
  'model', 'created_at', 'done', 'done_reason', 'total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration', 'context',
])

// ---------------------------------------------------------------- other providers' streams

/**
 * The streams of the providers whose bodies wellKnownAnswer reads, as decodeSse meets their
 * events (SSE data lines, a JSON list, NDJSON lines): Gemini `streamGenerateContent` (every chunk
 * a whole `generateContent` body), Bedrock ConverseStream (one event object per chunk, keyed by
 * its type), Cohere v2 chat (`type: "content-delta"` ...), OpenAI Assistants (`thread.*` objects).
 * Each is read closed-world as its body is, and its pieces are joined where the answer has them
 * (a marker split across chunks is one marker).
 */
interface ProviderStreams {
  /** Gemini: each candidate's parts across chunks (by its index), and its other texts once each. */
  gemini: Map<number, {parts: Json[]; extras: Set<string>}>
  /** Bedrock ConverseStream: each content block's pieces by contentBlockIndex, and what kind of text they are. */
  converse: Map<number, {kind: 'text' | 'reasoning' | 'tool'; pieces: string[]}>
  /** The block the last ConverseStream delta went to: a delta cut off before its contentBlockIndex continues it. */
  converseLast: number
  /** Cohere v2: content parts by index, the tool plan's pieces, tool calls' arguments by index. */
  cohere: {content: Map<number, string[]>; plan: string[]; calls: Map<number, string[]>}
  /** Assistants: per message id, in the order first met, its parts' deltas by part index and its whole text (thread.message events). */
  assistants: Map<string, {parts: Map<number, string[]>; annotations: string[]; whole: string | null}>
  /** Assistants: per run step id and tool call index, a tool call's pieces (arguments, code input), and each step's whole tool calls. */
  steps: Map<string, {pieces: Map<number, string[]>; whole: string | null}>
  /** Texts given beside the answers (citations, grounding, model fields, a run's required tool calls), each once, after them. */
  extra: Set<string>
}

function emptyProviderStreams(): ProviderStreams {
  return {gemini: new Map(), converse: new Map(), converseLast: 0, cohere: {content: new Map(), plan: [], calls: new Map()}, assistants: new Map(), steps: new Map(), extra: new Set()}
}

/** Bedrock ConverseStream's events (the ConverseStreamOutput union's members) and its exception events. */
const CONVERSE_EVENTS = new Set(['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'])
const CONVERSE_EXCEPTIONS = new Set(['internalServerException', 'modelStreamErrorException', 'validationException', 'throttlingException', 'serviceUnavailableException'])
/** Cohere v2 chat stream events. */
const COHERE_EVENTS = new Set([
  'message-start', 'content-start', 'content-delta', 'content-end', 'tool-plan-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'citation-start', 'citation-end', 'message-end',
])
/** The objects an OpenAI Assistants stream's events carry (`thread.created`, `thread.run.*`, `thread.run.step.*`, `thread.message.*`). */
const ASSISTANTS_OBJECTS = new Set(['thread', 'thread.run', 'thread.run.step', 'thread.run.step.delta', 'thread.message', 'thread.message.delta'])

/** Whether a stream chunk is one of another provider's stream (ProviderStreams). */
function isProviderStreamChunk(d: Obj): boolean {
  if (Array.isArray(d.choices)) return false
  // An Assistants run step has a `type` of its own (message_creation, tool_calls): its object says what it is.
  if (typeof d.object === 'string') return ASSISTANTS_OBJECTS.has(d.object)
  if (typeof d.type === 'string') return COHERE_EVENTS.has(d.type)
  if (Array.isArray(d.candidates) || isObj(d.usageMetadata) || isObj(d.promptFeedback)) return true
  return isConverseEvent(d)
}

/**
 * Whether a chunk is a ConverseStream event: an object under an event's or exception's name. A
 * `metadata` member alone is one only where it holds what Bedrock's does (`usage` with
 * `inputTokens`, `metrics`, `trace`): a chat chunk may carry request `metadata` (TOP_NO_TEXT).
 */
function isConverseEvent(d: Obj): boolean {
  const keys = Object.keys(d)
  if (keys.some((k) => (CONVERSE_EVENTS.has(k) && k !== 'metadata' && isObj(d[k])) || CONVERSE_EXCEPTIONS.has(k))) return true
  const m = d.metadata
  return keys.length === 1 && isObj(m) && ((isObj(m.usage) && 'inputTokens' in m.usage) || isObj(m.metrics) || m.trace !== undefined)
}

/**
 * One event of another provider's stream, read into `streams`; the error messages it showed the
 * client (an exception event's, a run's last error), to be searched with the answer. Null where
 * the chunk is of none of these streams.
 */
function providerStreamEvent(chunk: Obj, streams: ProviderStreams, out: DecodedResponse): string[] | null {
  if (!isProviderStreamChunk(chunk)) return null
  if (typeof chunk.object === 'string') return assistantsEvent(chunk, streams, out)
  if (typeof chunk.type === 'string') return cohereEvent(chunk, streams, out)
  if (Array.isArray(chunk.candidates) || isObj(chunk.usageMetadata) || isObj(chunk.promptFeedback)) return geminiChunk(chunk, streams, out)
  return converseEvent(chunk, streams, out)
}

const addAll = (set: Set<string>, texts: string[]): void => {
  for (const t of texts) if (t !== '') set.add(t)
}
const appendTo = <K>(map: Map<K, string[]>, key: K, piece: string): void => {
  const buf = map.get(key)
  if (buf) buf.push(piece)
  else map.set(key, [piece])
}

/**
 * A Gemini stream chunk: a whole `generateContent` body (checked member by member as one, by
 * geminiText), whose candidates' parts continue those of the chunks before (by candidate index);
 * the last counts given are the stream's.
 */
function geminiChunk(chunk: Obj, streams: ProviderStreams, out: DecodedResponse): string[] {
  geminiText({...chunk, candidates: Array.isArray(chunk.candidates) ? chunk.candidates : []}, out.unread)
  const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : []
  candidates.forEach((c, i) => {
    if (!isObj(c)) return
    const index = typeof c.index === 'number' ? c.index : i
    let entry = streams.gemini.get(index)
    if (!entry) streams.gemini.set(index, (entry = {parts: [], extras: new Set()}))
    if (isObj(c.content) && Array.isArray(c.content.parts)) entry.parts.push(...c.content.parts)
    addAll(entry.extras, geminiCandidateExtras(c))
  })
  if (isObj(chunk.promptFeedback)) addAll(streams.extra, str(chunk.promptFeedback.blockReasonMessage))
  if (isObj(chunk.usageMetadata)) {
    out.promptTokens = intOrNull(chunk.usageMetadata.promptTokenCount) ?? out.promptTokens
    out.completionTokens = intOrNull(chunk.usageMetadata.candidatesTokenCount) ?? out.completionTokens
  }
  return []
}

/**
 * A Bedrock ConverseStream event: a content block's delta (its text, a tool call's input in
 * pieces of JSON text, reasoning text; a citation's strings; a reasoning signature or redacted
 * reasoning holds no text); a stop's model fields; the metadata's usage and trace. An exception
 * event is an error the client was shown, its message (and every other string of it) searched.
 * Every member of each is read, known to carry no text, or named unread.
 */
function converseEvent(chunk: Obj, streams: ProviderStreams, out: DecodedResponse): string[] {
  const unread = out.unread
  const errors: string[] = []
  for (const [key, value] of Object.entries(chunk)) {
    if (CONVERSE_EXCEPTIONS.has(key)) {
      const message = isObj(value) && typeof value.message === 'string' ? value.message : key
      out.isError = true
      out.errorMessage = message
      errors.push(message, ...(isObj(value) ? leafTexts(Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'message'))) : []))
      continue
    }
    if (!CONVERSE_EVENTS.has(key)) {
      if (leafTexts(value).length > 0) unreadShape(unread, shapeName('ConverseStream event member', key))
      continue
    }
    if (!isObj(value)) continue
    const event = key
    // Bedrock writes the index after the delta: a last event cut off between them continues the block before it.
    const index = typeof value.contentBlockIndex === 'number' ? value.contentBlockIndex : streams.converseLast
    if (event === 'messageStart') unknownMembers(value, new Set(), new Set(['role']), 'ConverseStream messageStart member', unread)
    else if (event === 'contentBlockStop') unknownMembers(value, new Set(), new Set(['contentBlockIndex']), 'ConverseStream contentBlockStop member', unread)
    else if (event === 'contentBlockStart') {
      unknownMembers(value, new Set(['start']), new Set(['contentBlockIndex']), 'ConverseStream contentBlockStart member', unread)
      if (isObj(value.start)) {
        unknownMembers(value.start, new Set(), new Set(['toolUse']), 'ConverseStream block start member', unread)
        // A tool call's start names it (its id, the tool's name): its input follows in deltas.
        if (isObj(value.start.toolUse)) unknownMembers(value.start.toolUse, new Set(), new Set(['toolUseId', 'name', 'type']), 'ConverseStream tool use start member', unread)
      }
    } else if (event === 'contentBlockDelta') {
      unknownMembers(value, new Set(['delta']), new Set(['contentBlockIndex']), 'ConverseStream contentBlockDelta member', unread)
      streams.converseLast = index
      if (isObj(value.delta)) converseDelta(value.delta, index, streams, unread)
    } else if (event === 'messageStop') {
      unknownMembers(value, new Set(['additionalModelResponseFields']), new Set(['stopReason']), 'ConverseStream messageStop member', unread)
      addAll(streams.extra, leafTexts(value.additionalModelResponseFields))
    } else {
      unknownMembers(value, new Set(['trace']), new Set(['usage', 'metrics', 'performanceConfig', 'serviceTier']), 'ConverseStream metadata member', unread)
      addAll(streams.extra, leafTexts(value.trace))
      if (isObj(value.usage)) {
        out.promptTokens = intOrNull(value.usage.inputTokens) ?? out.promptTokens
        out.completionTokens = intOrNull(value.usage.outputTokens) ?? out.completionTokens
      }
    }
  }
  return errors
}

/** A ConverseStream content block delta (the ContentBlockDelta union) appended to its block. */
function converseDelta(delta: Obj, index: number, streams: ProviderStreams, unread: string[]): void {
  const piece = (kind: 'text' | 'reasoning' | 'tool', text: string): void => {
    if (text === '') return
    let block = streams.converse.get(index)
    if (!block) streams.converse.set(index, (block = {kind, pieces: []}))
    block.pieces.push(text)
  }
  unknownMembers(delta, new Set(['text', 'toolUse', 'reasoningContent', 'citation', 'toolResult']), new Set(['image']), 'ConverseStream delta member', unread)
  if (typeof delta.text === 'string') piece('text', delta.text)
  if (isObj(delta.toolUse)) {
    unknownMembers(delta.toolUse, new Set(['input']), new Set(), 'ConverseStream tool use delta member', unread)
    if (typeof delta.toolUse.input === 'string') piece('tool', delta.toolUse.input)
  }
  if (isObj(delta.reasoningContent)) {
    unknownMembers(delta.reasoningContent, new Set(['text']), new Set(['signature', 'redactedContent']), 'ConverseStream reasoning delta member', unread)
    if (typeof delta.reasoningContent.text === 'string') piece('reasoning', delta.reasoningContent.text)
  }
  // A citation's strings (its title, the source's text) and a tool's result given in pieces: texts the client received.
  addAll(streams.extra, [...leafTexts(delta.citation), ...leafTexts(delta.toolResult)])
}

/**
 * A Cohere v2 chat stream event: a content part's start and deltas (`delta.message.content`: its
 * `text`, a thinking part's `thinking`), the tool plan's deltas, a tool call's start and argument
 * deltas, a citation's strings, the end's usage. Every member is read, known to carry no text, or
 * named unread.
 */
function cohereEvent(chunk: Obj, streams: ProviderStreams, out: DecodedResponse): string[] {
  const unread = out.unread
  const type = chunk.type as string
  const index = typeof chunk.index === 'number' ? chunk.index : 0
  unknownMembers(chunk, new Set(['delta']), new Set(['type', 'index', 'id']), 'Cohere stream event member', unread)
  const delta = isObj(chunk.delta) ? chunk.delta : {}
  unknownMembers(delta, new Set(['message']), new Set(['finish_reason', 'usage']), 'Cohere stream delta member', unread)
  if (isObj(delta.usage)) {
    const tokens = isObj(delta.usage.tokens) ? delta.usage.tokens : isObj(delta.usage.billed_units) ? delta.usage.billed_units : {}
    out.promptTokens = intOrNull(tokens.input_tokens) ?? out.promptTokens
    out.completionTokens = intOrNull(tokens.output_tokens) ?? out.completionTokens
  }
  const m = isObj(delta.message) ? delta.message : null
  if (m === null) return []
  unknownMembers(m, new Set(['content', 'tool_plan', 'tool_calls', 'citations']), new Set(['role']), 'Cohere stream message member', unread)
  if (type === 'message-start') {
    // The message as started (empty from Cohere): whatever text it holds, read as the body's message is.
    const t = cohereText({message: m}, unread)
    if (t !== '') streams.extra.add(t)
    return []
  }
  if (isObj(m.content)) {
    unknownMembers(m.content, new Set(['text', 'thinking']), new Set(['type']), 'Cohere stream content member', unread)
    const piece = typeof m.content.text === 'string' ? m.content.text : typeof m.content.thinking === 'string' ? m.content.thinking : ''
    if (piece !== '') appendTo(streams.cohere.content, index, piece)
  }
  if (typeof m.tool_plan === 'string' && m.tool_plan !== '') streams.cohere.plan.push(m.tool_plan)
  if (isObj(m.tool_calls)) {
    const args = toolCallText(m.tool_calls, unread)
    if (args !== null && args !== '') appendTo(streams.cohere.calls, index, args)
  }
  addAll(streams.extra, leafTexts(m.citations))
  return []
}

/**
 * An OpenAI Assistants stream event, by the object it carries: a message's deltas
 * (`thread.message.delta`: its parts' text by part index, refusals, annotations' strings); a
 * message whole (`thread.message`, created, in progress, completed or incomplete: the text the
 * deltas give again, read as assistantsText reads it, kept to be compared); a run step's tool
 * calls in pieces (`thread.run.step.delta`) and whole (`thread.run.step`); a run's required tool
 * calls and its last error (`thread.run`). A thread (`thread.created`) holds no text.
 */
function assistantsEvent(chunk: Obj, streams: ProviderStreams, out: DecodedResponse): string[] {
  const unread = out.unread
  const id = typeof chunk.id === 'string' ? chunk.id : ''
  switch (chunk.object) {
    case 'thread.message.delta': {
      unknownMembers(chunk, new Set(['delta']), new Set(['id', 'object']), 'Assistants message delta member', unread)
      const message = assistantsMessage(streams, id)
      if (!isObj(chunk.delta)) return []
      unknownMembers(chunk.delta, new Set(['content']), new Set(['role']), 'Assistants delta member', unread)
      for (const part of Array.isArray(chunk.delta.content) ? chunk.delta.content : []) {
        if (!isObj(part)) {
          if (part !== null) unreadShape(unread, shapeName('Assistants delta content part', undefined))
          continue
        }
        const index = typeof part.index === 'number' ? part.index : 0
        if (part.type === 'text' && isObj(part.text)) {
          unknownMembers(part.text, new Set(['value', 'annotations']), new Set(), 'Assistants text delta member', unread)
          if (typeof part.text.value === 'string' && part.text.value !== '') appendTo(message.parts, index, part.text.value)
          message.annotations.push(...leafTexts(part.text.annotations))
        } else if (part.type === 'refusal') {
          if (typeof part.refusal === 'string' && part.refusal !== '') appendTo(message.parts, index, part.refusal)
        } else if (part.type !== 'image_file' && part.type !== 'image_url') unreadShape(unread, shapeName('Assistants delta content part', part.type))
      }
      return []
    }
    case 'thread.message': {
      if (!Array.isArray(chunk.content)) {
        unknownMembers(chunk, new Set(), ASSISTANTS_NO_TEXT, 'Assistants message member', unread)
        return []
      }
      const whole = assistantsText(chunk, unread)
      // A completed message repeats the deltas; one only created or in progress holds what it holds so far.
      const message = assistantsMessage(streams, id)
      if (whole !== '' || message.whole === null) message.whole = whole
      return []
    }
    case 'thread.run.step.delta': {
      unknownMembers(chunk, new Set(['delta']), new Set(['id', 'object']), 'Assistants run step delta member', unread)
      const details = isObj(chunk.delta) && isObj(chunk.delta.step_details) ? chunk.delta.step_details : null
      if (isObj(chunk.delta)) unknownMembers(chunk.delta, new Set(['step_details']), new Set(), 'Assistants run step delta member', unread)
      if (details === null || !Array.isArray(details.tool_calls)) return []
      unknownMembers(details, new Set(['tool_calls']), new Set(['type']), 'Assistants step details member', unread)
      const step = assistantsStep(streams, id)
      for (const call of details.tool_calls) {
        if (!isObj(call)) continue
        const index = typeof call.index === 'number' ? call.index : 0
        const {written, given} = assistantsToolCall(call)
        if (written !== '') appendTo(step.pieces, index, written)
        addAll(streams.extra, given)
      }
      return []
    }
    case 'thread.run.step': {
      unknownMembers(chunk, new Set(['step_details', 'last_error']), ASSISTANTS_RUN_NO_TEXT, 'Assistants run step member', unread)
      const step = assistantsStep(streams, id)
      if (isObj(chunk.step_details) && Array.isArray(chunk.step_details.tool_calls)) {
        const calls = chunk.step_details.tool_calls.filter(isObj).map(assistantsToolCall)
        const whole = calls.map((c) => c.written).filter((t) => t !== '').join('\n')
        if (whole !== '') step.whole = whole
        for (const c of calls) addAll(streams.extra, c.given)
      }
      readUsage(chunk.usage, out)
      return assistantsLastError(chunk, out)
    }
    case 'thread.run': {
      unknownMembers(chunk, new Set(['required_action', 'last_error']), ASSISTANTS_RUN_NO_TEXT, 'Assistants run member', unread)
      // The tool calls a run asks the client to answer: the model's arguments, which the client received.
      if (isObj(chunk.required_action) && isObj(chunk.required_action.submit_tool_outputs) && Array.isArray(chunk.required_action.submit_tool_outputs.tool_calls)) {
        addAll(streams.extra, answerToolCallArgs(chunk.required_action.submit_tool_outputs.tool_calls, unread))
      }
      readUsage(chunk.usage, out)
      return assistantsLastError(chunk, out)
    }
    default:
      // A thread: its id, times, metadata and tool resources (file and vector store ids).
      unknownMembers(chunk, new Set(), new Set(['id', 'object', 'created_at', 'metadata', 'tool_resources']), 'Assistants thread member', unread)
      return []
  }
}

/**
 * A run's or run step's members that carry no answer text: ids, times, states, the model, and
 * what the request set (the assistant's instructions and tools, sampling and truncation settings,
 * metadata): the request's, given back, as the Responses API's final response repeats them.
 */
const ASSISTANTS_RUN_NO_TEXT = new Set([
  'id', 'object', 'created_at', 'assistant_id', 'thread_id', 'run_id', 'type', 'status', 'started_at', 'expires_at', 'expired_at', 'cancelled_at', 'failed_at', 'completed_at',
  'incomplete_details', 'model', 'instructions', 'tools', 'metadata', 'usage', 'temperature', 'top_p', 'max_prompt_tokens', 'max_completion_tokens', 'truncation_strategy',
  'response_format', 'tool_choice', 'parallel_tool_calls', 'reasoning_effort', 'tool_resources',
])

function assistantsMessage(streams: ProviderStreams, id: string): {parts: Map<number, string[]>; annotations: string[]; whole: string | null} {
  let m = streams.assistants.get(id)
  if (!m) streams.assistants.set(id, (m = {parts: new Map(), annotations: [], whole: null}))
  return m
}

function assistantsStep(streams: ProviderStreams, id: string): {pieces: Map<number, string[]>; whole: string | null} {
  let s = streams.steps.get(id)
  if (!s) streams.steps.set(id, (s = {pieces: new Map(), whole: null}))
  return s
}

/**
 * An Assistants run step's tool call: `written`, what the model wrote (a function's arguments, a
 * code interpreter's input: in pieces in a step's deltas), and `given`, what the tool gave back (a
 * function's output, the interpreter's outputs' logs, a file search's results: every string but
 * ids). A function's or tool's name is the request's.
 */
function assistantsToolCall(call: Obj): {written: string; given: string[]} {
  const fn = isObj(call.function) ? call.function : {}
  const code = isObj(call.code_interpreter) ? call.code_interpreter : {}
  return {
    written: [...str(fn.arguments), ...str(code.input)].join('\n'),
    given: [...str(fn.output), ...leafTexts(code.outputs), ...leafTexts(isObj(call.file_search) ? call.file_search.results : undefined)],
  }
}

/** A run's (or step's) last error: shown to the client, its message searched with the answer. */
function assistantsLastError(chunk: Obj, out: DecodedResponse): string[] {
  if (!isObj(chunk.last_error)) return []
  const message = typeof chunk.last_error.message === 'string' ? chunk.last_error.message : JSON.stringify(chunk.last_error)
  out.isError = true
  out.errorMessage = message
  return [message]
}

/**
 * The texts of the other providers' streams read (ProviderStreams), each answer as its body would
 * read: Gemini candidates in index order (their parts joined across chunks, geminiPartsText);
 * ConverseStream blocks in index order (text blocks one running text, a tool call's input as
 * JSON); Cohere's content parts, tool plan and tool calls; each Assistants message as its deltas
 * give it and, where the whole message its events repeat says something else (a message logged
 * without its deltas, an annotation), that too on its own line, as the Responses API's done
 * events are read (responsesStreamText); run steps' tool calls likewise; then the texts beside.
 */
function providerStreamText(streams: ProviderStreams): string[] {
  const texts: string[] = []
  const byIndex = <V>(m: Map<number, V>): V[] => [...m].sort((a, b) => a[0] - b[0]).map(([, v]) => v)
  for (const c of byIndex(streams.gemini)) texts.push([...geminiPartsText(c.parts, []), ...c.extras].filter(Boolean).join('\n'))
  texts.push(blocksText(byIndex(streams.converse).map((b) => ({text: b.kind === 'tool' ? jsonPiecesText(b.pieces) : b.pieces.join(''), isText: b.kind === 'text'}))))
  texts.push(byIndex(streams.cohere.content).map((p) => p.join('')).join('\n'), streams.cohere.plan.join(''), ...byIndex(streams.cohere.calls).map((p) => p.join('')))
  for (const m of streams.assistants.values()) {
    const streamed = withCitations(byIndex(m.parts).map((p) => p.join('')).join('\n'), [...new Set(m.annotations)])
    texts.push(streamed)
    if (m.whole !== null && m.whole !== '' && m.whole !== streamed) texts.push(m.whole)
  }
  for (const s of streams.steps.values()) {
    const streamed = byIndex(s.pieces).map((p) => p.join('')).join('\n')
    texts.push(streamed)
    if (s.whole !== null && s.whole !== streamed) texts.push(s.whole)
  }
  texts.push(...streams.extra)
  return texts.filter((t) => t !== '')
}

/** A tool call's input given in pieces of JSON text, written as the whole answer writes it (JSON.stringify of the parsed object); pieces that do not parse (a stream cut short) as they came. */
function jsonPiecesText(pieces: string[]): string {
  const joined = pieces.join('')
  const parsed = within('(tool input)', () => tryParseJson(joined))
  return isObj(parsed) || Array.isArray(parsed) ? JSON.stringify(parsed) : joined
}
