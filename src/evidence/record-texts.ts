import {decodeParseSpec} from '../extract/parse-spec.js'
import {parseLine, type FieldMap} from '../extract/parse-record.js'
import type {CaseDb} from '../store/open-case.js'
import {recordLocator} from '../store/records.js'
import {evidenceReader, type EvidenceReaderOptions} from './evidence-store.js'

// The request and response texts of a record. Ingest does not store them (they are a pure
// function of the line, which the evidence keeps byte-exact): they are decoded again from
// the evidence with the parse spec (field mapping) the file was ingested with.

export interface RecordTexts {
  request_text: string | null
  response_text: string | null
}

/** A loader for many lookups (prepared once; parse specs cached per file). */
export function recordTextLoader(db: CaseDb, options: EvidenceReaderOptions = {}): (recordId: number) => RecordTexts {
  const locate = recordLocator(db)
  const maps = new Map<number, FieldMap>()
  const read = evidenceReader(db, options)
  return (recordId) => {
    const row = locate(recordId)
    if (!row) return {request_text: null, response_text: null}
    let map = maps.get(row.file_id)
    if (!map) {
      map = decodeParseSpec(row.parse_spec).map ?? {}
      maps.set(row.file_id, map)
    }
    const parsed = parseLine(read(row.file_id, row.byte_offset, row.byte_len), map)
    if (parsed.kind !== 'record') return {request_text: null, response_text: null}
    return {request_text: parsed.row.request_text, response_text: parsed.row.response_text}
  }
}
