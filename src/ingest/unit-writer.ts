import type {Extracted} from '../extract/extract.js'
import {extractBatches, extractInserters, type ExtractBatches} from '../store/extracts.js'
import {countMissingFields, fileCountsUpdater, noMissingFields, type MissingFieldCounts} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {badLineInserter, duplicateCompanionInserter, duplicateInserter} from '../store/quarantine.js'
import {companionInserter, recordBatch, recordTime, type RecordFields} from '../store/records.js'
import {IS_ERROR, NO_REQUEST_TEXT, NO_RESPONSE, NO_RESPONSE_TEXT, type RecordItem, type UnitResult} from './process-unit.js'
import type {RequestIdSet} from './request-id-set.js'

// Writes the parsed units of one file into the case, in order: records (a request id seen
// before in the same source is a duplicate, not a record) and duplicates, each with the other
// lines it was read from, quarantined lines and items, and each record's detection extract. The
// caller wraps calls in transactions.

export interface FileSummaryCounts {
  lines: number
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
  first_ms: number
  last_ms: number
  bom: boolean
  /** records whose request decoded to no text */
  no_request_text: number
  /** records, errors aside, whose response decoded to no text */
  no_response_text: number
  /** of those, records that recorded no response at all */
  no_response: number
  error_records: number
  ignored_items: number
  /** ignored items that carry model texts in a convention not read (convention -> items) */
  unread_items: Record<string, number>
  /** what records lacked (note -> records) */
  notes: Record<string, number>
  /** the first line of a record whose body holds a shape not read (process-unit.ts markUnreadLine); absent where none */
  unread_first_line?: number
  /** bad items quarantined for lacking a required field (field -> items): said as a file note with the flag that fixes it */
  missing_required?: Record<string, number>
  /** duplicates whose time differs from the record kept (the first read): how many, and the first of them; absent where none */
  duplicates_other_time?: {count: number; line: number; ts: string; kept_ts: string}
}

/** A bad item's reason for a required field the format found nowhere (common.ts finishRecord). */
const MISSING_REQUIRED = /^missing (ts|request_id|tenant_id|session_id)\b/

export function emptyCounts(): FileSummaryCounts {
  return {
    lines: 0, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, first_ms: Infinity, last_ms: -Infinity, bom: false,
    no_request_text: 0, no_response_text: 0, no_response: 0, error_records: 0, ignored_items: 0, unread_items: {}, notes: {},
  }
}

/** A unit's own counts (lines, blanks, ignored items, the byte-order mark, notes): before its items. */
export function tallyUnit(c: FileSummaryCounts, r: Pick<UnitResult, 'lines' | 'blank' | 'ignored' | 'unread' | 'bom' | 'notes' | 'unreadFirstLine'>): void {
  c.lines += r.lines
  c.blank_lines += r.blank
  c.ignored_items += r.ignored
  for (const [convention, n] of Object.entries(r.unread)) c.unread_items[convention] = (c.unread_items[convention] ?? 0) + n
  if (r.bom) c.bom = true
  for (const [note, n] of Object.entries(r.notes)) c.notes[note] = (c.notes[note] ?? 0) + n
  if (r.unreadFirstLine !== undefined) c.unread_first_line = Math.min(c.unread_first_line ?? Infinity, r.unreadFirstLine)
}

/** A record kept (not a duplicate). */
export function tallyRecord(c: FileSummaryCounts, item: RecordItem): void {
  c.records++
  if (item.noRequestText) c.no_request_text++
  if (item.noResponseText) c.no_response_text++
  if (item.noResponse) c.no_response++
  if (item.row.is_error === 1) c.error_records++
  if (item.row.ts_ms < c.first_ms) c.first_ms = item.row.ts_ms
  if (item.row.ts_ms > c.last_ms) c.last_ms = item.row.ts_ms
}

/** tallyRecord for a record given as its flags (recordFlags) and time: the quick verdict's pass, which counts as ingest does. */
export function tallyFlags(c: FileSummaryCounts, flags: number, tsMs: number): void {
  c.records++
  if (flags & NO_REQUEST_TEXT) c.no_request_text++
  if (flags & NO_RESPONSE_TEXT) c.no_response_text++
  if (flags & NO_RESPONSE) c.no_response++
  if (flags & IS_ERROR) c.error_records++
  if (tsMs < c.first_ms) c.first_ms = tsMs
  if (tsMs > c.last_ms) c.last_ms = tsMs
}

export class UnitWriter {
  readonly counts: FileSummaryCounts = emptyCounts()
  /** Of the records written, how many do not say each field (stored with the file when it completes). */
  readonly missing: MissingFieldCounts = noMissingFields()
  private readonly records
  private readonly pending: (id: number) => [string, string, number] | undefined
  private readonly insertCompanion
  private readonly insertBad
  private readonly insertDuplicate
  private readonly insertDuplicateCompanion
  private readonly extracts
  private readonly batches: ExtractBatches
  private readonly updateCounts
  private readonly keptTime

  constructor(
    db: CaseDb,
    private readonly fileId: number,
    private readonly source: string,
    private readonly seen: RequestIdSet,
  ) {
    this.records = recordBatch(db)
    this.pending = (id) => this.records.pending(id)
    this.insertCompanion = companionInserter(db)
    this.insertBad = badLineInserter(db)
    this.insertDuplicate = duplicateInserter(db)
    this.insertDuplicateCompanion = duplicateCompanionInserter(db)
    this.extracts = extractInserters(db)
    this.batches = extractBatches(db)
    this.updateCounts = fileCountsUpdater(db)
    this.keptTime = recordTime(db)
  }

