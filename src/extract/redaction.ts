// LiteLLM's placeholder for a text it did not log. With message logging turned off, LiteLLM
// writes `redacted-by-litellm` in place of every message and every answer in its spend logs,
// and hands the same to each logger it feeds (Langfuse and OpenTelemetry among them), so the
// placeholder reaches logs of every shape, the native format too when a converter copies it.
// Read as text, every prompt and answer would be those same words: a scan would find no
// marker in them and report nothing, over logs that hold no text at all.

/** What LiteLLM writes in place of the messages and the response when message logging is turned off. */
export const REDACTED = 'redacted-by-litellm'

/**
 * Whether a decoded text is nothing but the placeholder: once, or once per message or part,
 * with only white space between. Such a text is no text (the record's prompt or answer was
 * not logged); a text that holds anything else beside it is read as it stands.
 */
export function onlyPlaceholder(text: string): boolean {
  // Such a text starts with it: any other is out at its first character that is not white
  // space, with no search through the whole of every prompt and answer.
  if (!STARTS_WITH_IT.test(text)) return false
  for (const word of text.split(/\s+/)) if (word !== '' && word !== REDACTED) return false
  return true
}

const STARTS_WITH_IT = new RegExp(`^\\s*${REDACTED}`)
