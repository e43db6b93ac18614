import {crc32} from 'node:zlib'
import {inflateBlock} from '../evidence/evidence-store.js'
import {sha256File} from '../evidence/hash-file.js'
import {readShardRanges} from '../scale/shard-reader.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import type {FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {iterateFileItems} from '../store/records.js'
import {ident, type Problems} from './verify-problems.js'

// `verify` for a file whose evidence is by reference (ingest findings): the case holds only
// the lines its findings rest on (each record's line, the lines it was read with, the
// quarantined lines), each as a block at its offset. Each block is checked against its
// CRC-32, each record, companion line and quarantined line against its block; then the
// original shard, where it can still be read, is hashed again and every stored line is read
// from it again and compared byte for byte.

export interface ReferenceCheck {
  blocks: number
  records: number
  rehashed: boolean
  /** Why the original shard was not re-hashed (no longer on disk, cannot be read); null where it was, or was not asked. */
  unreachable: string | null
}

export async function verifyReferencedFile(db: CaseDb, file: FileRow, problems: Problems, options: {rehashOriginals: boolean}): Promise<ReferenceCheck> {
  const out: ReferenceCheck = {blocks: 0, records: 0, rehashed: false, unreachable: null}
  const stored = new Map<number, Buffer>()
  for (const row of iterateBlocks(db, file.id)) {
    out.blocks++
    let bytes: Buffer
    try {
      bytes = inflateBlock(row, file.id)
    } catch (error) {
      problems.add('block', `${file.path} block ${row.seq}`, (error as Error).message)
      continue
    }
    if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) {
      problems.add('block', `${file.path} block ${row.seq} (bytes ${row.raw_offset}..${row.raw_offset + row.raw_len})`, 'content does not match its CRC-32')
      continue
    }
    stored.set(row.raw_offset, bytes)
  }
  const items = [...iterateFileItems(db, file.id)]
  for (const item of items) {
    const bytes = stored.get(item.byte_offset)
    if (item.kind === 'record' || item.kind === 'companion') {
      if (item.kind === 'record') out.records++
      if (!bytes || bytes.length !== item.byte_len || crc32(bytes) !== item.crc) {
        const where = item.kind === 'record' ? `record ${ident(item.name ?? '')} (${file.path} line ${item.line_no})` : `record ${ident(item.name ?? '')} (read with ${file.path} line ${item.line_no})`
        problems.add('record', where, 'stored bytes differ from the line the findings were made from', file.path)
      }
    } else if (item.raw && item.raw.length > 0 && (!bytes || !bytes.subarray(0, item.raw.length).equals(item.raw))) {
      problems.add('bad_line', `${file.path} line ${item.line_no}`, 'quarantined bytes differ from the evidence store', file.path)
    }
  }
  if (!options.rehashOriginals) return out
  // The original as the rest of the case treats one: the bytes the job read (a log that has
  // grown since, appended to, still verifies), then every stored line read from it again.
  let now: {sha256: string; size: number}
  try {
    now = await sha256File(file.abs_path, {limit: file.size})
  } catch (error) {
    // Unreachable now (another machine's mount, a moved bucket): the case's copies of the lines
    // stand, nothing to compare; said by the caller, never passed over.
    const code = (error as NodeJS.ErrnoException).code
    out.unreachable = code === 'ENOENT' ? 'no longer on disk' : `cannot be read: ${code ?? (error as Error).message}`
    return out
  }
  out.rehashed = true
  if (now.size < file.size || now.sha256 !== file.sha256) {
    const why = now.size < file.size ? `it is shorter (${now.size} bytes) than the ${file.size} bytes the job read` : `(${file.sha256.slice(0, 16)}…)`
    problems.add('original', file.uri ?? file.abs_path, `the shard no longer matches the SHA-256 recorded when the findings were brought in ${why}`)
    return out
  }
  const original = await readShardRanges(file.abs_path, items.map((i) => ({offset: i.byte_offset, length: i.byte_len})))
  for (const item of items) {
    const again = original.lines.get(item.byte_offset)
    const bytes = stored.get(item.byte_offset)
    if (bytes && (!again || !again.equals(bytes))) {
      problems.add('original', `${file.uri ?? file.abs_path} line ${item.line_no}`, 'the line read from the shard again differs from the one the case stored', file.path)
    }
  }
  return out
}
