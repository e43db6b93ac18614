import {evidenceReader} from '../evidence/evidence-store.js'
import {readCheckedLine} from '../evidence/record-texts.js'
import type {CompanionIndex} from '../extract/formats/index.js'
import type {OtelIndex} from '../extract/formats/otel.js'
import {readLineJson} from '../extract/parse-record.js'
import {priorSharerLookup, type CompanionLine} from '../store/records.js'
import type {CaseDb} from '../store/open-case.js'

// A gen_ai.response.id is not unique per request: a response cache serves one completion, with
// its id, to several tenants. Within one set of files the otel adapter tells such calls apart
// (the id gets the call's tenant and session); a call that an earlier ingest stored was not in
// the set, and a later call for another tenant under its id was taken as a retry of it (a
// duplicate, its answer in no figure: a cross-tenant leak hidden as a retry). So the lines of
// the records this source already holds under each id the new files give are offered to the
// index too (with the lines each was read with), and a record stored under the id alone is noted
// with its tenant and session: a call for another tenant or session then gets its own record
// (read with that earlier line, which verify reads again), and a call for the same ones stays its
// retry.

function isOtelIndex(index: CompanionIndex | null): index is OtelIndex {
  return index !== null && typeof (index as Partial<OtelIndex>).responseIds === 'function' && typeof (index as Partial<OtelIndex>).noteStoredRecord === 'function'
}

/** Offers `index` the stored lines of this source's earlier records under the response ids its lines give; returns how many records were offered. */
export function offerPriorSharers(db: CaseDb, source: string, index: CompanionIndex | null): number {
  if (!isOtelIndex(index)) return 0
  const lookup = priorSharerLookup(db, source)
  if (lookup === null) return 0
  const read = evidenceReader(db)
  const offered = new Set<string>()
  const offer = (c: CompanionLine): void => {
    const key = `${c.file_id}:${c.byte_offset}`
    if (offered.has(key)) return
    offered.add(key)
    // Checked against the CRC-32 ingest recorded: a line that differs is not the one the record was read from.
    const line = readLineJson(readCheckedLine(read, c))
    if (line.kind === 'json') index.add(line.value, {file: String(c.file_id), line: c.line_no, offset: c.byte_offset, length: c.byte_len, crc: c.raw_crc32})
  }
  let records = 0
  // The ids are taken before any line is added (an earlier line adds its own ids).
  for (const id of index.responseIds()) {
    for (const prior of lookup(id)) {
      records++
      if (prior.request_id === id) index.noteStoredRecord(id, {tenant: prior.tenant_id, session: prior.session_id})
      offer(prior.line)
      for (const c of prior.companions) offer(c)
    }
  }
  return records
}
