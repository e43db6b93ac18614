import {createHash} from 'node:crypto'
import {AhoCorasick, type SharedAutomaton} from './aho-corasick.js'
import {markerTokens, wholeMatches, type MarkerToken} from './markers.js'
import {findPii, hashPii} from './pii.js'
import {FingerprintBuffer, fingerprintTextFast, SCHEME} from './winnow.js'

// What detection needs from one record's texts, taken in the single pass that decodes
// them (at ingest, in a worker thread): the response's marker-shaped tokens, the hashed
// personal-data values of prompt and response, and the winnowed fingerprints of both.
// All of it is independent of the canary registry and of every other record, so it is
// computed once per record, in parallel, and a scan never has to read a text again.

/**
 * Names what ingest extracted (recorded per file). Bump it when any part of the extraction
 * changes, with a migration that re-extracts or refuses cases made under the old scheme.
 * x3: the texts extracted from are decoded as this version decodes them (decode.ts reads a
 * request's tool results, documents and function-call outputs, and a Messages API stream's text
 * blocks as the same message not streamed joins them).
 * x4: a line that gives a key its reader takes twice is a bad line (duplicate-keys.ts), not a
 * record read with the last value; a file read before is checked for such lines when it is
 * extracted again (detect/reextract.ts). A text that is only a redaction placeholder
 * (redaction.ts) is no text in every reader, and a Langfuse output of several messages reads
 * each message's thinking blocks.
 * x5: an answer's texts decoded as this version decodes them (decode.ts reads a legacy
 * function_call, object tool arguments, Responses and Messages API tool items, a stream's error
 * chunks' choices, and searches every error message with the answer).
 * x6: an answer's texts decoded as this version decodes them (decode.ts reads the Responses API's
 * built-in tool items, annotations and more stream events, the Messages API's server tool and MCP
 * results, documents and citations, and a chat answer's annotations and audio transcript); a
 * record whose body holds an item, block or event of a type it does not know is not read whole
 * (parse-record.ts UNREAD_SHAPES), and a file read before is checked for such records when it is
 * extracted again (detect/reextract.ts).
 * x6 also reads a request's texts as this version decodes them (what a caller replays from its
 * history or hands back: thinking blocks, server and MCP tools' results, search results, Responses
 * API reasoning and tool items, refusals, a predicted output), so a marker the model repeats from
 * them is an echo.
 * x7: an answer's texts decoded as this version decodes them (decode.ts reads a chat answer's
 * refusal parts, names a content part of a type it does not know as not read, reads a computer
 * call output's safety checks and counts its screenshot, and a generated image, as a part not
 * searched, and counts an embeddings answer as an answer with no text by design, not as one that
 * decoded to no text); and a stream's event cut off part-way (or whose JSON breaks off) is read
 * as far as it goes, as the event it began (json-prefix.ts), beside its raw text: a marker split
 * across the last whole event and the cut one is found.
 * x7 also reads a chat answer closed-world (decode.ts unknownMembers): a custom tool call's input,
 * OpenRouter `reasoning_details`, Azure On Your Data `context`, Groq `executed_tools`, a search
 * model's `citations` and `search_results`, a stream
 * chunk's choice giving a `message`, and every string of an error object besides its message,
 * type, code, status and parameter name are read; a member of a body, chunk, choice, message,
 * delta or tool call that is neither read nor known to carry no text, and holds a string, is named
 * unread (a stream chunk of a shape not read at all too), so its record is not read whole; and
 * other providers' answer bodies (Gemini generateContent, Bedrock Converse and Titan, Cohere v2,
 * an Assistants thread.message, Ollama's bodies and NDJSON streams), once decoded to no text, are
 * read, closed-world as a chat answer is.
 * x8: the streams of those providers (Gemini, Bedrock ConverseStream, Cohere v2, Assistants) and
 * LiteLLM's thinking blocks are read, not named unread; a stream logged as a JSON list and cut off
 * is read as far as it goes; stream data after `data: [DONE]` is named unread; OpenLLMetry's
 * indexed refusal, reasoning and function-call attributes and every part of a GenAI parts message
 * are read or named; and a request is read closed-world: other providers' request shapes (Gemini
 * contents, Bedrock Converse blocks, Cohere documents, Assistants messages), a chat history's custom
 * tool calls and sent-back reasoning, and what a caller defines for the model (tools and their
 * schemas, a structured output's schema, a message's name) are prompt text, so a marker the model
 * repeats from them is an echo; a request member not read is noted (the prompt read in part).
 * x9: registered markers are matched whole: a registered marker found only inside a longer
 * registered marker or `CANARY-` hex run is no hit, and each token carries the hex digits the
 * prompt holds as a `CANARY-`'s whole run (the quick verdict's and the Spark job's echo test);
 * a request's text parts each stand on a line of their own (their words fused across parts); a
 * phone number's value is its national significant number however written, and an IBAN is found
 * in lower case, with dashes and followed by words (full-width characters read as ASCII).
 * x10: an id holding a lone surrogate is a bad line (two such ids read as one); a record's time
 * outside 2000-2100, an impossible zone-less time, or an epoch in another unit is a bad line, and
 * a 0 or empty time is unset (its fallback read); an answer kept as SSE text in a Langfuse output,
 * an OTel completion or OpenInference output is read as the stream it is, and an empty one
 * (`{}`, `""`, no choices) as no text; a chat stream's reasoning, refusal and content each stand
 * on a line of their own; tool-call arguments that parse as JSON add their decoded strings; a
 * byte-order mark opening a line other than the first is skipped, not a bad line.
 * x11: a streamed answer kept as SSE or NDJSON text inside a message (a Langfuse message's
 * content or text part, an OTel message's text part) is read as the stream it is, as is an NDJSON
 * stream kept as a string; in an SSE body, a line that is no SSE field before `[DONE]` continues
 * the data line a log shipper broke (joined and read) or is searched as raw text with the record
 * named not read whole, where it was passed over; a `prefill_node`/`decode_node` holding a lone
 * surrogate is a bad line; a marker written with a look-alike hyphen, a break after the hyphen,
 * invisible characters inside or in full-width forms is found folded (`CANARY-<hex>`), in an
 * answer and in the prompt's echo facts.
 * x12: every Default_Ignorable_Code_Point inside a marker is folded out (bidi marks, variation
 * selectors, tag characters among them); a line break (and indentation) inside a hex run of fewer
 * than 16 digits is joined; a hyphen, an invisible character or a hex digit written as a JSON
 * `\u` escape or an HTML character reference, and a percent-encoded hyphen, inside a marker are
 * read (answers and echo facts); an OpenAI Batch error line (and an errored Message Batches
 * result) whose request is not given is a bad line, not a record; an id made only of invisible
 * characters is a bad line.
 * x13: a record's time in RFC 3339's lower-case form (`2026-10-25t01:30:00z`), with ` UTC` after
 * it (`2026-10-25 01:30:00.123456 UTC`) or with an RFC 9557 `[zone]` after its offset is read,
 * where it was a bad line (or, for ` UTC`, taken as zone-less).
 */
