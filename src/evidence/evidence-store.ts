import {crc32, deflate, inflateSync} from 'node:zlib'
import {IntegrityError} from '../errors.js'
import {blockInserter, blockQueries, type BlockRow, type BlockSpan, type InsertBlock} from '../store/evidence-blocks.js'
import {fileLinesHeldQuery} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {OriginalReader, type OriginalFile} from './original-reader.js'

// Every byte of every evidence file is kept in the case: the decompressed stream is cut
// into fixed-size blocks, each compressed on its own (zlib, whose Adler-32 catches
// corruption) with a CRC-32 of its raw bytes, so any record's original line can be read
// back byte-exact without inflating the whole file. The file's content SHA-256 over all
// blocks is what `verify` checks cryptographically.

export const BLOCK_SIZE = 4 * 1024 * 1024
/** Uncompressed blocks are smaller, so that reading one record back reads little more than its line. */
export const RAW_BLOCK_SIZE = 64 * 1024
/** 'raw' stores the bytes as they are; 'deflate' compresses each block (zlib level 1) on libuv's pool. */
export type EvidenceCodec = 'raw' | 'deflate'
/** Blocks being compressed at once (on libuv's thread pool, beside the parsing thread). */
const MAX_IN_FLIGHT = 4
/**
 * Room beyond a block's length in a whole-block compression's output buffer: zlib's deflateBound
 * for a 4 MiB block is about 1.3 KB over the block. A result that did not fit would only take a
 * second round through the main thread, never change the bytes.
 */
const DEFLATE_SLACK = 64 << 10

interface PendingBlock {
  seq: number
  offset: number
  length: number
  crc: number
  data: Buffer | undefined
  done: Promise<void>
}

export class EvidenceWriter {
  private pending: Buffer[] = []
  private pendingBytes = 0
  private seq = 0
  private offset = 0
  private inFlight: PendingBlock[] = []
  private failure: Error | undefined
  private readonly insert: InsertBlock

  private readonly blockSize: number

  constructor(
    private readonly db: CaseDb,
    private readonly fileId: number,
    private readonly codec: EvidenceCodec = 'deflate',
    /**
     * Compress each block in one job on libuv's pool, into one output buffer that holds the whole
     * result (level 1 never grows a block by more than a few bytes per 16 KB). zlib's default 16
     * KB output buffer makes a block's compression a round trip through the main thread per 16 KB
     * of output, so it stalls while the main thread is busy: a canary registry's last block was
     * compressed only after the registry's SQL (40 ms of 340 at 37,000 markers). Log ingest keeps
     * the default: its main thread turns often, and a block-sized buffer per job in flight would
     * add to its peak.
     */
    private readonly wholeBlocks = false,
  ) {
    this.blockSize = codec === 'raw' ? RAW_BLOCK_SIZE : BLOCK_SIZE
    this.insert = blockInserter(db)
  }

  /**
   * Takes a copy of the bytes (the caller may reuse its buffer); each full block starts
   * compressing in the background. Raw blocks are filled in buffers that are reused once
   * stored, so that a long ingest allocates none.
   */
  push(chunk: Buffer): void {
    if (this.codec === 'raw') {
      for (let from = 0; from < chunk.length; ) {
        this.fillBlock ??= this.freeBlocks.pop() ?? Buffer.allocUnsafeSlow(this.blockSize)
        const n = Math.min(chunk.length - from, this.blockSize - this.fillBytes)
        chunk.copy(this.fillBlock, this.fillBytes, from, from + n)
        this.fillBytes += n
        from += n
        if (this.fillBytes === this.blockSize) this.startRawBlock()
      }
      return
    }
    this.pending.push(Buffer.from(chunk))
    this.pendingBytes += chunk.length
    if (this.pendingBytes >= this.blockSize) this.cut(false)
  }

  private fillBlock: Buffer | undefined
  private fillBytes = 0
  private readonly freeBlocks: Buffer[] = []

  private startRawBlock(): void {
    if (!this.fillBlock || this.fillBytes === 0) return
    this.startBlock(this.fillBlock.subarray(0, this.fillBytes))
    this.fillBlock = undefined
    this.fillBytes = 0
  }

