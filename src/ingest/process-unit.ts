import {crc32} from 'node:zlib'
import {extractRecord, type Extracted, type UnconventionalSet} from '../extract/extract.js'
import {parseLine, type FieldMap, type RecordRow} from '../extract/parse-record.js'
import {FingerprintBuffer} from '../extract/winnow.js'

// One unit of work for ingest: a run of whole lines cut from a file's (decompressed)
// stream, parsed into record rows, bad lines and the detection extract of each record.
// Runs in a worker thread (or inline for small inputs); the result is plain data that
// the main thread writes in order, so every record id and duplicate decision is the same
// as a line-by-line ingest.

export interface UnitTask {
  seq: number
  bytes: Uint8Array
  /** Offset of bytes[0] in the file's decompressed stream. */
  offset: number
  firstLineNo: number
  map: FieldMap
  maxLineBytes: number
  /** Set by the pool: bytes.buffer was transferred to the worker (and comes back in the result). */
  transferred?: boolean
}

export const RAW_KEEP = 64 * 1024 // bytes of a bad line copied into bad_lines; all of it stays in the evidence

/** Row metadata: the texts are not carried (they are re-derived from the evidence when needed). */
export type RecordMeta = Omit<RecordRow, 'request_text' | 'response_text'>

/** A parsed record: where its line is, its row, and its detection extract. */
export interface RecordItem extends Extracted {
  k: 'r'
  lineNo: number
  offset: number
  length: number
  crc: number
  row: RecordMeta
}

export interface BadItem {
  k: 'b'
  lineNo: number
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
  /** The file's first line started with a UTF-8 byte-order mark (skipped). */
  bom: boolean
  items: Array<RecordItem | BadItem>
  /** Fingerprint pairs of every record, packed; items point into it. */
  fp: Uint32Array
  /** The task's bytes, handed back so that their buffer can be reused (nothing in the result refers to them). */
  input?: Uint8Array
}

const fpBuf = new FingerprintBuffer()

export function processUnit(task: UnitTask, unconventional?: UnconventionalSet): UnitResult {
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength)
  const result: UnitResult = {seq: task.seq, bytes: task.bytes.byteLength, lines: 0, blank: 0, bom: false, items: [], fp: new Uint32Array(0)}
  fpBuf.length = 0
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
      result.items.push({k: 'b', lineNo, offset, length: line.length, reason: `line is ${line.length} bytes, over --max-line-bytes ${task.maxLineBytes}`, raw: new Uint8Array(0), truncated: true})
      continue
    }
    const parsed = parseLine(line, task.map)
    if (parsed.kind === 'blank') {
      result.blank++
      continue
    }
    if (parsed.kind === 'bad') {
      result.items.push({
        k: 'b', lineNo, offset, length: line.length, reason: parsed.reason,
        raw: Uint8Array.prototype.slice.call(line, 0, RAW_KEEP), truncated: line.length > RAW_KEEP,
      })
      continue
    }
    const {request_text: prompt, response_text: response, ...row} = parsed.row
    const x = extractRecord(prompt, response, fpBuf, unconventional)
    result.items.push({k: 'r', lineNo, offset, length: line.length, crc: crc32(line), row, ...x})
  }
  result.fp = fpBuf.data.slice(0, fpBuf.length)
  result.input = task.bytes
  return result
}