export const EXTRACT_SCHEME = `x13/${SCHEME}`

/**
 * The schemes before, whose files a scan extracts again from their evidence (detect/reextract.ts)
 * instead of refusing them. x1 differs from x2 in personal data only (x2: a card number or an IBAN
 * stands alone, not inside a longer token such as a marker's hex, and an IBAN's country uses
 * IBANs); x2 from x3 in the texts decoded (see EXTRACT_SCHEME), so any of a file's extracts may
 * differ: its marker tokens, personal data and fingerprints alike; x3 from x4 in the lines read as
 * records (a record of x3 may stand for a line x4 refuses); x4 from x5 in an answer's texts decoded;
 * x5 from x6 in an answer's and a request's texts decoded (its echo decisions, personal data and
 * fingerprints), and in the records not read whole; x6 from x7 in an answer's texts decoded (a
 * streamed answer's where an event was cut off too), in the records not read whole and in the
 * answers counted as without text; x7 from x8 in an answer's and a request's texts decoded (its
 * echo decisions, personal data and fingerprints) and in the records not read whole; x8 from x9 in
 * the registered markers' hits and the tokens' whole-run facts, a request's texts decoded (its
 * echo decisions and fingerprints) and personal data (phones, IBANs); x9 from x10 in the lines read
 * as records (ids, times, BOMs), the records' times, and an answer's texts decoded (streams kept as
 * text, channels apart, tool arguments decoded); x10 from x11 in an answer's texts decoded (streams
 * kept in a message's text, lines of a stream outside any SSE field), the records not read whole,
 * the lines read as records (nodes holding a lone surrogate), and the marker tokens and echo
 * facts (look-alikes folded); x11 from x12 in the marker tokens and echo facts (more invisible
 * characters, wrapped and encoded markers) and the lines read as records (Batch error lines
 * without their request, ids only of invisible characters); x12 from x13 in the lines read as
 records (times in lower-case RFC 3339, with ` UTC`, or with an RFC 9557 suffix).
 */
export const PRIOR_EXTRACT_SCHEMES: readonly string[] = [`x1/${SCHEME}`, `x2/${SCHEME}`, `x3/${SCHEME}`, `x4/${SCHEME}`, `x5/${SCHEME}`, `x6/${SCHEME}`, `x7/${SCHEME}`, `x8/${SCHEME}`, `x9/${SCHEME}`, `x10/${SCHEME}`, `x11/${SCHEME}`, `x12/${SCHEME}`]

/**
 * The registry's markers outside the CANARY-<hex> convention, matched in each response by
 * an automaton. Only known when the registry is loaded before the logs; the set's hash is
 * kept with the file so that a scan under another set knows to match again.
 */
export class UnconventionalSet {
  readonly hash: string
  private built: AhoCorasick | null | undefined
  /** Every marker starts with one of these; null when there are too many to test one by one. */
  private readonly prefixes: string[] | null
  /** Whether hits() reads each token from the text (withoutMarkers()). */
  private readonly fromText: boolean = false

