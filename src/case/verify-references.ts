import {crc32} from 'node:zlib'
import {inflateBlock} from '../evidence/evidence-store.js'
import {readShardRanges} from '../scale/shard-reader.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import type {FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {iterateFileItems} from '../store/records.js'

// `verify` for a file whose evidence is by reference (ingest findings): the case holds only
// the lines its findings rest on, each as a block at its offset. Each block is checked against
// its CRC-32, each record and quarantined line against its block; then the original shard,
// where it can still be read, is hashed again and every stored line is read from it again
// and compared byte for byte.

/** A problem as verify reports it (VerifyProblem's shape, kept apart so that verify.ts alone imports this file). */
export interface ReferenceProblem {
  kind: 'block' | 'record' | 'bad_line' | 'original'
  where: string
  detail: string
}

export interface ReferenceCheck {
  blocks: number
  records: number
  rehashed: boolean
  problems: ReferenceProblem[]
}

export async function verifyReferencedFile(db: CaseDb, file: FileRow, options: {rehashOriginals: boolean}): Promise<ReferenceCheck> {
  const out: ReferenceCheck = {blocks: 0, records: 0, rehashed: false, problems: []}
  const stored = new Map<number, Buffer>()
  for (const row of iterateBlocks(db, file.id)) {
    out.blocks++
    let bytes: Buffer
    try {
      bytes = inflateBlock(row, file.id)
    } catch (error) {
      out.problems.push({kind: 'block', where: `${file.path} block ${row.seq}`, detail: (error as Error).message})
      continue
    }
    if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) {
      out.problems.push({kind: 'block', where: `${file.path} block ${row.seq} (bytes ${row.raw_offset}..${row.raw_offset + row.raw_len})`, detail: 'content does not match its CRC-32'})
      continue
    }
    stored.set(row.raw_offset, bytes)
  }
  const items = [...iterateFileItems(db, file.id)]
  for (const item of items) {
    const bytes = stored.get(item.byte_offset)
    if (item.kind === 'record') {
      out.records++
      if (!bytes || bytes.length !== item.byte_len || crc32(bytes) !== item.crc) {
        out.problems.push({kind: 'record', where: `record ${item.name} (${file.path} line ${item.line_no})`, detail: 'stored bytes differ from the line the findings were made from'})
      }
    } else if (item.raw && (!bytes || !bytes.subarray(0, item.raw.length).equals(item.raw))) {
      out.problems.push({kind: 'bad_line', where: `${file.path} line ${item.line_no}`, detail: 'quarantined bytes differ from the evidence store'})
    }
  }
  if (!options.rehashOriginals) return out
  let original
  try {
    original = await readShardRanges(file.abs_path, items.map((i) => ({offset: i.byte_offset, length: i.byte_len})), {hash: true})
  } catch {
    // Unreachable now (another machine's mount, a moved bucket): the case's copies of the lines stand; nothing to compare.
    return out
  }
  out.rehashed = true
  if (original.sha256 !== file.sha256) {
    out.problems.push({kind: 'original', where: file.uri ?? file.abs_path, detail: `the shard no longer matches the SHA-256 recorded when the findings were brought in (${file.sha256.slice(0, 16)}…)`})
    return out
  }
  for (const item of items) {
    const again = original.lines.get(item.byte_offset)
    const bytes = stored.get(item.byte_offset)
    if (bytes && (!again || !again.equals(bytes))) {
      out.problems.push({kind: 'original', where: `${file.uri ?? file.abs_path} line ${item.line_no}`, detail: 'the line read from the shard again differs from the one the case stored'})
    }
  }
  return out
}
