import type {FieldMap} from '../field-path.js'

// The contract every log-format adapter keeps. An adapter turns ONE parsed JSON line into
// zero or more records in the contract's native log format, or says why it cannot; the rest
// of the pipeline then validates and decodes those records exactly as it does native lines
// (src/ingest/parse-record.ts), so there is one decoder and one set of rules for every format.
//
// Adapters are pure: no I/O, no clock, no module state. Formats whose records need other lines
// (an OTLP span's content sits in log records on other lines or in another file; a Batch
// output line's request is in the input file) declare a companion index: the caller offers it
// every parsed line of the file set first, then adapts the lines in a second pass.

export const LOG_FORMATS = ['native', 'otel', 'langfuse', 'litellm', 'openai-batch'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/**
 * One request/response in the native log format. A field the source format does not carry is
 * null, never a default that reads like a fact (no status 200 for "success", no 0 tokens for
 * "not recorded"). Bodies are in shapes src/ingest/decode.ts reads: an OpenAI chat or
 * completions request, a `chat.completion` / error object, or raw text.
 */
export interface NativeRecord {
  /** ISO 8601 (with Z or an offset, or zone-less when the source has no zone: the caller then needs --assume-tz) or epoch milliseconds. */
  ts: string | number
  request_id: string
  tenant_id: string
  session_id: string
  status: number | null
  endpoint: string | null
  model: string | null
  prefill_node: string | null
  decode_node: string | null
  prompt_tokens: number | null
  completion_tokens: number | null
  request: unknown
  response: unknown
}

export interface AdaptedRecord {
  /** Position of the source item within its line: 0 for formats with one record a line; for OTLP, the span's (or log record's) index in document order across the line's nesting. */
  item: number
  record: NativeRecord
  /** What the record lacks and why, for the per-file summary (e.g. "no message content: content capture off, or the OTLP logs file not given"). */
  notes: string[]
  /**
   * Other lines this record was read from (a Batch input line; an OTLP parent span that gave the
   * tenant, log records that gave the content), as the caller's positions, in the order they
   * were offered to the index. Decoding the record again needs exactly these lines.
   */
  companions?: LinePosition[]
}

/** A bad line or a bad item in a line. `item` null: the whole line. */
export interface LineProblem {
  item: number | null
  reason: string
}

export interface AdaptResult {
  records: AdaptedRecord[]
  problems: LineProblem[]
  /** Items that are not LLM calls (non-GenAI spans, Batch input lines, log records a span already used), counted so a summary can say so. */
  ignored: number
  /**
   * Of the ignored items, those that carry model input or output text in a convention this
   * adapter does not read as a model call, by convention (e.g. {"OpenInference": 3}): their texts
   * may be judged nowhere, so a file cannot pass as read on them (ingest-file.ts, unreadItemsOf).
   */
  unread?: Record<string, number>
}

/**
 * The `unread` key of model calls read but not whole: a text of theirs was given as OTLP bytes
 * that are no UTF-8 text (otel.ts), so it was not read. Said apart from the conventions not read
 * (ingest-file.ts, fileUnread): these items are model calls.
 */
export const UNDECODED_BYTES = 'OTLP bytesValue not UTF-8 text'

/** Where a line is, so a companion index can tell the first occurrence of something from a repeat. */
export interface LinePosition {
  file: string
  /** 1-based physical line number. */
  line: number
  /** The file's name as a user knows it (for messages), where `file` is the caller's key. */
  name?: string
  /** Where the caller keeps the line (byte offset and length in the decompressed stream, CRC-32): carried along, never read by adapters. */
  offset?: number
  length?: number
  crc?: number
}

export interface CompanionIndex {
  /** Offered every parsed line of every file of the set, in order, before the adapt pass. */
  add(value: unknown, at: LinePosition): void
}

export interface SniffResult {
  format: LogFormat
  /** 0: not this format; 1: certain. */
  confidence: number
  /** One line a person can check against the file, e.g. "3 of 3 lines are OTLP/JSON export requests (resourceSpans)". */
  reason: string
}

/** Options as the user gives them (flags), before validation. */
export interface FormatOptionsInput {
  /** otel: resource/span attribute keys tried in order for tenant_id (default tenant.id). */
  tenantAttributes?: readonly string[]
  /** openai-batch: a regular expression with named groups `tenant` and/or `session`, matched against custom_id. */
  customIdPattern?: string
  /** openai-batch: when an output line has no `body.created` (error lines, every Message Batches result line), use this timestamp (e.g. the batch's completed_at, or ended_at). */
  fallbackTs?: string | number
  /** `--map FIELD=SPEC` overrides, parsed by field-path.ts; evaluated against each record's source view. */
  map?: FieldMap
  /** --assume-tz was given: a zone-less time is read in that zone, even where the format's docs say UTC (Langfuse). */
  zoneAssumed?: boolean
}

export interface FormatOptions {
  tenantAttributes: readonly string[]
  customIdPattern: RegExp | null
  fallbackTs: string | number | null
  map: FieldMap
  zoneAssumed: boolean
}

export interface AdaptContext<I extends CompanionIndex | null = CompanionIndex | null> {
  options: FormatOptions
  /** The companion index this adapter's newIndex() made, filled by the first pass; null for formats without one. */
  index: I
  at: LinePosition
}

export interface FormatAdapter<I extends CompanionIndex | null = CompanionIndex | null> {
  readonly format: LogFormat
  /** The public specification followed, with version and URL, for docs and the audit log. */
  readonly specification: string
  sniff(first: readonly unknown[]): SniffResult
  /** A fresh companion index, or null when every line stands alone. */
  newIndex(options: FormatOptions): I
  adapt(value: unknown, ctx: AdaptContext<I>): AdaptResult
}

/** A user error in format options (exit 2 at the command edge), one line. */
export class FormatOptionError extends Error {}