  /**
   * `shared`: the automaton of these same markers, built by another thread (see share());
   * without it, it is built here on first use. `slimOf` is withoutMarkers()'s (call that).
   */
  constructor(readonly markers: readonly string[], shared?: SharedAutomaton, slimOf?: UnconventionalSet) {
    if (slimOf) {
      this.markers = []
      this.hash = slimOf.hash
      this.prefixes = slimOf.prefixes
      this.built = slimOf.automaton
      this.fromText = true
      return
    }
    const sorted = [...new Set(markers)].filter((m) => m.length > 0).sort()
    this.markers = sorted
    if (shared && sorted.length > 0) {
      if (shared.lengths.length !== sorted.length) throw new Error(`unconventional markers: a shared automaton of ${shared.lengths.length} markers for ${sorted.length}`)
      this.built = AhoCorasick.fromShared(shared)
    }
    this.hash = sorted.length === 0 ? '' : createHash('sha256').update(sorted.join('\n')).digest('hex')
    // A text that contains none of the markers' opening characters holds none of them: a
    // few native substring searches spare most texts the character-by-character automaton.
    const prefixes = [...new Set(sorted.map((m) => m.slice(0, 4)))]
    this.prefixes = prefixes.length <= 16 ? prefixes : null
  }

  /** The automaton, built on first use (a few MB for thousands of markers). */
  get automaton(): AhoCorasick | null {
    if (this.built === undefined) this.built = this.markers.length > 0 ? new AhoCorasick(this.markers) : null
    return this.built
  }

  /**
   * The same set without its markers' strings, for a thread that from here on only calls hits():
   * the automaton (in shared memory where it came that way), the hash and the prefixes stay, and
   * a hit's token is read from the text, which holds it exactly (the automaton compares UTF-16
   * code units). A parse worker holds the registry's unconventional markers for the quick pass's
   * native extractor only: 53,950 strings at 5M records, about 2.5 MB in each worker's heap.
   */
  withoutMarkers(): UnconventionalSet {
    return this.fromText ? this : new UnconventionalSet([], undefined, this)
  }

  /**
   * The automaton in shared memory, for the parse workers (each would otherwise build its own);
   * null without markers. This set does not keep it: the workers hold it.
   */
  share(): SharedAutomaton | null {
    return this.built ? this.built.share() : this.markers.length > 0 ? new AhoCorasick(this.markers).share() : null
  }

  /**
   * First whole occurrence of each marker in the text, by position (wholeMatches: one inside a
   * longer registered marker, or inside a longer `CANARY-` and hex run, is part of that one).
   */
  hits(text: string): MarkerToken[] {
    if (!this.automaton) return []
    if (this.prefixes && !this.prefixes.some((p) => text.includes(p))) return []
    const out: MarkerToken[] = []
    const automaton = this.automaton
    for (const hit of wholeMatches(automaton.findAll(text), (p) => automaton.lengthOf(p), text)) {
      const token = this.fromText ? text.slice(hit.start, hit.start + this.built!.lengthOf(hit.pattern)) : this.markers[hit.pattern]!
      out.push({token, position: hit.start})
    }
    return out
  }
}

/** [in response (1) or prompt (0), kind, sha256] */
export type PiiEntry = [number, string, string]

export interface Extracted {
  tokens: MarkerToken[]
  /** Unconventional registered markers found in the response (first occurrence each). */
  unconventional: MarkerToken[]
  pii: PiiEntry[]
  promptWords: number
  responseWords: number
  /** Fingerprint pairs appended to the caller's buffer: [start, promptLen, responseLen] in uint32 units. */
  fpStart: number
  fpPromptLen: number
  fpResponseLen: number
}

export function extractRecord(prompt: string | null, response: string | null, out: FingerprintBuffer, unconventional?: UnconventionalSet): Extracted {
  const tokens = response ? markerTokens(response) : []
  const unconv = response && unconventional ? unconventional.hits(response) : []
  const pii: PiiEntry[] = []
  if (prompt) for (const v of findPii(prompt)) pii.push([0, v.kind, hashPii(v.kind, v.value)])
  if (response) for (const v of findPii(response)) pii.push([1, v.kind, hashPii(v.kind, v.value)])
  const fpStart = out.length
  const promptWords = prompt ? fingerprintTextFast(prompt, out) : 0
  const fpPromptLen = out.length - fpStart
  const responseWords = response ? fingerprintTextFast(response, out) : 0
  return {tokens, unconventional: unconv, pii, promptWords, responseWords, fpStart, fpPromptLen, fpResponseLen: out.length - fpStart - fpPromptLen}
}

/**
 * The marker part of extractRecord alone (no personal data, no fingerprints): what a quick
 * canary verdict needs, with the prompt ('' where none) for the echo check when the response
 * holds any marker (the only records whose prompt that check reads).
 */
export function extractMarkers(prompt: string | null, response: string | null, unconventional?: UnconventionalSet): {tokens: MarkerToken[]; unconventional: MarkerToken[]; prompt: string | null} {
  const tokens = response ? markerTokens(response) : []
  const unconv = response && unconventional ? unconventional.hits(response) : []
  return {tokens, unconventional: unconv, prompt: tokens.length > 0 || unconv.length > 0 ? (prompt ?? '') : null}
}
