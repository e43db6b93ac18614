import {crc32} from 'node:zlib'
import {extractMarkers, extractRecord, type Extracted, type UnconventionalSet} from '../extract/extract.js'
import type {CompanionIndex, LinePosition} from '../extract/formats/index.js'
import {decodeLine, lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import type {RecordRow} from '../extract/parse-record.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {FingerprintBuffer} from '../extract/winnow.js'

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
  /** The quick verdict's pass: marker tokens only (no personal data, no fingerprints), and the prompt where the echo check needs it. */
  markersOnly?: boolean
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
  /** markersOnly: the prompt, lower-cased, when the response holds a marker (the echo check reads it) */
  promptLower?: string | null
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
  /** The file's first line started with a UTF-8 byte-order mark (skipped). */
  bom: boolean
  items: Array<RecordItem | BadItem>
  /** What records lacked, and how many records each note applies to. */
  notes: Record<string, number>
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
  const decoder = decoderFor(task.spec)
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength)
  const result: UnitResult = {seq: task.seq, bytes: task.bytes.byteLength, lines: 0, blank: 0, ignored: 0, bom: false, items: [], notes: {}, fp: new Uint32Array(0)}
  fpBuf.length = 0
  const note = (text: string): void => {
    const key = text in result.notes || Object.keys(result.notes).length < MAX_NOTES ? text : 'other notes'
    result.notes[key] = (result.notes[key] ?? 0) + 1
  }
  let lineNo = task.firstLineNo
  for (let s = 0; s < bytes.length; lineNo++) {
    let e = bytes.indexOf(10, s)
    if (e === -1) e = bytes.length
    let line = bytes.subarray(s, e)
    let offset = task.offset + s
    s = e + 1
    result.lines++
    if (lineNo === 1 && offset === 0 && line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) {
      result.bom = true
      line = line.subarray(3)
      offset += 3
    }
    if (line.length > task.maxLineBytes) {
      result.items.push({k: 'b', lineNo, item: null, offset, length: line.length, reason: `line is ${line.length} bytes, over --max-line-bytes ${task.maxLineBytes}`, raw: new Uint8Array(0), truncated: true})
      continue
    }
    const crc = crc32(line)
    const at: LinePosition = {file: task.file, line: lineNo, offset, length: line.length, crc}
    const decoded = decodeLine(line, decoder, index, at)
    if (decoded.kind === 'blank') {
      result.blank++
      continue
    }
    const bad = (item: number | null, reason: string): void => {
      result.items.push({
        k: 'b', lineNo, item, offset, length: line.length, reason,
        raw: Uint8Array.prototype.slice.call(line, 0, RAW_KEEP), truncated: line.length > RAW_KEEP,
      })
    }
    if (decoded.kind === 'bad') {
      bad(null, decoded.reason)
      continue
    }
    result.ignored += decoded.ignored
    for (const p of decoded.problems) bad(p.item, p.reason)
    for (const r of decoded.records) {
      const {request_text: prompt, response_text: response, ...row} = r.row
      let x: Extracted
      let promptLower: string | null = null
      if (task.markersOnly) {
        const m = extractMarkers(prompt, response, unconventional)
        x = {tokens: m.tokens, unconventional: m.unconventional, pii: [], promptWords: 0, responseWords: 0, fpStart: 0, fpPromptLen: 0, fpResponseLen: 0}
        promptLower = m.promptLower
      } else x = extractRecord(prompt, response, fpBuf, unconventional)
      const noRequestText = prompt === null || prompt === ''
      const noResponseText = row.is_error === 0 && (response === null || response === '')
      for (const n of r.notes) note(n)
      const noResponse = row.is_error === 0 && row.response_kind === 'none'
      const item: RecordItem = {k: 'r', lineNo, item: r.item, offset, length: line.length, crc, row, noRequestText, noResponseText, noResponse, companions: r.companions, ...x, ...(task.markersOnly ? {promptLower} : {})}
      result.items.push(item)
      onTexts?.(item, {request_text: prompt, response_text: response})
    }
  }
  result.fp = fpBuf.data.slice(0, fpBuf.length)
  result.input = task.bytes
  return result
}
