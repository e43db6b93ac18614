import type {CaseDb} from './open-case.js'

// The evidence_blocks table: each file's decompressed stream in blocks (evidence/ encodes,
// decodes and checks them).

export interface BlockRow {
  seq: number
  raw_offset: number
  raw_len: number
  crc32: number
  codec: string
  data: Buffer
}

export interface BlockSpan {
  seq: number
  raw_offset: number
  raw_len: number
}

export type InsertBlock = (fileId: number, seq: number, rawOffset: number, rawLen: number, crc32: number, codec: string, data: Buffer) => void

export function blockInserter(db: CaseDb): InsertBlock {
  const insert = db.prepare('INSERT INTO evidence_blocks (file_id, seq, raw_offset, raw_len, crc32, codec, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
  return (fileId, seq, rawOffset, rawLen, crc, codec, data) => {
    insert.run(fileId, seq, rawOffset, rawLen, crc, codec, data)
  }
}

/** Random and ordered reads of blocks (evidence/evidence-store.ts's reader). */
export interface BlockQueries {
  /** raw_len of block 0 (blocks are fixed-size cuts, only the last is shorter), or undefined. */
  firstLength(fileId: number): number | undefined
  /** Spans of blocks seq in [from, to]. */
  spansBetween(fileId: number, from: number, to: number): BlockSpan[]
  /** Spans of the blocks overlapping [offset, end) (irregular block sizes). */
  spansOverlapping(fileId: number, offset: number, end: number): BlockSpan[]
  block(fileId: number, seq: number): BlockRow | undefined
  /** The bytes [offset, offset+length) cut out of raw block seq by SQLite (substr), without copying the block. */
  cutOut(fileId: number, seq: number, offset: number, length: number): {raw_offset: number; raw_len: number; part: Buffer | null} | undefined
}

export function blockQueries(db: CaseDb): BlockQueries {
  const firstLen = db.prepare('SELECT raw_len FROM evidence_blocks WHERE file_id = ? AND seq = 0').pluck()
  const bySeq = db.prepare('SELECT seq, raw_offset, raw_len FROM evidence_blocks WHERE file_id = ? AND seq BETWEEN ? AND ? ORDER BY seq')
  const overlapping = db.prepare(`SELECT seq, raw_offset, raw_len FROM evidence_blocks WHERE file_id = ? AND raw_offset < ? AND raw_offset + raw_len > ? ORDER BY seq`)
  const blockOf = db.prepare('SELECT seq, raw_offset, raw_len, crc32, codec, data FROM evidence_blocks WHERE file_id = ? AND seq = ?')
  const cut = db.prepare(
    `SELECT raw_offset, raw_len, CASE WHEN codec = 'raw' THEN substr(data, ? - raw_offset + 1, ?) END AS part
       FROM evidence_blocks WHERE file_id = ? AND seq = ?`,
  )
  return {
    firstLength: (fileId) => firstLen.get(fileId) as number | undefined,
    spansBetween: (fileId, from, to) => bySeq.all(fileId, from, to) as BlockSpan[],
    spansOverlapping: (fileId, offset, end) => overlapping.all(fileId, end, offset) as BlockSpan[],
    block: (fileId, seq) => blockOf.get(fileId, seq) as BlockRow | undefined,
    cutOut: (fileId, seq, offset, length) => cut.get(offset, length, fileId, seq) as {raw_offset: number; raw_len: number; part: Buffer | null} | undefined,
  }
}

/** Every block of a file in order (verify). */
export function iterateBlocks(db: CaseDb, fileId: number): IterableIterator<BlockRow> {
  return db.prepare('SELECT seq, raw_offset, raw_len, crc32, codec, data FROM evidence_blocks WHERE file_id = ? ORDER BY seq').iterate(fileId) as IterableIterator<BlockRow>
}
