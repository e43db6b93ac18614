import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {crc32} from 'node:zlib'
import {inflateBlock} from '../evidence/evidence-store.js'
import {sha256File} from '../evidence/hash-file.js'
import {findBrokenAuditLink, listAudit} from '../store/audit.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {listFiles, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {iterateFileItems} from '../store/records.js'
import {verifyReferencedFile, type ReferenceCheck} from './verify-references.js'

export interface VerifyProblem {
  kind: 'audit' | 'block' | 'content' | 'record' | 'bad_line' | 'original' | 'incomplete'
  where: string
  detail: string
}

export interface VerifyResult {
  ok: boolean
  audit_entries: number
  files_checked: number
  blocks_checked: number
  records_checked: number
  originals_rehashed: number
  problems: VerifyProblem[]
}

/**
 * Re-derives every integrity claim the case makes: the audit chain, each evidence block
 * against its hash, each file's decompressed stream against its content hash, each
 * record's and quarantined line's bytes against the stream, and each original file that
 * is still on disk against the hash it had at ingest.
 */
export async function verifyCase(db: CaseDb, options: {rehashOriginals?: boolean} = {}): Promise<VerifyResult> {
  const result: VerifyResult = {ok: true, audit_entries: 0, files_checked: 0, blocks_checked: 0, records_checked: 0, originals_rehashed: 0, problems: []}
  result.audit_entries = listAudit(db).length
  const broken = findBrokenAuditLink(db)
  if (broken) result.problems.push({kind: 'audit', where: `audit entry ${broken.seq}`, detail: broken.reason})

  const files = listFiles(db)
  for (const file of files) {
    result.files_checked++
    if (file.state !== 'complete') {
      result.problems.push({kind: 'incomplete', where: file.path, detail: 'ingest was interrupted; run the same ingest again'})
      continue
    }
    if (file.evidence === 'reference') {
      addReferenceCheck(result, await verifyReferencedFile(db, file, {rehashOriginals: options.rehashOriginals !== false}))
      continue
    }
    verifyFileContent(db, file, result)
    if (options.rehashOriginals !== false && existsSync(file.abs_path)) {
      try {
        const now = await sha256File(file.abs_path)
        result.originals_rehashed++
        if (now.sha256 !== file.sha256) {
          result.problems.push({kind: 'original', where: file.abs_path, detail: `file on disk no longer matches the SHA-256 recorded at ingest (${file.sha256.slice(0, 16)}…)`})
        }
      } catch {
        // Unreadable now: the case's own copy is what counts; nothing to compare.
      }
    }
  }
  result.ok = result.problems.length === 0
  return result
}

function verifyFileContent(db: CaseDb, file: FileRow, result: VerifyResult): void {
  const blocks = iterateBlocks(db, file.id)
  const items = iterateFileItems(db, file.id)

  const content = createHash('sha256')
  let window: Buffer = Buffer.alloc(0)
  let windowStart = 0
  let expectedOffset = 0
  let contentOk = true
  let blocksDone = false
  const bad = new Set<number>() // block seqs that failed: their bytes are unreliable

  const pull = (): boolean => {
    const next = blocks.next()
    if (next.done) return false
    const row = next.value
    result.blocks_checked++
    let bytes: Buffer
    try {
      bytes = inflateBlock(row, file.id)
    } catch (error) {
      bytes = Buffer.alloc(row.raw_len)
      bad.add(row.seq)
      contentOk = false
      result.problems.push({kind: 'block', where: `${file.path} block ${row.seq}`, detail: (error as Error).message})
    }
    if (!bad.has(row.seq) && (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32)) {
      bad.add(row.seq)
      contentOk = false
      result.problems.push({kind: 'block', where: `${file.path} block ${row.seq} (bytes ${row.raw_offset}..${row.raw_offset + row.raw_len})`, detail: 'content does not match its CRC-32'})
    }
    if (row.raw_offset !== expectedOffset) contentOk = false
    expectedOffset = row.raw_offset + row.raw_len
    content.update(bytes)
    window = window.length === 0 ? bytes : Buffer.concat([window, bytes])
    return true
  }

  for (const item of items) {
    const end = item.byte_offset + item.byte_len
    while (!blocksDone && windowStart + window.length < end) {
      if (!pull()) blocksDone = true
    }
    if (item.byte_offset > windowStart) {
      window = window.subarray(item.byte_offset - windowStart)
      windowStart = item.byte_offset
    }
    const bytes = window.subarray(item.byte_offset - windowStart, end - windowStart)
    if (item.kind === 'record') {
      result.records_checked++
      if (bytes.length !== item.byte_len || crc32(bytes) !== item.crc) {
        result.problems.push({kind: 'record', where: `record ${item.name} (${file.path} line ${item.line_no})`, detail: 'stored raw bytes differ from the line as ingested'})
      }
    } else if (item.raw && !bytes.subarray(0, item.raw.length).equals(item.raw)) {
      result.problems.push({kind: 'bad_line', where: `${file.path} line ${item.line_no}`, detail: 'quarantined bytes differ from the evidence store'})
    }
  }
  while (!blocksDone && pull()) {
    window = Buffer.alloc(0)
  }
  if (contentOk && file.content_sha256 && content.digest('hex') !== file.content_sha256) {
    result.problems.push({kind: 'content', where: file.path, detail: 'evidence store does not reproduce the content hash recorded at ingest'})
  }
}

function addReferenceCheck(result: VerifyResult, check: ReferenceCheck): void {
  result.blocks_checked += check.blocks
  result.records_checked += check.records
  if (check.rehashed) result.originals_rehashed++
  result.problems.push(...check.problems)
}
