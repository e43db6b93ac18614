import {Flags} from '@oclif/core'
import {describeGap, nothingSearched} from '../detect/coverage.js'
import {grownOriginalLine} from '../case/grown-originals.js'
import {getIncident} from '../notify/incident.js'
import {timelineOrderWarnings} from '../notify/timeline-order.js'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {quoted, safeLine, safeId} from '../util/sanitize.js'
import {caseStatus, listBadLines, type StatusResult} from '../case/status.js'
import {clockSummary} from '../cli/render-clock.js'
import {duplicateLeaksNote} from '../cli/render-scope.js'
import {count} from '../cli/plural.js'
import {markersStaleReason, staleFindings} from '../scope/unscanned.js'
import {ingestHolder} from '../ingest/ingest-lock.js'

/** Files whose ingest has not finished: still being ingested where a live process holds the case (named), else interrupted. */
function unfinishedIngestNote(n: number, holder: ReturnType<typeof ingestHolder>): string {
  if (holder === null) return `${n} interrupted: run the same ingest again`
  if (holder.state === 'alive') return `${n} not finished: process ${holder.pid} is writing to this case (an ingest, scan or drop) and may be ingesting ${n === 1 ? 'it' : 'them'} still; wait for it to finish`
  return `${n} not finished: process ${holder.pid} (another host or PID namespace) holds this case and whether it still runs cannot be told from here; wait for it, or, if it was killed, crosstalk ingest release --reason "..." and run the same ingest again`
}

export default class Status extends BaseCommand {
  static override summary = 'What the case holds: evidence files, records, quarantined lines, canaries, sightings, the incident and its 72-hour clock.'
  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --json', '<%= config.bin %> status --bad-lines']
  static override flags = {
    db: dbFlag,
    'bad-lines': Flags.boolean({description: 'list quarantined lines with file, line, byte offset and reason'}),
  }

