import type {DecodedResponse, ResponseKind} from '../extract/decode.js'
import {decodeNativeRest, type DecodedLine, type LineDecoder} from '../extract/line-decoder.js'
import type {DecodedBodies} from '../extract/parse-record.js'
import {nativeAddon} from '../util/native-addon.js'
import {NATIVE_RECORD} from './native-quick.js'

// Ingest's native decoder of plain native-format lines (native/src/lib.rs ingest_lines). Each
// worker parsed every line twice in JavaScript, the line and then the body inside its
// `response` string (the largest share of a parse worker's time, with the garbage it made);
// the addon reads both in one pass and hands over, per record, the texts and facts of its
// request and response, and the line's other members as a small JSON text of their own. That
// text is read here by the same rules as ever (parseJsonExact, the zone rule, rowFromRecord's
// checks and notes), so every field but the bodies' is still TypeScript's reading. A line the
// addon is not certain of is left to decodeLine; test/ingest/native-quick.test.ts holds every
// unit's result, with and without the addon, equal.

/** What the addon gives for a unit (native/src/lib.rs IngestLines). */
interface NativeIngestColumns extends NativeIngestFacts {
  rest: string[]
  request: string[]
  response: string[]
  errorMessage: string[]
}

/** The columns that are not texts (native/src/lib.rs IngestFacts). */
interface NativeIngestFacts {
  kinds: Uint8Array
  flags: Uint8Array
  kind: Uint8Array
  tokens: Float64Array
}

/** A unit whose texts the addon hands over one at a time (native/src/lib.rs IngestUnit). */
interface NativeIngestUnit {
  facts(): NativeIngestFacts | null
  /** Record `record`'s text: 0 rest, 1 request, 2 response, 3 error message (each taken once). */
  text(column: number, record: number): string
}

const TEXT_REST = 0
const TEXT_REQUEST = 1
const TEXT_RESPONSE = 2
const TEXT_ERROR_MESSAGE = 3

const REQUEST_NULL = 1
const STREAM_REQUESTED = 2
const STREAM = 4
const ERROR = 8
const MESSAGE_NULL = 16
/** decode.rs Kind, by its number. */
const KINDS: readonly ResponseKind[] = ['none', 'chat', 'completion', 'error', 'sse', 'json', 'text']

/** A unit's lines as the addon read them, taken line by line in walkUnit's order. */
export class NativeIngestLines {
  private record = 0
  private readonly c: NativeIngestFacts
  /** A record's text (a column of TEXT_*), from the unit's columns or from the addon as the record is reached. */
  private readonly text: (column: number, record: number) => string

  constructor(from: NativeIngestColumns | NativeIngestUnit) {
    if ('facts' in from) {
      const facts = from.facts()
      if (facts === null) throw new Error('NativeIngestLines: the unit\'s facts were taken before')
      this.c = facts
      this.text = (column, record) => from.text(column, record)
    } else {
      this.c = from
      const columns = [from.rest, from.request, from.response, from.errorMessage]
      this.text = (column, record) => columns[column]![record]!
    }
  }

  /**
   * The decoding of the unit's line `line` (0-based, blank lines included) where the addon read
   * it as a record; null where it left the line to decodeLine. Called once per line, in order.
   */
  take(line: number, decoder: LineDecoder): DecodedLine | null {
    if (this.c.kinds[line] !== NATIVE_RECORD) return null
    const r = this.record++
    const f = this.c.flags[r]!
    const token = (i: number): number | null => {
      const v = this.c.tokens[r * 3 + i]!
      return Number.isNaN(v) ? null : v
    }
    const response: DecodedResponse = {
      kind: KINDS[this.c.kind[r]!]!,
      text: this.text(TEXT_RESPONSE, r),
      stream: (f & STREAM) !== 0,
      isError: (f & ERROR) !== 0,
      errorMessage: (f & MESSAGE_NULL) !== 0 ? null : this.text(TEXT_ERROR_MESSAGE, r),
      promptTokens: token(0),
      completionTokens: token(1),
      cachedTokens: token(2),
      // The addon reads chat and completions bodies only, every shape of theirs it reads is known
      // (a Responses or Messages API body, or a message with audio or annotations, is left to decode.ts).
      unread: [],
    }
    const bodies: DecodedBodies = {requestText: (f & REQUEST_NULL) !== 0 ? null : this.text(TEXT_REQUEST, r), streamRequested: (f & STREAM_REQUESTED) !== 0, response}
    return decodeNativeRest(this.text(TEXT_REST, r), bodies, decoder)
  }
}

interface Addon {
  /** Absent from an addon built before it was added. */
  ingestLines?: (bytes: Uint8Array, maxLineBytes: number) => NativeIngestColumns
  /** The same reading, its texts handed over one at a time; absent from an addon built before it was added. */
  ingestUnit?: (bytes: Uint8Array, maxLineBytes: number) => NativeIngestUnit
}

/**
 * A unit of plain native lines read by the addon; null without it (or with CROSSTALK_NATIVE=0),
 * or where it failed (a bug there costs speed, never an answer: TypeScript reads the unit).
 */
export function nativeIngestLines(bytes: Uint8Array, maxLineBytes: number): NativeIngestLines | null {
  const addon = nativeAddon() as Addon | null
  try {
    // Texts one at a time where the addon can: given all at once, a unit's texts were most of
    // what a parse worker held live through the unit, and each scavenge of its young generation
    // copied them (a 200k-record ingest: 500-610 scavenges a worker, 1.0-1.25 s of its time).
    if (addon?.ingestUnit && process.env.CROSSTALK_NATIVE_TEXTS !== 'all') return new NativeIngestLines(addon.ingestUnit(bytes, maxLineBytes))
    if (addon?.ingestLines) return new NativeIngestLines(addon.ingestLines(bytes, maxLineBytes))
    return null
  } catch {
    return null
  }
}
