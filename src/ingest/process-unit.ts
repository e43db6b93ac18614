import {crc32} from 'node:zlib'
import {extractRecord, type Extracted, type UnconventionalSet} from '../extract/extract.js'
import type {CompanionIndex, LinePosition} from '../extract/formats/index.js'
import {decodeLine, lineDecoder, type DecodedRecord, type LineDecoder} from '../extract/line-decoder.js'
import {UNREAD_SHAPES, type RecordRow} from '../extract/parse-record.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {FingerprintBuffer} from '../extract/winnow.js'
import {nativeIngestLines, type NativeIngestLines} from './native-ingest.js'
import {NATIVE_BLANK, NATIVE_LEFT, NATIVE_RECORD} from './native-quick.js'

// One unit of work for ingest: a run of whole lines cut from a file's (decompressed)
// stream, decoded in the file's log format into record rows, bad lines (or bad items of a
// line) and the detection extract of each record. Runs in a worker thread (or inline for
// small inputs, and for formats whose lines need the rest of the file set: the companion index
// lives on the main thread); the result is plain data that the main thread writes in order, so
// every record id and duplicate decision is the same as a line-by-line ingest.

export interface UnitTask {
  seq: number
  bytes: Uint8Array
  /** Offset of bytes[0] in the file's decompressed stream. */
  offset: number
  firstLineNo: number
  /** The file's parse spec (canonical JSON): format, --map, format options, --assume-tz. */
  spec: string
  /** The file's key in companion positions (its id in the case). */
  file: string
  maxLineBytes: number
  /** Set by the pool: bytes.buffer was transferred to the worker (and comes back in the result). */
  transferred?: boolean
}

export const RAW_KEEP = 64 * 1024 // bytes of a bad line copied into bad_lines; all of it stays in the evidence

/** Row metadata: the texts are not carried (they are re-derived from the evidence when needed). */
export type RecordMeta = Omit<RecordRow, 'request_text' | 'response_text'>

/** A parsed record: where its line is, its row, its detection extract, and the other lines it was read from. */
export interface RecordItem extends Extracted {
  k: 'r'
  lineNo: number
  item: number
  offset: number
  length: number
  crc: number
  row: RecordMeta
  noRequestText: boolean
  noResponseText: boolean
  /** The line recorded no response at all (not one that decoded to nothing). */
  noResponse: boolean
  companions: LinePosition[]
}

export interface BadItem {
  k: 'b'
  lineNo: number
  /** null: the whole line; else the item of the line (an OTLP span) that could not be read */
  item: number | null
  offset: number
  length: number
  reason: string
  raw: Uint8Array
  truncated: boolean
}

export interface UnitResult {
  seq: number
  /** Size of the unit's input. */
  bytes: number
  /** Lines in the unit, blank ones included. */
  lines: number
  blank: number
  /** Items that are not model calls (non-GenAI spans, Batch input lines, Langfuse spans). */
  ignored: number
  /** Of those, the ones that carry model texts in a convention not read, by convention (AdaptResult.unread). */
  unread: Record<string, number>
  /** The file's first line started with a UTF-8 byte-order mark (skipped). */
  bom: boolean
  items: Array<RecordItem | BadItem>
  /** What records lacked, and how many records each note applies to. */
  notes: Record<string, number>
  /** The first line of a record whose body holds a shape not read (its note starts UNREAD_SHAPES); absent where none. */
  unreadFirstLine?: number
  /** Fingerprint pairs of every record, packed; items point into it. */
  fp: Uint32Array
  /** The task's bytes, handed back so that their buffer can be reused (nothing in the result refers to them). */
  input?: Uint8Array
}

/** Distinct notes kept per unit; more are counted under one line. */
const MAX_NOTES = 50

const fpBuf = new FingerprintBuffer()
const decoders = new Map<string, LineDecoder>()

/** The decoder of a spec, built once per thread. */
export function decoderFor(spec: string): LineDecoder {
  let d = decoders.get(spec)
  if (!d) {
    d = lineDecoder(decodeParseSpec(spec))
    decoders.set(spec, d)
  }
  return d
}

