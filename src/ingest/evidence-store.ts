import {createHash} from 'node:crypto'
import {deflateSync, inflateSync} from 'node:zlib'
import {IntegrityError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'

// Every byte of every evidence file is kept in the case: the decompressed stream is cut
// into fixed-size blocks, each compressed on its own (zlib, whose Adler-32 catches
// corruption) and hashed, so any record's original line can be read back byte-exact
// without inflating the whole file, and `verify` can re-hash the whole stream.

export const BLOCK_SIZE = 4 * 1024 * 1024

export class EvidenceWriter {
  private pending: Buffer[] = []
  private pendingBytes = 0
  private seq = 0
  private offset = 0
  private readonly insert

  constructor(
    private readonly db: CaseDb,
    private readonly fileId: number,
  ) {
    this.insert = db.prepare(
      'INSERT INTO evidence_blocks (file_id, seq, raw_offset, raw_len, sha256, codec, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
  }

  /** Buffers raw bytes; full blocks are written by `flush` (inside the caller's transaction). */
  push(chunk: Buffer): void {
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
  }

  /** Writes every complete block; with `final`, the remainder too. */
  flush(final = false): void {
    if (this.pendingBytes === 0) return
    if (!final && this.pendingBytes < BLOCK_SIZE) return
    let all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)
    while (all.length >= BLOCK_SIZE || (final && all.length > 0)) {
      const block = all.subarray(0, Math.min(BLOCK_SIZE, all.length))
      this.writeBlock(block)
      all = all.subarray(block.length)
    }
    this.pending = all.length > 0 ? [Buffer.from(all)] : []
    this.pendingBytes = all.length
  }

  private writeBlock(block: Buffer): void {
    const sha = createHash('sha256').update(block).digest('hex')
    this.insert.run(this.fileId, this.seq++, this.offset, block.length, sha, 'deflate', deflateSync(block, {level: 1}))
    this.offset += block.length
  }
}

interface BlockRow {
  seq: number
  raw_offset: number
  raw_len: number
  sha256: string
  codec: string
  data: Buffer
}

export function inflateBlock(row: Pick<BlockRow, 'codec' | 'data' | 'seq'>, fileId: number): Buffer {
  if (row.codec !== 'deflate') throw new IntegrityError(`file #${fileId} block ${row.seq}: unknown codec ${row.codec}`)
  try {
    return inflateSync(row.data)
  } catch (error) {
    throw new IntegrityError(`file #${fileId} block ${row.seq}: stored bytes are corrupt (${(error as Error).message})`)
  }
}

/** The original bytes [offset, offset + length) of a file's decompressed stream. */
export function readEvidence(db: CaseDb, fileId: number, offset: number, length: number): Buffer {
  if (length === 0) return Buffer.alloc(0)
  const rows = db
    .prepare(
      `SELECT seq, raw_offset, raw_len, sha256, codec, data FROM evidence_blocks
       WHERE file_id = ? AND raw_offset < ? AND raw_offset + raw_len > ? ORDER BY seq`,
    )
    .all(fileId, offset + length, offset) as BlockRow[]
  const parts: Buffer[] = []
  for (const row of rows) {
    const raw = inflateBlock(row, fileId)
    const from = Math.max(0, offset - row.raw_offset)
    const to = Math.min(row.raw_len, offset + length - row.raw_offset)
    parts.push(raw.subarray(from, to))
  }
  const out = Buffer.concat(parts)
  if (out.length !== length) throw new IntegrityError(`file #${fileId}: evidence blocks do not cover bytes ${offset}..${offset + length}`)
  return out
}

/** Streams a file's blocks in order (for verify and export), inflated. */
export function* iterateEvidence(db: CaseDb, fileId: number): Generator<{seq: number; rawOffset: number; sha256: string; bytes: Buffer}> {
  const stmt = db.prepare('SELECT seq, raw_offset, raw_len, sha256, codec, data FROM evidence_blocks WHERE file_id = ? ORDER BY seq')
  for (const row of stmt.iterate(fileId) as IterableIterator<BlockRow>) {
    yield {seq: row.seq, rawOffset: row.raw_offset, sha256: row.sha256, bytes: inflateBlock(row, fileId)}
  }
}
