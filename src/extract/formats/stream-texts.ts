import {decodeStreamText} from '../decode.js'
import {isObj, type Obj} from './messages.js'

// A streamed answer a converter copied from a gateway's body into a text of a log's own shapes
// (a Langfuse output message's content, an OTel completion's content or an output message's
// text part): read as the stream it is (decode.ts decodeStreamText, as the response decoder
// reads such a body in a native line), so a marker split across two chunks is whole. Read as
// plain text, it would be missed (the gate passing over another tenant's marker) and its pieces
// taken for markers registered to nobody. A text that only starts like a stream stays text.

/** What the streams read in a record's texts gave beside their text: the shapes not read, the error one ended with. */
export interface StreamsFound {
  unread: string[]
  error: string | null
}

export const noStreamsFound = (): StreamsFound => ({unread: [], error: null})

/** A text as the answer it holds: a stream's text joined, any other text as it is. */
export function readStreamText(text: string, found: StreamsFound): string {
  const stream = decodeStreamText(text)
  if (stream === null) return text
  for (const shape of stream.unread) if (!found.unread.includes(shape)) found.unread.push(shape)
  if (stream.isError && found.error === null) found.error = stream.errorMessage ?? 'the stream ended with an error'
  return stream.text
}

/**
 * A message (or a text, or a content part) with the texts where an answer's text is kept read
 * by readStreamText: a string; its content (a text, or a list of texts and text parts); its
 * parts (an OTel parts message's text parts, `content` or `text`; Gemini's parts, `text`); the
 * message of a choice ({index, message}); a text part's own text. Anything else as it is.
 */
export function withStreamTexts(m: unknown, found: StreamsFound): unknown {
  if (typeof m === 'string') return readStreamText(m, found)
  if (!isObj(m)) return m
  const out: Obj = {...m}
  if (isTextPart(m) && typeof m.text === 'string') out.text = readStreamText(m.text, found)
  if (typeof m.content === 'string') out.content = readStreamText(m.content, found)
  else if (Array.isArray(m.content)) out.content = m.content.map((p) => (typeof p === 'string' ? readStreamText(p, found) : isObj(p) && isTextPart(p) ? textPart(p, found) : p))
  if (Array.isArray(m.parts)) out.parts = m.parts.map((p) => (typeof p === 'string' ? readStreamText(p, found) : isObj(p) && isTextPart(p) ? textPart(p, found) : p))
  if (isObj(m.message)) out.message = withStreamTexts(m.message, found)
  return out
}

/** A part that holds an answer's text: OpenAI's and the OTel conventions' `text` parts, the Responses API's `output_text`, Gemini's part (no type). */
const isTextPart = (p: Obj): boolean => p.type === 'text' || p.type === 'output_text' || (p.type === undefined && !('role' in p))

function textPart(p: Obj, found: StreamsFound): Obj {
  const out: Obj = {...p}
  for (const k of ['text', 'content'] as const) {
    const v = p[k]
    if (typeof v === 'string') out[k] = readStreamText(v, found)
  }
  return out
}