/** Called with each record item and the texts it was decoded from (which the result does not carry): `crosstalk extract` derives what the echo check needs from the prompt. */
export type RecordTextsHook = (item: RecordItem, texts: {request_text: string | null; response_text: string | null}) => void

export function processUnit(task: UnitTask, unconventional?: UnconventionalSet, index: CompanionIndex | null = null, onTexts?: RecordTextsHook): UnitResult {
  const result: UnitResult = {seq: task.seq, bytes: task.bytes.byteLength, lines: 0, blank: 0, ignored: 0, unread: {}, bom: false, items: [], notes: {}, fp: new Uint32Array(0)}
  fpBuf.length = 0
  const note = noteCounter(result.notes)
  // Plain native lines' bodies are read by the addon where it is built (native-ingest.ts).
  const bodies = index === null && decoderFor(task.spec).plainNative ? nativeIngestLines(task.bytes, task.maxLineBytes) : null
  Object.assign(result, walkUnit(task, index, true, {
    bad: (lineNo, item, offset, line, reason, whole) => {
      result.items.push(whole
        ? {k: 'b', lineNo, item, offset, length: line.length, reason, raw: Uint8Array.prototype.slice.call(line, 0, RAW_KEEP), truncated: line.length > RAW_KEEP}
        : {k: 'b', lineNo, item, offset, length: line.length, reason, raw: new Uint8Array(0), truncated: true})
    },
    record: (lineNo, offset, line, crc, r) => {
      const {request_text: prompt, response_text: response, ...row} = r.row
      const x = extractRecord(prompt, response, fpBuf, unconventional)
      const flags = recordFlags(r.row)
      for (const n of r.notes) note(n)
      markUnreadLine(result, lineNo, r.notes)
      const item: RecordItem = {
        k: 'r', lineNo, item: r.item, offset, length: line.length, crc, row,
        noRequestText: (flags & NO_REQUEST_TEXT) !== 0, noResponseText: (flags & NO_RESPONSE_TEXT) !== 0, noResponse: (flags & NO_RESPONSE) !== 0,
        companions: r.companions, ...x,
      }
      result.items.push(item)
      onTexts?.(item, {request_text: prompt, response_text: response})
    },
  }, undefined, bodies ?? undefined))
  result.fp = fpBuf.data.slice(0, fpBuf.length)
  result.input = task.bytes
  return result
}

/** A record's flags (bits): what ingest counts per record kept, besides the record itself. */
export const NO_REQUEST_TEXT = 1
export const NO_RESPONSE_TEXT = 2
export const NO_RESPONSE = 4
export const IS_ERROR = 8

/** The request decoded to no text; errors aside, the response decoded to no text, or was not recorded at all; an error response. */
export function recordFlags(row: RecordRow): number {
  let f = 0
  if (row.request_text === null || row.request_text === '') f |= NO_REQUEST_TEXT
  // An answer with no text by design (an embedding's vectors) is counted by its note, not as one that decoded to nothing.
  if (row.is_error === 0 && row.no_text_by_design !== true && (row.response_text === null || row.response_text === '')) f |= NO_RESPONSE_TEXT
  if (row.is_error === 0 && row.response_kind === 'none') f |= NO_RESPONSE
  if (row.is_error === 1) f |= IS_ERROR
  return f
}

/**
 * Keeps `lineNo` as the first line of a record not read whole (a note of `notes` starts
 * UNREAD_SHAPES) where no earlier line of the unit was one: the file's note then names where to look.
 */
export function markUnreadLine(result: {unreadFirstLine?: number}, lineNo: number, notes: readonly string[]): void {
  if (result.unreadFirstLine === undefined && notes.some((n) => n.startsWith(UNREAD_SHAPES))) result.unreadFirstLine = lineNo
}

