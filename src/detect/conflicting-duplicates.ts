import {evidenceReader} from '../evidence/evidence-store.js'
import {readCheckedLine} from '../evidence/record-texts.js'
import {UnconventionalSet, extractMarkers} from '../extract/extract.js'
import {decodeValue, lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import {promptSearch} from '../extract/markers.js'
import {readLineJson} from '../extract/parse-record.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {completeLogFiles} from '../store/files.js'
import {lineCompanions, type CompanionLine} from '../store/records.js'
import type {CaseDb} from '../store/open-case.js'
import {conflictingDuplicateLines, duplicateCompanions, keptRecordLeakMarkers, keptRecordTenant} from '../store/quarantine.js'
import {sqliteRegistry} from './registry.js'
import {responseSightings} from './scan-case.js'
import {quoted} from '../util/sanitize.js'

// Ingest keeps the first line of a (source, request_id) and records the later ones as
// duplicates, which the scan never reads: right for a line logged twice, but a later line with
// the same request id and a different answer (a retry logged under the same id, a log edited
// after it was ingested once) was never examined. A leak in it would pass --fail-on-leak. So
// would a retry in the record's own line (an OTLP export of both attempts' spans): the line is
// byte-identical to itself, so the items are compared, not the lines.
// Those lines are read here from the evidence, with the other lines each was read with at
// ingest (duplicate_companions), decoded as their file's lines are, and their
// answers' markers classified as the scan classifies a record's; a line that cannot be decoded
// again is one the gate could not judge. A leak the record it repeats carries too is counted
// there already (a line logged twice with another timestamp).

export interface ConflictingDuplicate {
  path: string
  line_no: number
  request_id: string
  /** the log source of the line's file: the record it repeats is the one of this source and request id */
  source: string
}

/** A duplicate line whose answer carries another session's marker its record does not: a response served, in no figure. */
export interface LeakingDuplicate extends ConflictingDuplicate {
  /** cross_tenant where any of those markers is another tenant's, else cross_session */
  class: 'cross_session' | 'cross_tenant'
  /** the tenant and session the line's answer was served to, as the line records them (the retry's own, as read again) */
  recipient_tenant: string
  recipient_session: string
  /** the line's timestamp (ms since the epoch), as read again */
  ts_ms: number
  /** the tenants whose markers the answer carries and its record does not (the registry's owners of those markers), sorted; a marker of no recorded tenant adds none */
  source_tenants: string[]
  /** the sessions whose markers the answer carries and its record does not, as the registry records them ("tenant/session" pairs, sorted); a marker of no recorded session adds none */
  source_sessions: Array<{tenant: string; session: string}>
}

export interface ConflictingDuplicates {
  /** duplicates not byte-identical to the line their record was read from, or items of that very line */
  lines: number
  /** of those, lines whose answer carries another session's marker (cross_session or cross_tenant) that the record it repeats does not carry */
  leaking: LeakingDuplicate[]
  /** of those, lines that could not be decoded again, or whose answer decodes to no text (with why) */
  unexamined: UnexaminedDuplicate[]
}

/** A duplicate line the gate could not judge: whose marker its answer carries, if any, is not known. */
export interface UnexaminedDuplicate extends ConflictingDuplicate {
  why: string
  /** the tenant of the record it repeats (the same source and request id): whose request it was logged under; null where the case holds no such record */
  tenant_id: string | null
}

export function examineConflictingDuplicates(db: CaseDb): ConflictingDuplicates {
  const rows = conflictingDuplicateLines(db)
  const out: ConflictingDuplicates = {lines: rows.length, leaking: [], unexamined: []}
  if (rows.length === 0) return out
  const files = new Map(completeLogFiles(db).map((f) => [f.id, f]))
  const read = evidenceReader(db)
  const registry = sqliteRegistry(db)
  const unconventional = new UnconventionalSet(registry.unconventional.map((m) => m.marker))
  const byMarker = new Map(registry.unconventional.map((m) => [m.marker, m]))
  const decoders = new Map<number, LineDecoder>()
  const keptLeaks = keptRecordLeakMarkers(db)
  const keptTenant = keptRecordTenant(db)
  const companionsOf = lineCompanions(db)
  const ownCompanionsOf = duplicateCompanions(db)
  // The rows come by line: a line of many records (an OTLP export of many spans, logged twice)
  // is decoded once for all its duplicates, not once per duplicate (which grew as its records squared).
  let last = null as {key: string; records: ReturnType<typeof decodeValue>['records']; judged: Set<string>} | null
  rows.forEach((d, i) => {
    const file = files.get(d.file_id)!
    const at = {path: file.path, line_no: d.line_no, request_id: d.request_id, source: file.source}
    try {
      const key = `${d.file_id}:${d.byte_offset}:${d.byte_len}`
      // Every item of the line with this request id is judged at its first duplicate: a third attempt in the same line is not a second finding.
      if (last?.key === key && last.judged.has(d.request_id)) return
      if (last?.key !== key) {
        last = null
        let decoder = decoders.get(d.file_id)
        if (!decoder) decoders.set(d.file_id, (decoder = lineDecoder(decodeParseSpec(file.parse_spec))))
        const line = readLineJson(read(d.file_id, d.byte_offset, d.byte_len))
        if (line.kind !== 'json') throw new Error(line.kind === 'bad' ? line.reason : 'a blank line')
        const here = {file: String(d.file_id), line: d.line_no}
        const index = decoder.adapter.newIndex(decoder.options)
        index?.add(line.value, here)
        if (index) {
          // The lines the line's records were read with (an OTLP span's content in log records),
          // then those each duplicate of the line was itself read with at ingest (a retry span's
          // parent on a later export line, its content in the logs file: lines none of its
          // neighbours needed). Each is offered once, in that order. A line of those the duplicate
          // was read with is checked against its CRC-32 as ingest recorded it: one that differs is
          // not the line it was read with, and the duplicate is then not examined.
          const offered = new Set<string>([`${d.file_id}:${d.byte_offset}`])
          const offer = (c: CompanionLine, checked: boolean): void => {
            const id = `${c.file_id}:${c.byte_offset}`
            if (offered.has(id)) return
            offered.add(id)
            const bytes = checked ? readCheckedLine(read, {...c, path: files.get(c.file_id)?.path}) : read(c.file_id, c.byte_offset, c.byte_len)
            const other = readLineJson(bytes)
            if (other.kind === 'json') index.add(other.value, {file: String(c.file_id), line: c.line_no})
          }
          for (const c of companionsOf(d.file_id, d.byte_offset)) offer(c, false)
          for (let j = i; j < rows.length && rows[j]!.file_id === d.file_id && rows[j]!.byte_offset === d.byte_offset; j++) {
            for (const c of ownCompanionsOf(rows[j]!.id)) offer(c, true)
          }
        }
        last = {key, records: decodeValue(line.value, decoder, index, here).records, judged: new Set()}
      }
      last.judged.add(d.request_id)
      const records = last.records.filter((r) => r.row.request_id === d.request_id)
      if (records.length === 0) throw new Error(`no record with request_id ${quoted(d.request_id.slice(0, 80))} in the line as read now`)
      // An answer that decodes to no text is not judged clean: a kept record's such answer keeps
      // every gate from passing (its file's no-text count), and so does a duplicate's (a retry whose
      // body the format's rules do not read may hold another tenant's text).
      if (records.some(({row}) => row.is_error === 0 && !row.response_text)) throw new Error('its answer decoded to no text')
      const counted = keptLeaks(d.file_id, d.request_id)
      const classes = new Set<string>()
      const sources = new Set<string>()
      const sessions = new Map<string, {tenant: string; session: string}>()
      let served = null as {tenant: string; session: string; ts_ms: number} | null
      for (const {row} of records) {
        const {tokens, unconventional: hits} = extractMarkers(row.request_text, row.response_text, unconventional)
        if (tokens.length === 0 && hits.length === 0) continue
        const recipient = {tenant: row.tenant_id, session: row.session_id, promptHas: promptSearch(() => row.request_text, (text) => unconventional.hits(text))}
        for (const s of responseSightings(tokens, hits, registry, byMarker, recipient)) {
          if ((s.class === 'cross_session' || s.class === 'cross_tenant') && !counted.has(s.marker)) {
            classes.add(s.class)
            if (s.sourceTenant !== null) sources.add(s.sourceTenant)
            if (s.sourceTenant !== null && s.sourceSession !== null) sessions.set(JSON.stringify([s.sourceTenant, s.sourceSession]), {tenant: s.sourceTenant, session: s.sourceSession})
            // The item that leaked is the attempt someone received: its recipient and time are the line's (the first such item).
            served ??= {tenant: row.tenant_id, session: row.session_id, ts_ms: row.ts_ms}
          }
        }
      }
      if (classes.size > 0 && served) {
        out.leaking.push({
          ...at, class: classes.has('cross_tenant') ? 'cross_tenant' : 'cross_session',
          recipient_tenant: served.tenant, recipient_session: served.session, ts_ms: served.ts_ms,
          source_tenants: [...sources].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
          source_sessions: [...sessions].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, v]) => v),
        })
      }
    } catch (error) {
      out.unexamined.push({...at, why: (error as Error).message, tenant_id: keptTenant(d.file_id, d.request_id)})
    }
  })
  return out
}
