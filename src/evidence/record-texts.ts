import {decodeParseSpec} from '../extract/parse-spec.js'
import {parseLine, type FieldMap, type LineResult} from '../extract/parse-record.js'
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

/**
 * The decoder of one file's lines, from the parse spec kept with the file: exactly what
 * ingest did to each line (verify re-derives every record's fields with it).
 */
export function lineParserFor(parseSpec: string): (line: Buffer) => LineResult {
  const map: FieldMap = decodeParseSpec(parseSpec).map ?? {}
  return (line) => parseLine(line, map)
}

/** A loader for many lookups (prepared once; parse specs cached per file). */
export function recordTextLoader(db: CaseDb, options: EvidenceReaderOptions = {}): (recordId: number) => RecordTexts {
  const locate = recordLocator(db)
  const parsers = new Map<number, (line: Buffer) => LineResult>()
  const read = evidenceReader(db, options)
  return (recordId) => {
    const row = locate(recordId)
    if (!row) return {request_text: null, response_text: null}
    let parse = parsers.get(row.file_id)
    if (!parse) {
      parse = lineParserFor(row.parse_spec)
      parsers.set(row.file_id, parse)
    }
    const parsed = parse(read(row.file_id, row.byte_offset, row.byte_len))
    if (parsed.kind !== 'record') return {request_text: null, response_text: null}
    return {request_text: parsed.row.request_text, response_text: parsed.row.response_text}
  }
}