/** Counts each note in `notes`, keeping at most MAX_NOTES distinct ones (the rest under 'other notes'). */
export function noteCounter(notes: Record<string, number>): (text: string) => void {
  return (text) => {
    // A note that the record was not read whole keeps saying so past the cap (fileUnread counts it).
    const other = text.startsWith(UNREAD_SHAPES) ? `${UNREAD_SHAPES}: other shapes` : 'other notes'
    const key = text in notes || Object.keys(notes).length < MAX_NOTES ? text : other
    notes[key] = (notes[key] ?? 0) + 1
  }
}

/** What a unit's walk hands on, in line order. */
export interface UnitSink {
  /** A line, or an item of one, that is not a record: `whole` false for a line over --max-line-bytes (never decoded, no raw kept). */
  bad(lineNo: number, item: number | null, offset: number, line: Buffer, reason: string, whole: boolean): void
  /** A decoded record; `crc` is 0 when the walk was asked not to compute it. */
  record(lineNo: number, offset: number, line: Buffer, crc: number, r: DecodedRecord): void
}

/** Lines the native extractor answered (native-quick.ts): per line, left, blank or a record, whose columns `record` takes, in order. */
export interface LineClaims {
  kinds: Uint8Array
  record(): void
}

/**
 * Cuts a unit into lines and decodes each in the file's format: the one reading both ingest
 * (processUnit) and the quick verdict's pass (quick-unit.ts) make of a unit, so that they
 * agree on every line. Returns the unit's own counts.
 */
export function walkUnit(
  task: UnitTask, index: CompanionIndex | null, withCrc: boolean, sink: UnitSink, claims?: LineClaims, bodies?: NativeIngestLines,
): {lines: number; blank: number; ignored: number; unread: Record<string, number>; bom: boolean} {
  const decoder = decoderFor(task.spec)
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength)
  const counts = {lines: 0, blank: 0, ignored: 0, unread: {} as Record<string, number>, bom: false}
  let lineNo = task.firstLineNo
  for (let s = 0; s < bytes.length; lineNo++) {
    let e = bytes.indexOf(10, s)
    if (e === -1) e = bytes.length
    const start = s
    s = e + 1
    const claim = claims === undefined ? NATIVE_LEFT : (claims.kinds[counts.lines] ?? NATIVE_LEFT)
    counts.lines++
    // A line the native extractor answered is never looked at here (no view of it is made).
    if (claim === NATIVE_BLANK) {
      counts.blank++
      continue
    }
    if (claim === NATIVE_RECORD) {
      claims!.record()
      continue
    }
    // The addon's reading of the line, where it made one (taken for every line, in order).
    const native = bodies?.take(counts.lines - 1, decoder) ?? null
    let line = bytes.subarray(start, e)
    let offset = task.offset + start
    if (lineNo === 1 && offset === 0 && line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) {
      counts.bom = true
      line = line.subarray(3)
      offset += 3
    }
    if (line.length > task.maxLineBytes) {
      sink.bad(lineNo, null, offset, line, `line is ${line.length} bytes, over --max-line-bytes ${task.maxLineBytes}`, false)
      continue
    }
    // Ingest keeps each line's crc (records, duplicates, companions); the quick pass reads none (it never has a companion index).
    const crc = withCrc || index !== null ? crc32(line) : 0
    const at: LinePosition = {file: task.file, line: lineNo, offset, length: line.length, crc}
    const decoded = native ?? decodeLine(line, decoder, index, at)
    if (decoded.kind === 'blank') {
      counts.blank++
      continue
    }
    if (decoded.kind === 'bad') {
      sink.bad(lineNo, null, offset, line, decoded.reason, true)
      continue
    }
    counts.ignored += decoded.ignored
    for (const [convention, n] of Object.entries(decoded.unread ?? {})) counts.unread[convention] = (counts.unread[convention] ?? 0) + n
    for (const p of decoded.problems) sink.bad(lineNo, p.item, offset, line, p.reason, true)
    for (const r of decoded.records) sink.record(lineNo, offset, line, crc, r)
  }
  return counts
}