  async run(): Promise<StatusResult & {bad_line_list?: ReturnType<typeof listBadLines>['rows']; bad_lines_not_listed?: number}> {
    const {flags} = await this.parse(Status)
    // Only reads: works on a case file that is read-only (an evidence copy).
    const db = this.openCase(flags.db, {readonly: true})
    const status = caseStatus(db)
    const badLines = flags['bad-lines'] ? listBadLines(db) : undefined
    if (!this.jsonEnabled()) {
      this.log(`Case ${safeLine(flags.db)} (schema ${status.schema_version})`)
      this.log(`  evidence files   ${status.files + status.registry_files}  (${status.files} log${status.earlier_versions ? `, with ${count(status.earlier_versions, 'earlier version')} of logs that grew and were ingested again, counted with them` : ''}, ${status.registry_files} canary registry)${status.incomplete_files ? `  (${unfinishedIngestNote(status.incomplete_files, ingestHolder(db))})` : ''}`)
      if (status.log_evidence?.lines_held === 'none') this.log(`  log bytes        ${status.log_evidence.files_by_reference} of ${count(status.files, 'log file')} kept by reference: read from the originals where they lie, checked on every read (crosstalk verify names any missing or changed)`)
      else if (status.log_evidence?.lines_held === 'findings') this.log(`  log bytes        by reference: the case holds the lines the Spark findings rest on; the shards stay where they are`)
      this.log(`  records          ${status.records}  (${count(status.tenants, 'tenant')}, ${count(status.sessions, 'session')})`)
      this.log(`  time span        ${status.first_record ?? '-'} .. ${status.last_record ?? '-'}`)
      this.log(
        `  duplicates       ${status.duplicates} within the stored files${status.reingested_files ? `; ${status.reingested_duplicates} more in ${count(status.reingested_files, 'file')} ingested again (already in the case, nothing added)` : ''}`,
      )
      this.log(`  bad lines        ${status.bad_lines}${status.bad_lines && !badLines ? '  (list with --bad-lines)' : ''}`)
      const formats = Object.entries(status.log_formats).map(([f, n]) => `${f} ${n}`).join(', ')
      if (formats) this.log(`  log formats      ${formats}`)
      const u = status.unknown_fields
      const unknown = [['status', u.status], ['prompt tokens', u.prompt_tokens], ['decode node', u.decode_node]].filter(([, n]) => (n as number) > 0)
      if (unknown.length > 0) this.log(`  unknown          ${unknown.map(([f, n]) => `${f} in ${count(n as number, 'record')}`).join(', ')}  (counts that need them are unknown, not zero)`)
      if (status.no_response_text > 0 || status.no_request_text > 0) this.log(`  no text          ${count(status.no_request_text, 'request')}, ${count(status.no_response_text, 'answer')} decoded to no text`)
      for (const f of status.unreadable_files) this.log(`  NOT JUDGEABLE    ${safeLine(f.path)}: ${safeLine(f.why)}`)
      for (const g of status.originals_grown) this.log(`  NOT JUDGED       ${safeLine(grownOriginalLine(g))}`)
      for (const d of status.same_records_other_source) this.log(`  COUNTED TWICE    ${safeLine(d.path)}: ${safeLine(d.note)}`)
      // A case of Spark findings takes no logs: what it did not read is read by the job, run again (docs/scale.md).
      const spark = status.log_evidence?.lines_held === 'findings'
      const readAgain = spark ? 'run the Spark job again with the flags that read it and bring its findings into a new case' : 'ingest it whole'
      for (const u of status.unread_sources) this.log(`  NOT READ         ${safeLine(u.path)}: ${safeLine(u.reason)}  (${u.recorded_by}, ${u.recorded_at}; ${readAgain}, or crosstalk ingest dismiss PATH --reason "...")`)
      for (const group of status.tenant_ids_alike) this.log(`  IDS ALIKE        tenants ${group.map((t) => quoted(safeId(t))).join(' and ')} read alike once Unicode-normalised (NFC) but are different ids: they are counted apart; an id not in NFC is shown with its characters escaped`)
      this.log(`  canaries         ${status.canaries}${status.canaries === 0 ? '  (no canary registry: no marker can be attributed to a session, so every marker found is an orphan; crosstalk ingest canaries FILE)' : ''}`)
      const classes = Object.entries(status.sightings_by_class ?? {}).map(([c, n]) => `${c} ${n}`).join(', ')
      const d = status.detection
      // A scan over no record is a scan: said as one that searched nothing (describeGap), never as none having run.
      const rescan = d.no_log_records ? 'crosstalk ingest logs PATH; crosstalk scan' : 'crosstalk scan'
      if (nothingSearched(d)) this.log(`  sightings        unknown: ${describeGap(d)}  (${rescan})`)
      else this.log(`  sightings        ${status.sightings}${status.sightings_by_class === null ? `  (their classes not known: ${markersStaleReason(staleFindings(d).markers_cause ?? 'registry')})` : classes ? `  (${classes})` : ''}${d.complete ? '' : `; detection incomplete: ${describeGap(d)}  (crosstalk scan)`}`)
      if (status.duplicate_leaks_not_counted.length > 0) this.log(`  ${duplicateLeaksNote(status.duplicate_leaks_not_counted)}`)
      if (status.duplicate_lines_not_examined > 0) {
        const listed = status.duplicate_lines_not_examined_list
        const few = listed.slice(0, 5).map((d) => `${safeLine(d.path)}:${d.line} (request_id ${quoted(d.request_id.slice(0, 80))}: ${safeLine(d.why)})`).join(', ') + (listed.length > 5 ? `, and ${listed.length - 5} more (status --json lists each)` : '')
        this.log(`  NOT EXAMINED     ${count(status.duplicate_lines_not_examined, 'line repeats', 'lines repeat')} a request_id with a different answer and could not be read again: whether ${status.duplicate_lines_not_examined === 1 ? 'it carries' : 'they carry'} another session's marker is not known: ${few}${spark ? ' (crosstalk verify reads each line from its shard; run the Spark job again over those shards and bring its findings into a new case)' : ''}`)
      }
      const prov = status.provenance_attributed
      this.log(
        `  provenance       ${
          prov === null
            ? nothingSearched(d) && d.no_log_records
              ? `unknown: ${describeGap(d)}  (crosstalk ingest logs PATH; crosstalk scan)`
              : `unknown: ${d.provenance === 'never' ? 'canary-less provenance has not run' : 'canary-less provenance does not cover the case as it is'}  (crosstalk scan)`
            : `${count(prov, 'response repeats', 'responses repeat')} an earlier other session's text${
              (d.provenance_not_comparable_responses ?? 0) > 0 ? `; ${count(d.provenance_not_comparable_responses!, 'response')} in a script written without spaces (Chinese, Japanese, Thai, ...) could not be compared (not examined for verbatim text)` : ''}${
              status.no_request_text > 0 ? `; ${status.no_request_text >= status.records ? 'no prompt was logged, so no leaked prompt could be looked for' : `${count(status.no_request_text, 'record')} had no request text, so ${status.no_request_text === 1 ? 'its prompt' : 'their prompts'} could not be looked for in other answers`}` : ''}`
        }`,
      )
      const pd = status.personal_data
      this.log(
        `  personal data    ${
          pd === null
            ? `unknown: ${describeGap(d)}  (${d.no_log_records ? 'crosstalk ingest logs PATH; crosstalk scan' : 'crosstalk scan'})`
            : `${count(pd.findings, 'finding')}: values in responses that their session never sent${pd.findings > 0 ? ` (${pd.attributed} sent first by another session)` : ''}${d.complete ? '' : '; as of the last scan, detection incomplete  (crosstalk scan)'}`
        }`,
      )
      this.log(
        `  KV pool          ${
          status.pool_tokens === null
            ? 'not recorded: at-risk counts are unknown  (scan --pool-tokens N)'
            : `${status.pool_tokens} tokens${status.advertised_tokens === null ? '' : ` (advertised context ${status.advertised_tokens})`}`
        }`,
      )
      // The head, to note outside the case: `verify --expect-head HASH:COUNT` later proves the log was not rewritten or cut.
      this.log(`  audit entries    ${status.audit_entries}${status.audit_head ? `  (head ${status.audit_head}:${status.audit_entries}, for verify --expect-head)` : ''}`)
      if (status.incident) {
        this.log(`  incident         ${safeLine(status.incident.title)}  (${status.incident.role}, aware ${status.incident.aware_at})`)
        const c = status.clock!
        this.log(`  clock            ${c.status}${c.late === true ? ' LATE' : c.late === null ? ' (late: not known)' : ''}  deadline ${c.deadline ?? 'none fixed (without undue delay)'}  (${clockSummary(c)})${c.controllers_known === false ? `; ${c.controllers?.filter((x) => x.notified_at !== null).length ?? 0} controllers notified, how many are to be notified is not known yet: ${c.controllers_unknown_because === 'markers' ? 'markers found in answers could not be attributed (no canary registry)' : 'detection is incomplete (crosstalk scan)'}` : ''}`)
      } else this.log('  incident         none  (crosstalk incident open)')
      if (badLines) {
        this.log('')
        for (const b of badLines.rows) this.log(`${safeLine(b.file)}:${b.line}  @${b.byte_offset}  ${safeLine(b.reason)}`)
        // The list stops at its limit: what is past it is counted, never left out silently.
        if (badLines.not_listed > 0) this.log(`… and ${count(badLines.not_listed, 'more quarantined line')} not listed (the first ${badLines.rows.length} are)`)
      }
    }
    // Incident times that cannot all be right (an awareness or detection before the recorded breach start): said here too (stderr).
    for (const w of timelineOrderWarnings(getIncident(db))) this.note(w)
    return badLines ? {...status, bad_line_list: badLines.rows, bad_lines_not_listed: badLines.not_listed} : status
  }
}
