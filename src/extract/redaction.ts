// LiteLLM's placeholder for a text it did not log. With message logging turned off, LiteLLM
// writes `redacted-by-litellm` in place of every message and every answer in its spend logs,
// and hands the same to each logger it feeds (Langfuse and OpenTelemetry among them), so the
// placeholder reaches logs of every shape, the native format too when a converter copies it.
// Read as text, every prompt and answer would be those same words: a scan would find no
// marker in them and report nothing, over logs that hold no text at all.

/** What LiteLLM writes in place of the messages and the response when message logging is turned off. */
export const REDACTED = 'redacted-by-litellm'

/**
 * Whether a decoded text is nothing but LiteLLM's placeholder: once, or once per message or
 * part, with only white space (or nothing) between. Such a text is no text (the record's prompt
 * or answer was not logged); a text that holds anything else beside it is read as it stands.
 */
export function onlyPlaceholder(text: string): boolean {
  return placeholderOf(text)?.text === REDACTED
}

/** The note a record gets where its prompt or its answer was only the placeholder. */
export function redactedNote(part: 'request' | 'response'): string {
  return `${part} text redacted at the source (${REDACTED}): no text`
}

/**
 * OpenInference's REDACTED_VALUE: what its instrumentations write in place of every value an
 * OPENINFERENCE_HIDE_* setting hides (HIDE_INPUTS, HIDE_OUTPUTS, HIDE_OUTPUT_TEXT, ...). A value
 * that is exactly this is no text, as LiteLLM's placeholder is none, wherever it is found: in
 * OpenInference's own attributes, or in the GenAI ones, Langfuse's or LiteLLM's where a span
 * processor or a converter copied the texts over.
 */
export const OPENINFERENCE_REDACTED = '__REDACTED__'

/** The note a record gets where OpenInference wrote its placeholder in place of the prompt's or the answer's text. */
export function oiRedactedNote(part: 'request' | 'response'): string {
  return `${part} text redacted at the source (OpenInference ${OPENINFERENCE_REDACTED}): no text`
}

/**
 * What the Langfuse SDKs (Python, JS/TS, Ruby: their MASK_FAILURE_PLACEHOLDER) export in place
 * of an observation's whole input or output when the application's mask function throws: they
 * fail closed, and the text is not in the export.
 */
export const LANGFUSE_MASK_FAILED = '<fully masked due to failed mask function>'

/** The note a record gets where a Langfuse SDK wrote its mask-failure placeholder in place of the prompt's or the answer's text. */
export function langfuseMaskedNote(part: 'request' | 'response'): string {
  return `${part} text masked at the source (Langfuse ${LANGFUSE_MASK_FAILED}): no text`
}

/** A placeholder a producer writes in place of a text it did not log, and the note a record gets for it. */
export interface Placeholder {
  text: string
  note(part: 'request' | 'response'): string
}

/**
 * Every placeholder a producer of the formats read documents writing in place of a text it
 * hides or does not capture. Producers that leave the text out instead (the OpenTelemetry GenAI
 * instrumentations without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, OpenLLMetry
 * without TRACELOOP_TRACE_CONTENT, the AI SDK without recordInputs / recordOutputs) need no
 * entry: their records have no text to begin with.
 */
export const PLACEHOLDERS: readonly Placeholder[] = [
  {text: REDACTED, note: redactedNote},
  {text: OPENINFERENCE_REDACTED, note: oiRedactedNote},
  {text: LANGFUSE_MASK_FAILED, note: langfuseMaskedNote},
]

/** Whether a value (an attribute, a message's content) is exactly one of the placeholders, white space aside. */
export function isPlaceholder(v: unknown): boolean {
  if (typeof v !== 'string') return false
  const t = v.trim()
  return PLACEHOLDERS.some((p) => p.text === t)
}

/**
 * The placeholder a decoded text is nothing but: one or more of them (once per message or part,
 * joined with white space or with nothing, as text parts are joined), and nothing else; null for
 * any other text. Where two producers' placeholders meet in one text, the first one in it.
 */
export function placeholderOf(text: string): Placeholder | null {
  // Such a text starts with one: any other is out at its first character that is not white
  // space, with no search through the whole of every prompt and answer.
  const head = text.trimStart()
  const first = PLACEHOLDERS.find((p) => head.startsWith(p.text))
  if (first === undefined) return null
  let rest = head
  for (const p of PLACEHOLDERS) rest = rest.split(p.text).join('')
  return rest.trim() === '' ? first : null
}

/** LiteLLM's notes (formats/litellm.ts) where a logging payload or a spend-log row holds no answer. */
export const LITELLM_NO_RESPONSE_LOGGED = 'no response text logged (message logging turned off, or redacted)'
export const LITELLM_NO_RESPONSE_STORED = 'no response body stored (LiteLLM stores it only with store_prompts_in_spend_logs)'

/**
 * The notes that say the logger never wrote an answer, and why, said for a person who has to
 * find the texts elsewhere: no --log-format or --map reads a text that is not in the file.
 */
const UNLOGGED: ReadonlyMap<string, string> = new Map([
  [redactedNote('response'), `LiteLLM writes ${REDACTED} in their place while its turn_off_message_logging is on`],
  [oiRedactedNote('response'), `OpenInference writes ${OPENINFERENCE_REDACTED} in their place while OPENINFERENCE_HIDE_OUTPUTS or HIDE_OUTPUT_TEXT (or another HIDE_* setting) is on`],
  [langfuseMaskedNote('response'), `the Langfuse SDK writes ${LANGFUSE_MASK_FAILED} in their place where the application's mask function failed`],
  [LITELLM_NO_RESPONSE_LOGGED, 'LiteLLM logs no text while message logging is turned off'],
  [LITELLM_NO_RESPONSE_STORED, 'LiteLLM keeps answers in its spend logs only with store_prompts_in_spend_logs on'],
])

/** Records whose answer the logger never wrote, and why (for the most of them), as a file's notes count them. */
export interface Unlogged {
  answers: number
  why: string | null
}

/**
 * Unlogged answers from a file's notes: a read's counts by note, or the note lines a complete
 * file is stored with ("N records: note").
 */
export function unloggedAnswers(notes: Readonly<Record<string, number>> | readonly string[]): Unlogged {
  const counted: Array<[string, number]> = Array.isArray(notes)
    ? (notes as readonly string[]).flatMap((line) => {
      const m = /^(\d+) records?: (.*)$/.exec(line)
      return m === null ? [] : [[m[2]!, Number(m[1])] as [string, number]]
    })
    : Object.entries(notes as Record<string, number>)
  let answers = 0
  let why: string | null = null
  let most = 0
  for (const [note, n] of counted) {
    const reason = UNLOGGED.get(note)
    if (reason === undefined) continue
    answers += n
    if (n > most) [most, why] = [n, reason]
  }
  return {answers, why}
}
