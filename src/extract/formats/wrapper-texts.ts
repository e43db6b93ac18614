import {decodeRequest, decodeRequestBody, decodeResponse} from '../decode.js'
import {unreadRequestNote, unreadShapesNote} from '../parse-record.js'
import {duplicateKeyPath} from '../duplicate-keys.js'
import {placeholderOf} from '../redaction.js'
import {completionFromMessages, errorResponse, isObj, type Obj} from './messages.js'

// A wrapper of a model call (a Langfuse SPAN from the @observe decorator, an OpenInference CHAIN,
// an agent or workflow span) usually holds the call's own texts: the question passed down, the
// answer passed up. An application may change them on the way (post-processing, an agent step, a
// RAG answer composed after the call), and the text a customer received is then the wrapper's.
// So each text of a wrapper is checked against the call's texts as the decoder reads them; one
// that is not among them is read with the call, as two conventions of one span are merged
// (otel.ts mergeContents): an input text as a further prompt message, an answer text as a
// further choice, so a marker in it is found and classified with the call's recipient.

/** The texts a wrapper carries, each a string as the application logged it (a structure's strings one by one). */
export interface WrapperTexts {
  /** What went in (a function's arguments, a chain's input; a tool's or retriever's output, which the model is given). */
  prompt: string[]
  /** What came out: what the caller, and so the customer, received. */
  answer: string[]
}

/** Keys of a structure whose strings label a text (a role, a type, an id) instead of holding one. */
const LABEL_KEYS = new Set(['role', 'type', 'id', 'finish_reason', 'tool_call_id', 'object', 'model', 'system_fingerprint', 'mime_type'])

/** The strings of a logged value, a JSON text read as its structure, labels left out (kept with `labels`). */
export function textLeaves(value: unknown, labels = false): string[] {
  const out: string[] = []
  const walk = (v: unknown, depth: number): void => {
    if (depth > 32) return
    if (typeof v === 'string') {
      const t = v.trim()
      // A placeholder written in place of a text (LiteLLM's, OpenInference's, Langfuse's) is no text.
      if (t === '' || placeholderOf(t) !== null) return
      const parsed = t.startsWith('{') || t.startsWith('[') || t.startsWith('"') ? tryJson(t) : undefined
      // A JSON text that gives a key twice stays the text it is: both copies are in it.
      if (parsed !== undefined && (isObj(parsed) || Array.isArray(parsed)) && duplicateKeyPath(t) === null) walk(parsed, depth + 1)
      // A string given as a JSON string literal (Langfuse's v2 API writes a string input so).
      else if (typeof parsed === 'string') walk(parsed, depth + 1)
      else out.push(t)
    } else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1)
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) if (labels || !LABEL_KEYS.has(k)) walk(x, depth + 1)
  }
  walk(value, 0)
  return out
}

function tryJson(t: string): unknown {
  try {
    return JSON.parse(t) as unknown
  } catch {
    return undefined
  }
}

/**
 * What a wrapper's strings are checked against: the call's texts as detection reads them (its
 * prompt and its answer, decoded), and every string its item logged (`item`: the call's
 * attributes or observation), so a wrapper that passes the call's metadata on with its answer
 * (LangChain's response_metadata: the model's name, a service tier) adds no text of its own.
 */
export interface CallTexts {
  text: string
  strings: ReadonlySet<string>
}

export function callTextsOf(request: unknown, response: unknown, item: unknown): CallTexts {
  return {text: `${decodeRequest(request) ?? ''}\n${decodeResponse(response).text}`, strings: new Set(textLeaves(item, true))}
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ')

/**
 * The wrapper's texts that are not the same as, or contained in, the call's texts (white space
 * aside), nor one of the strings its item logged: each side joined into one text, null where
 * nothing is left. A text contained in the call's is searched there already.
 */
export function textsBeyond(texts: WrapperTexts, call: CallTexts): {prompt: string | null; answer: string | null} {
  let collapsed: string | null = null
  const within = (t: string): boolean => call.strings.has(t) || call.text.includes(t) || (collapsed ??= collapse(call.text)).includes(collapse(t))
  const beyond = (list: readonly string[]): string | null => {
    const left = [...new Set(list.filter((t) => !within(t)))]
    return left.length === 0 ? null : left.join('\n')
  }
  return {prompt: beyond(texts.prompt), answer: beyond(texts.answer)}
}

/** A request body with further prompt texts: as further user messages, the body's own text kept. */
export function withPromptTexts(request: unknown, texts: readonly string[], notes: string[]): unknown {
  if (texts.length === 0) return request
  const extra = texts.map((content) => ({role: 'user', content}))
  if (request === null || request === undefined) return {messages: extra}
  if (isObj(request) && Array.isArray(request.messages)) return {...request, messages: [...request.messages, ...extra]}
  // Another shape (a prompt, a Responses or Messages API body): its text as the decoder reads it, first.
  const own = decodeRequestBody(request)
  // Members the decoder does not read in the body replaced: said of the record, as rowFromRecord says it of a request it decodes.
  if (own.unread.length > 0) notes.push(unreadRequestNote(own.unread))
  const text = own.text ?? ''
  return {messages: [...(text === '' ? [] : [{role: 'user', content: text}]), ...extra]}
}

/** A response body with further answer texts: as further choices, the body's own text and error kept. */
export function withAnswerTexts(response: unknown, texts: readonly string[], notes: string[]): unknown {
  if (texts.length === 0) return response
  const extra = texts.map((content) => ({role: 'assistant', content}))
  if (response === null || response === undefined) return completionFromMessages(extra)
  if (isObj(response) && Array.isArray(response.choices)) {
    const n = response.choices.length
    const added = (completionFromMessages(extra).choices as Obj[]).map((c, i) => ({...c, index: n + i}))
    return {...response, choices: [...response.choices, ...added]}
  }
  // Another shape (a Messages or Responses API answer, a stream's chunks, an error alone): its
  // text as the decoder reads it is the first choice; its error and usage stay.
  const own = decodeResponse(response)
  // Shapes the decoder does not read in the body replaced: said of the record (its notes), as rowFromRecord says it of a body it decodes.
  if (own.unread.length > 0) notes.push(unreadShapesNote(own.unread))
  const body = completionFromMessages([...(own.text === '' ? [] : [{role: 'assistant', content: own.text}]), ...extra])
  if (isObj(response) && isObj(response.usage)) body.usage = response.usage
  return own.isError ? {...body, ...errorResponse(own.errorMessage ?? 'error')} : body
}

/**
 * Of a trace's calls, the one a wrapper's texts are read with: the last to end (an agent's final
 * answer is its last call's), ties to the greatest key. It is the greatest of any set of the
 * trace's calls it is in, so a record decoded again from its own lines picks the same.
 */
export function lastCall<T extends {key: string; end: number}>(calls: Iterable<T>): T | null {
  let best: T | null = null
  for (const c of calls) if (best === null || c.end > best.end || (c.end === best.end && c.key > best.key)) best = c
  return best
}