  /** Bytes taken and not yet stored: what the writer holds in memory (stored by writeReady inside a transaction). */
  get heldBytes(): number {
    let n = this.pendingBytes + this.fillBytes
    for (const b of this.inFlight) n += b.length
    return n
  }

  /** Resolves once few enough blocks are still compressing (call from the async read loop). */
  async backpressure(): Promise<void> {
    for (;;) {
      const compressing = this.inFlight.filter((b) => b.data === undefined && !this.failure)
      if (compressing.length <= MAX_IN_FLIGHT) return
      await compressing[0]!.done
    }
  }

  /** Stores every block whose compression has finished, in order. Call inside a transaction. */
  writeReady(): void {
    if (this.failure) throw this.failure
    while (this.inFlight.length > 0 && this.inFlight[0]!.data) {
      const b = this.inFlight.shift()!
      this.insert(this.fileId, b.seq, b.offset, b.length, b.crc, this.codec, b.data!)
      // SQLite has copied the bytes: a full raw block's buffer is filled again.
      if (this.codec === 'raw' && b.data!.length === this.blockSize && this.freeBlocks.length < 64) this.freeBlocks.push(b.data!)
    }
  }

  /** Cuts the remainder into a last block and waits for every compression to finish. */
  async finish(): Promise<void> {
    if (this.codec === 'raw') this.startRawBlock()
    else this.cut(true)
    await Promise.all(this.inFlight.map((b) => b.done))
    if (this.failure) throw this.failure
  }

  private cut(final: boolean): void {
    if (this.pendingBytes === 0) return
    let all = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)
    while (all.length >= this.blockSize || (final && all.length > 0)) {
      const block = all.subarray(0, Math.min(this.blockSize, all.length))
      this.startBlock(block)
      all = all.subarray(block.length)
    }
    this.pending = all.length > 0 ? [all] : []
    this.pendingBytes = all.length
  }

  private startBlock(block: Buffer): void {
    const entry: PendingBlock = {seq: this.seq++, offset: this.offset, length: block.length, crc: crc32(block), data: undefined, done: Promise.resolve()}
    if (this.codec === 'raw') {
      entry.data = block
      this.offset += block.length
      this.inFlight.push(entry)
      return
    }
    entry.done = new Promise<void>((resolve) => {
      deflate(block, {level: 1, ...(this.wholeBlocks ? {chunkSize: block.length + DEFLATE_SLACK} : {})}, (error, data) => {
        if (error) this.failure = error
        // A view of the block-sized output buffer: copied, so that a block held until it is
        // stored holds its compressed size only.
        else entry.data = this.wholeBlocks && data.length < data.buffer.byteLength / 2 ? Buffer.from(data) : data
        resolve()
      })
    })
    this.offset += block.length
    this.inFlight.push(entry)
  }
}

export function inflateBlock(row: Pick<BlockRow, 'codec' | 'data' | 'seq'>, fileId: number): Buffer {
  if (row.codec === 'raw') return row.data
  if (row.codec !== 'deflate') throw new IntegrityError(`file #${fileId} block ${row.seq}: unknown codec ${row.codec}`)
  try {
    return inflateSync(row.data)
  } catch (error) {
    throw new IntegrityError(`file #${fileId} block ${row.seq}: stored bytes are corrupt (${(error as Error).message})`)
  }
}

/** The original bytes [offset, offset + length) of a file's decompressed stream. */
export function readEvidence(db: CaseDb, fileId: number, offset: number, length: number): Buffer {
  return evidenceReader(db)(fileId, offset, length)
}

export interface EvidenceReaderOptions {
  /** Decoded blocks kept for the next reads (default 4): reading a file in order reads each block once. */
  cacheBlocks?: number
  /**
   * Reads scattered over the case (provenance's verification): a range inside one raw
   * block is cut out by SQLite (substr), so the 64 KiB block is neither copied into a
   * Buffer nor cached for one line of a few KB. Other ranges take the general path.
   */
  random?: boolean
}

/**
 * A reader for many lookups: the statement is prepared once and the last few blocks are
 * kept decoded, so reading the records of a file in order reads each block once. A file kept
 * by reference is read from its original (original-reader.ts); the caller checks each line
 * against its CRC-32 (record-texts.ts's readCheckedLine).
 */
