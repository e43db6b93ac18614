import type {CaseDb} from '../store/open-case.js'
import {evidenceReader, type EvidenceReaderOptions} from './evidence-store.js'
import {parseLine, type FieldMap} from './parse-record.js'

// The request and response texts of a record. Ingest does not store them (they are a
// pure function of the line, which the evidence store keeps byte-exact): they are decoded
// again from the evidence with the field mapping the file was ingested with. Cases written
// by earlier versions kept them in `records`; those are returned as stored.

export interface RecordTexts {
  request_text: string | null
  response_text: string | null
}

interface Row {
  file_id: number
  byte_offset: number
  byte_len: number
  request_text: string | null
  response_text: string | null
  field_map: string | null
}

/** A loader for many lookups (prepared once; field maps cached per file). */
export function recordTextLoader(db: CaseDb, options: EvidenceReaderOptions = {}): (recordId: number) => RecordTexts {
  const get = db.prepare(
    `SELECT r.file_id, r.byte_offset, r.byte_len, r.request_text, r.response_text, f.field_map
     FROM records r JOIN files f ON f.id = r.file_id WHERE r.id = ?`,
  )
  const maps = new Map<number, FieldMap>()
  const read = evidenceReader(db, options)
  return (recordId) => {
    const row = get.get(recordId) as Row | undefined
    if (!row) return {request_text: null, response_text: null}
    if (row.request_text !== null || row.response_text !== null) return {request_text: row.request_text, response_text: row.response_text}
    let map = maps.get(row.file_id)
    if (!map) {
      map = row.field_map ? (JSON.parse(row.field_map) as FieldMap) : {}
      maps.set(row.file_id, map)
    }
    const parsed = parseLine(read(row.file_id, row.byte_offset, row.byte_len), map)
    if (parsed.kind !== 'record') return {request_text: null, response_text: null}
    return {request_text: parsed.row.request_text, response_text: parsed.row.response_text}
  }
}