  write(r: UnitResult): void {
    try {
      this.records.begin()
      this.writeUnit(r)
      // The unit's rows are all written before it returns (its fingerprints' views among them).
      this.records.flush()
      this.batches.flush()
    } catch (error) {
      this.records.discard()
      this.batches.discard()
      throw error
    }
  }

  private writeUnit(r: UnitResult): void {
    const c = this.counts
    tallyUnit(c, r)
    for (const item of r.items) {
      if (item.k === 'b') {
        c.bad_lines++
        const field = MISSING_REQUIRED.exec(item.reason)?.[1]
        if (field !== undefined) (c.missing_required ??= {})[field] = (c.missing_required[field] ?? 0) + 1
        this.insertBad({
          fileId: this.fileId, lineNo: item.lineNo, item: item.item, offset: item.offset, length: item.length, reason: item.reason,
          raw: Buffer.from(item.raw.buffer, item.raw.byteOffset, item.raw.byteLength), truncated: item.truncated,
        })
        continue
      }
      const w = item.row
      const prior = this.seen.find(this.source, w.request_id, this.pending)
      if (prior) {
        c.duplicates++
        // Other bytes under the same request id: the first read is kept, so a time that differs
        // (the same call logged an hour apart: a zone read wrong in one log) moves first_seen
        // with the order the files are given. Said, never decided silently.
        if (prior.crc !== item.crc) {
          const kept = this.records.pendingTime(prior.id) ?? this.keptTime(prior.id)
          if (kept !== undefined && kept[1] !== w.ts_ms) {
            const o = c.duplicates_other_time
            if (o === undefined) c.duplicates_other_time = {count: 1, line: item.lineNo, ts: w.ts, kept_ts: kept[0]}
            else o.count++
          }
        }
        const dup = this.insertDuplicate(this.fileId, item.lineNo, item.offset, item.length, w.request_id, prior.crc === item.crc)
        // The lines it was read with, as a record's: the gate reads it again with them (an OTLP
        // retry span's parent and content may be on lines none of its neighbours was read with).
        item.companions.forEach((p, seq) => {
          this.insertDuplicateCompanion(dup, seq, {file_id: Number(p.file), line_no: p.line, byte_offset: p.offset!, byte_len: p.length!, raw_crc32: p.crc!})
        })
        continue
      }
      const id = this.records.add({fileId: this.fileId, lineNo: item.lineNo, item: item.item, offset: item.offset, length: item.length, crc: item.crc, source: this.source}, w)
      this.seen.add(this.source, w.request_id, id)
      item.companions.forEach((p, seq) => {
        this.insertCompanion(id, seq, {file_id: Number(p.file), line_no: p.line, byte_offset: p.offset!, byte_len: p.length!, raw_crc32: p.crc!})
      })
      tallyRecord(c, item)
      countMissingFields(this.missing, w)
      this.writeExtract(id, item, r.fp, w)
    }
  }

  /** A line over --max-line-bytes, found by the reader (its bytes are in the evidence, not parsed). */
  writeOversize(o: {lineNo: number; offset: number; length: number; max: number}): void {
    this.counts.lines++
    this.counts.bad_lines++
    this.insertBad({fileId: this.fileId, lineNo: o.lineNo, item: null, offset: o.offset, length: o.length, reason: `line is ${o.length} bytes, over --max-line-bytes ${o.max}`, raw: Buffer.alloc(0), truncated: true})
  }

  /** The last line of a damaged gzip stream, cut where decompression stopped. */
  writeCut(o: {lineNo: number; offset: number; length: number; raw: Buffer; reason: string}): void {
    this.counts.lines++
    this.counts.bad_lines++
    this.insertBad({fileId: this.fileId, lineNo: o.lineNo, item: null, offset: o.offset, length: o.length, reason: o.reason, raw: o.raw, truncated: o.raw.length < o.length})
  }

  /** Stores the running counts on the file row (so an interrupted ingest shows how far it got). */
  saveCounts(): void {
    const c = this.counts
    this.updateCounts(this.fileId, {lines: c.lines, records: c.records, duplicates: c.duplicates, bad_lines: c.bad_lines, blank_lines: c.blank_lines})
  }

  private writeExtract(id: number, x: Extracted, fp: Uint32Array, w: RecordFields): void {
    for (const t of x.tokens) this.extracts.token(id, t.position, t.token)
    for (const t of x.unconventional) this.extracts.hit(id, t.position, t.token)
    for (const [part, kind, hash] of x.pii) this.batches.pii(id, part === 1, kind, hash)
    const at = fp.byteOffset + x.fpStart * 4
    // Views: SQLite copies the bytes when it binds them.
    this.batches.fingerprints(
      id, x.promptWords, x.responseWords,
      Buffer.from(fp.buffer, at, x.fpPromptLen * 4), Buffer.from(fp.buffer, at + x.fpPromptLen * 4, x.fpResponseLen * 4),
      w.ts_ms, w.tenant_id, w.session_id, w.decode_node,
    )
  }
}
