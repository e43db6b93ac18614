import {crc32} from 'node:zlib'
import {InputError, IntegrityError} from '../errors.js'
import {decodeValue, lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import {DUPLICATE_KEY, readLineJson, UNREAD_REQUEST, UNREAD_SHAPES, type RecordRow} from '../extract/parse-record.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import type {CaseDb} from '../store/open-case.js'
import {recordLocator, type RecordLocation} from '../store/records.js'
import {evidenceReader, type EvidenceReaderOptions} from './evidence-store.js'

// The request and response texts of a record. Ingest does not store them (they are a pure
// function of the lines, which the evidence keeps byte-exact): they are decoded again from the
// evidence with the parse spec (format, field mapping, options) the file was ingested with. A
// record read from more than its own line (a Batch output line joined with its input line, an
// OTLP span whose content is in log records) is decoded with exactly those other lines
// (record_companions) offered to the format's companion index first, in the order ingest
// offered them; then the record with the same item of the line is the one.

export interface RecordTexts {
  request_text: string | null
  response_text: string | null
  /** Where the response body holds shapes this release does not read (parse-record.ts unreadShapesNote): the record's note saying so. */
  unread_note?: string
  /** Where the request body holds members this release does not read (parse-record.ts unreadRequestNote): the record's note saying so. */
  request_unread_note?: string
  /** The answer holds no text by design (parse-record.ts RecordRow.no_text_by_design: an embedding's vectors). */
  no_text_by_design?: boolean
}

/** A record's texts, and its note where its body holds shapes not read. */
function textsOf(r: {row: RecordRow; notes: readonly string[]}): RecordTexts {
  const note = r.notes.find((n) => n.startsWith(UNREAD_SHAPES))
  const out: RecordTexts = {request_text: r.row.request_text, response_text: r.row.response_text}
  if (note !== undefined) out.unread_note = note
  const requestNote = r.notes.find((n) => n.startsWith(UNREAD_REQUEST))
  if (requestNote !== undefined) out.request_unread_note = requestNote
  if (r.row.no_text_by_design === true) out.no_text_by_design = true
  return out
}

/**
 * A record's texts could not be decoded again from its evidence (a parse spec this version
 * cannot build, bytes that no longer read as the line ingest read). The texts are unknown, not
 * empty: a scan or a draft that went on with nothing would call the record clean.
 */
function undecodable(row: {file_id: number; line_no: number} | null, recordId: number, why: string): InputError {
  const where = row ? `line ${row.line_no} of log file #${row.file_id}` : `record #${recordId}`
  return new InputError(`the texts of the record at ${where} could not be decoded again from the evidence (${why}); run \`crosstalk verify\``, 'E_EVIDENCE')
}

/** A loader for many lookups (prepared once; decoders cached per file). */
export function recordTextLoader(db: CaseDb, options: EvidenceReaderOptions = {}): (recordId: number) => RecordTexts {
  return textLoader(recordLocator(db), evidenceReader(db, options))
}

// A line that holds many records (an OTLP export: every span of a batch) is decoded whole for
// any one of them; decoded again for each, a line of N records cost N whole-line decodes (1000
// spans on one line took half a minute to scan). The texts of every record of such a line are
// kept from its one decode, for a few lines and up to a bound in characters (the loader's users
// read a file's records in order, or provenance's by time, so the lines asked for are few at a
// time). A line of one record is not kept: nothing would read it again.
const LINE_CACHE_LINES = 4
const LINE_CACHE_CHARS = 16 << 20

/** The lines a record was decoded from, as a key: the same lines decode to the same records. */
function linesKey(row: RecordLocation): string {
  let key = `${row.file_id}:${row.byte_offset}:${row.byte_len}:${row.raw_crc32}`
  for (const c of row.companions) key += `|${c.file_id}:${c.byte_offset}:${c.byte_len}:${c.raw_crc32}`
  return key
}

/** The loader over a record locator and an evidence reader (a test counts the reads through its own). */
export function textLoader(
  locate: (recordId: number) => RecordLocation | undefined,
  read: (fileId: number, offset: number, length: number) => Buffer,
): (recordId: number) => RecordTexts {
  const decoders = new Map<number, LineDecoder>()
  const lines = new Map<string, {texts: Map<number, RecordTexts>; chars: number}>()
  let cachedChars = 0
  const keep = (key: string, texts: Map<number, RecordTexts>): void => {
    let chars = 0
    for (const t of texts.values()) chars += (t.request_text?.length ?? 0) + (t.response_text?.length ?? 0)
    lines.set(key, {texts, chars})
    cachedChars += chars
    while (lines.size > 1 && (lines.size > LINE_CACHE_LINES || cachedChars > LINE_CACHE_CHARS)) {
      const [oldest, old] = lines.entries().next().value!
      cachedChars -= old.chars
      lines.delete(oldest)
    }
  }
  return (recordId) => {
    const row = locate(recordId)
    if (!row) throw undecodable(null, recordId, 'no such record')
    const key = linesKey(row)
    const cached = lines.get(key)?.texts.get(row.item)
    if (cached) return cached
    let decoder = decoders.get(row.file_id)
    if (decoder === undefined) {
      try {
        decoder = lineDecoder(decodeParseSpec(row.parse_spec))
      } catch (error) {
        throw undecodable(row, recordId, `its parse spec: ${(error as Error).message}`)
      }
      decoders.set(row.file_id, decoder)
    }
    const records = decodeLineItems(row, decoder, read)
    const record = records.get(row.item)
    if (!record) throw undecodable(row, recordId, `no item ${row.item} in the line as read now`)
    if (records.size > 1) {
      const texts = new Map<number, RecordTexts>()
      for (const [item, r] of records) texts.set(item, textsOf(r))
      keep(key, texts)
    }
    return textsOf(record)
  }
}

/**
 * Why the current rules refuse the line a record was read from, or null where they read it as
 * they did: a record made by an earlier version (extract scheme x3 and before) may stand for a
 * line given a key twice, which it read with the last value. Only the line's own reading is
 * judged (its JSON and each item's keys), not its joins: a companion missing now is not a refusal
 * of the line. A line's answer is kept for its other records.
 */
export function lineRefusalChecker(db: CaseDb, options: EvidenceReaderOptions = {}): (recordId: number) => {line_no: number; reason: string} | null {
  const locate = recordLocator(db)
  const read = evidenceReader(db, options)
  const decoders = new Map<number, LineDecoder>()
  let lastKey = ''
  let lastLine: {bad: string | null; items: Map<number, string>} = {bad: null, items: new Map()}
  return (recordId) => {
    const row = locate(recordId)
    if (!row) throw undecodable(null, recordId, 'no such record')
    const key = `${row.file_id}:${row.byte_offset}:${row.byte_len}:${row.raw_crc32}`
    if (key !== lastKey) {
      let decoder = decoders.get(row.file_id)
      if (decoder === undefined) {
        decoder = lineDecoder(decodeParseSpec(row.parse_spec))
        decoders.set(row.file_id, decoder)
      }
      const json = readLineJson(readCheckedLine(read, row))
      const items = new Map<number, string>()
      let bad = json.kind === 'bad' ? json.reason : json.kind === 'blank' ? 'a blank line' : null
      if (json.kind === 'json') {
        const index = decoder.adapter.newIndex(decoder.options)
        for (const p of decodeValue(json.value, decoder, index, {file: String(row.file_id), line: row.line_no}).problems) {
          if (!p.reason.startsWith(DUPLICATE_KEY)) continue
          // A problem of no one item (a JSON text of the line, a native line's body): the whole line.
          if (p.item === null) bad ??= p.reason
          else if (!items.has(p.item)) items.set(p.item, p.reason)
        }
      }
      lastKey = key
      lastLine = {bad, items}
    }
    const reason = lastLine.bad ?? lastLine.items.get(row.item) ?? null
    return reason === null ? null : {line_no: row.line_no, reason}
  }
}

export function decodeRecordTexts(row: RecordLocation, decoder: LineDecoder, read: (fileId: number, offset: number, length: number) => Buffer): RecordTexts {
  const record = decodeRecordAt(row, decoder, read)
  return {request_text: record.request_text, response_text: record.response_text}
}

/** Where a line is, as the case recorded it at ingest. */
export interface LineAt {
  file_id: number
  /** the file's path as given at ingest, when known (for the message) */
  path?: string
  line_no: number
  byte_offset: number
  byte_len: number
  raw_crc32: number
}

/**
 * A line's bytes, checked against the CRC-32 recorded at ingest on every read: an original kept
 * by reference that was edited since (or a damaged block) is refused, never decoded as evidence.
 */
export function readCheckedLine(read: (fileId: number, offset: number, length: number) => Buffer, at: LineAt): Buffer {
  const bytes = read(at.file_id, at.byte_offset, at.byte_len)
  if (bytes.length !== at.byte_len || crc32(bytes) !== at.raw_crc32) {
    throw new IntegrityError(
      `line ${at.line_no} of ${at.path ?? `log file #${at.file_id}`} (bytes ${at.byte_offset}..${at.byte_offset + at.byte_len}) is not the line ingested: its CRC-32 differs from the one recorded then; run \`crosstalk verify\``,
      'E_EVIDENCE',
    )
  }
  return bytes
}

/** The record a location names, decoded again from its line and the lines it was read with (`ingest findings` stores its row from it). */
export function decodeRecordAt(row: RecordLocation, decoder: LineDecoder, read: (fileId: number, offset: number, length: number) => Buffer): RecordRow {
  const record = decodeLineRecords(row, decoder, read).get(row.item)
  if (!record) throw undecodable(row, -1, `no item ${row.item} in the line as read now`)
  return record
}

/** Every record of a location's line (by item), decoded again from it and the lines it was read with. */
export function decodeLineRecords(row: RecordLocation, decoder: LineDecoder, read: (fileId: number, offset: number, length: number) => Buffer): Map<number, RecordRow> {
  return new Map([...decodeLineItems(row, decoder, read)].map(([item, r]) => [item, r.row]))
}

/** decodeLineRecords, with each record's notes. */
function decodeLineItems(row: RecordLocation, decoder: LineDecoder, read: (fileId: number, offset: number, length: number) => Buffer): Map<number, {row: RecordRow; notes: string[]}> {
  const own = readLineJson(readCheckedLine(read, row))
  if (own.kind !== 'json') throw undecodable(row, -1, own.kind === 'bad' ? own.reason : 'a blank line')
  const here = {file: String(row.file_id), line: row.line_no}
  const index = decoder.adapter.newIndex(decoder.options)
  if (index) {
    index.add(own.value, here)
    for (const c of row.companions) {
      const line = readLineJson(readCheckedLine(read, c))
      if (line.kind === 'json') index.add(line.value, {file: String(c.file_id), line: c.line_no})
    }
  }
  const records = new Map<number, {row: RecordRow; notes: string[]}>()
  // The first record of an item, as find() took it.
  for (const r of decodeValue(own.value, decoder, index, here).records) if (!records.has(r.item)) records.set(r.item, {row: r.row, notes: r.notes})
  return records
}