export function evidenceReader(db: CaseDb, options: EvidenceReaderOptions = {}): (fileId: number, offset: number, length: number) => Buffer {
  const cacheBlocks = options.cacheBlocks ?? 4
  const q = blockQueries(db)
  // Blocks of a copied file are fixed-size cuts of the stream (only the last is shorter), so the
  // blocks that hold a range follow from its offsets: a primary-key range instead of a scan of the
  // file. A case of Spark findings holds one block per line, of the lines' lengths and with gaps
  // between them: the seq range computed from the first block's length may then name a block
  // wholly outside the range (its bytes were taken in, and the read failed as not covered) or miss
  // one; only the blocks overlapping the range are kept, and a range they do not cover from end to
  // end is looked up by offset instead.
  const blockLens = new Map<number, number>()
  const cache = new Map<string, {raw_offset: number; raw_len: number; bytes: Buffer}>()
  const overlapping = (spans: BlockSpan[], offset: number, end: number): BlockSpan[] => spans.filter((sp) => sp.raw_offset < end && sp.raw_offset + sp.raw_len > offset)
  const spansOf = (fileId: number, offset: number, length: number): BlockSpan[] => {
    const len = blockLen(fileId)
    if (len > 0) {
      const spans = overlapping(q.spansBetween(fileId, Math.floor(offset / len), Math.floor((offset + length - 1) / len)), offset, offset + length)
      let covered = offset
      for (const sp of spans) if (sp.raw_offset <= covered && sp.raw_offset + sp.raw_len > covered) covered = sp.raw_offset + sp.raw_len
      if (covered >= offset + length) return spans
    }
    return q.spansOverlapping(fileId, offset, offset + length) // irregular blocks
  }
  // Files kept by reference (lines_held 'none') are read from their originals.
  const heldBy = fileLinesHeldQuery(db)
  const originals = new OriginalReader()
  const referenced = new Map<number, OriginalFile | null>()
  const originalOf = (fileId: number): OriginalFile | null => {
    let f = referenced.get(fileId)
    if (f === undefined) {
      const row = heldBy(fileId)
      f = row?.lines_held === 'none' ? row : null
      referenced.set(fileId, f)
    }
    return f
  }
  const blockLen = (fileId: number): number => {
    let len = blockLens.get(fileId)
    if (len === undefined) {
      len = q.firstLength(fileId) ?? 0
      blockLens.set(fileId, len)
    }
    return len
  }
  return (fileId, offset, length) => {
    if (length === 0) return Buffer.alloc(0)
    const original = originalOf(fileId)
    if (original) return originals.read(original, offset, length, options.random)
    if (options.random) {
      const len = blockLen(fileId)
      const seq = len > 0 ? Math.floor(offset / len) : -1
      if (seq >= 0 && Math.floor((offset + length - 1) / len) === seq && !cache.has(`${fileId}:${seq}`)) {
        const row = q.cutOut(fileId, seq, offset, length)
        if (row?.part && row.raw_offset <= offset && row.raw_offset + row.raw_len >= offset + length && row.part.length === length) return row.part
      }
    }
    const spans = spansOf(fileId, offset, length)
    const parts: Buffer[] = []
    for (const span of spans) {
      const key = `${fileId}:${span.seq}`
      let block = cache.get(key)
      if (block === undefined) {
        const row = q.block(fileId, span.seq)
        if (!row) throw new IntegrityError(`file #${fileId}: evidence block ${span.seq} is missing`)
        block = {raw_offset: row.raw_offset, raw_len: row.raw_len, bytes: inflateBlock(row, fileId)}
        if (cache.size >= cacheBlocks) cache.delete(cache.keys().next().value!)
        cache.set(key, block)
      }
      const from = Math.max(0, offset - block.raw_offset)
      const to = Math.min(block.raw_len, offset + length - block.raw_offset)
      // Never a negative end (subarray counts it from the block's end): a block outside the range gives nothing.
      if (to > from) parts.push(block.bytes.subarray(from, to))
    }
    const out = parts.length === 1 ? Buffer.from(parts[0]!) : Buffer.concat(parts)
    if (out.length !== length) throw new IntegrityError(`file #${fileId}: evidence blocks do not cover bytes ${offset}..${offset + length}`)
    return out
  }
}
