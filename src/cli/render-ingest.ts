import {REFERENCE_COPIED} from '../ingest/ingest-file.js'
import type {IngestLogsResult} from '../ingest/ingest-logs.js'
import {safeLine} from '../util/sanitize.js'
import {count} from './plural.js'

/** The per-file lines and the total of an ingest, for stdout. */
export function renderIngest(result: IngestLogsResult): string {
  const out: string[] = []
  for (const f of result.per_file) {
    let what: string
    if (f.status === 'already_present' && f.notes.includes(REFERENCE_COPIED)) what = `already in the case (read as ${f.log_format}), kept by reference until now: its bytes are now copied into the case (SHA-256 checked)`
    else if (f.status === 'already_present') what = `already in the case (read as ${f.log_format}), nothing added${f.unread ? '; NOT READ WHOLE when ingested (see warning)' : ''}`
    else if (f.status === 'refused') what = `NOT INGESTED: ${f.refused!.reason}`
    else {
      what = `${f.log_format}: ${count(f.records, 'record')}, ${count(f.duplicates, 'duplicate')}, ${count(f.bad_lines, 'bad line')}`
      const empty = [f.no_request_text > 0 ? `${f.no_request_text} without request text` : '', f.no_response_text > 0 ? `${f.no_response_text} without response text` : ''].filter(Boolean)
      if (empty.length > 0) what += ` (${empty.join(', ')})`
      if (f.unread) what += '; NOT READ WHOLE (see warning)'
      const c = f.continues
      if (c) what += `; grown since ingested: read from ${c.from_line === null ? 'the end of what was stored' : `line ${c.from_line}`} on, the lines before are those of the version already in the case (sha256:${c.sha256.slice(0, 16)}…, ${c.size} bytes)`
    }
    if (f.changed_from) what += '; CHANGED since ingested (see warning)'
    out.push(`${safeLine(f.path)}  ${f.sha256 ? `sha256:${f.sha256.slice(0, 16)}…  ` : ''}${what}`)
  }
  const parts = [`${count(result.records, 'new record')}`, count(result.duplicates, 'duplicate'), `${count(result.bad_lines, 'bad line')} quarantined`]
  if (result.skipped_files) parts.push(`${count(result.skipped_files, 'file')} already present`)
  if (result.refused_files) parts.push(`${count(result.refused_files, 'file')} not ingested`)
  out.push(`Ingested ${count(result.files, 'file')}: ${parts.join(', ')}.`)
  if (result.bad_lines > 0) out.push('See them with: crosstalk status --bad-lines')
  return out.join('\n')
}

/** One line after a signal: what was kept, what was not, how to resume. */
export function interruptedMessage(result: IngestLogsResult, sig: string | null): string {
  const i = result.interrupted
  const kept = `${count(result.files, 'file')} ingested completely and kept (${count(result.records, 'record')})`
  // Triage stopped between its ingest (which read everything) and its scan.
  if (i === null) return `Interrupted${sig ? ` by ${sig}` : ''} after ingest: ${kept}; nothing was scanned. Run the same command again to scan.`
  const current = i.file ? `; ${safeLine(i.file)} was being read and is not counted (its partial rows stay marked unfinished and are redone)` : ''
  const left = i.files_not_started.length > 0 ? `; ${count(i.files_not_started.length, 'file')} not started` : ''
  return `Interrupted${sig ? ` by ${sig}` : ''}: ${kept}${current}${left}. Run the same command again to resume.`
}
