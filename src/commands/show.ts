import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {safeLine, safeText, safeId} from '../util/sanitize.js'
import {rawRecord} from '../case/show-raw.js'
import {showRecord, type RecordFindings, type RecordView} from '../case/show-record.js'
import {count} from '../cli/plural.js'

export default class Show extends BaseCommand {
  static override summary = 'Print one record decoded, or with --raw its original line byte for byte.'
  static override description = 'The decoded view shows where the record came from, what the log says about it, and what detection found: the markers its response received (and whose), the earlier text of another session it repeats, the later responses that repeat it, the personal data it received (as references), and whether it was at risk; each says "not known" until a scan covers the case. Its prompt and response texts are other people\'s data: they are printed only with --show-text (terminal control characters made visible, long texts cut at --max-chars), with canary markers shortened unless --show-markers. --raw writes the exact original bytes from the case\'s evidence store to stdout, unchanged (pipe it to a file or a hex viewer), once the line matches the CRC-32 recorded for it at ingest and the whole file\'s evidence gives again the SHA-256 its ingest\'s audit entry recorded; a file over 256 MiB is read whole only with --verified (without it, stderr says what was not checked). Bytes known to be altered are never printed (exit 1).'
  static override examples = [
    '<%= config.bin %> show req-000123',
    '<%= config.bin %> show req-000123 --show-text',
    '<%= config.bin %> show req-000123 --raw > original-line.json',
    '<%= config.bin %> show req-000123 --raw --verified > original-line.json',
    '<%= config.bin %> show req-000123 --json --show-text --show-markers',
  ]
  static override args = {request_id: Args.string({description: 'request_id of the record', required: true})}
  static override flags = {
    db: dbFlag,
    source: Flags.string({description: 'log source, when the request_id exists in several'}),
    raw: Flags.boolean({description: 'write the original line exactly as it was in the evidence file', exclusive: ['show-text', 'show-markers', 'max-chars', 'json']}),
    verified: Flags.boolean({description: 'with --raw: read the whole file\'s evidence again against the SHA-256 its ingest\'s audit entry recorded, and print nothing if it differs or cannot be checked, whatever its size (without it, a file over 256 MiB is checked line by CRC-32 only, and stderr says so)', dependsOn: ['raw']}),
    'max-chars': Flags.integer({description: 'cut each text at this many characters in the decoded view (0: no limit)', default: 4000, min: 0}),
    'show-text': Flags.boolean({description: 'print the prompt and response texts (they can hold another tenant\'s leaked data)'}),
    'show-markers': Flags.boolean({description: 'canary markers in full (default: shortened, as in sightings)'}),
  }

  async run(): Promise<RecordView | void> {
    const {args, flags} = await this.parse(Show)
    const db = this.openCase(flags.db, {readonly: true})
    if (flags.raw) {
      const {bytes, unchecked} = await rawRecord(db, args.request_id, flags.source, {verified: flags.verified})
      // Printed only once checked; what was not checked is said beside it, never in the bytes.
      if (unchecked !== null) this.note(`show --raw: ${safeLine(unchecked)}`)
      await new Promise<void>((resolve, reject) => process.stdout.write(bytes, undefined, (e) => (e ? reject(e) : resolve())))
      return
    }
    const view = showRecord(db, args.request_id, flags.source, {showText: flags['show-text'], showMarkers: flags['show-markers']})
    if (!this.jsonEnabled()) {
      const cut = (s: string | null) => (s === null ? '(none)' : flags['max-chars'] > 0 && s.length > flags['max-chars'] ? `${s.slice(0, flags['max-chars'])}… (${s.length} chars; --max-chars 0 for all)` : s)
      const e = view.evidence
      this.log(`request_id   ${safeLine(view.request_id)}  (source ${safeLine(view.source)})`)
      this.log(`time         ${view.ts_precise}`)
      this.log(`tenant       ${safeId(view.tenant_id)}   session ${safeLine(view.session_id)}`)
      this.log(`status       ${view.status ?? '-'}${view.is_error ? `  ERROR: ${safeLine(view.error_message ?? '')}` : ''}   ${view.response_kind}${view.stream ? ' (stream)' : ''}`)
      this.log(`nodes        prefill ${safeLine(view.prefill_node ?? '-')}  decode ${safeLine(view.decode_node ?? '-')}`)
      this.log(`tokens       prompt ${view.prompt_tokens ?? '-'}  completion ${view.completion_tokens ?? '-'}  cached ${view.cached_tokens ?? '-'}`)
      this.log(`evidence     ${safeLine(e.file)} line ${e.line} bytes ${e.byte_offset}+${e.byte_len} (file sha256 ${e.file_sha256})`)
      const size = (n: number | null): string => (n === null ? 'none' : `${n} chars`)
      if (view.texts === 'shown') {
        this.log(`\n--- request text\n${safeText(cut(view.request_text ?? null))}`)
        this.log(`\n--- response text\n${safeText(cut(view.response_text ?? null))}`)
      } else {
        this.log(`texts        request ${size(view.request_chars)}, response ${size(view.response_chars)}  (not shown: they are other people's data; --show-text prints them)`)
      }
      for (const line of renderFindings(view.findings, {markers: flags['show-markers']})) this.log(line)
    }
    return view
  }
}

/**
 * The findings as lines of the decoded view: what is not known says so, and why. A marker is
 * named by its session (its owner); the marker itself only with --show-markers.
 */
export function renderFindings(f: RecordFindings, options: {markers: boolean}): string[] {
  const who = (tenant: string | null, session: string | null): string => (tenant === null ? 'unregistered' : `${safeId(tenant)}/${safeLine(session ?? '-')}`)
  const unknown = 'not known until `crosstalk scan` covers the case'
  const out = ['', 'findings']
  if (f.gap !== null) out.push(`  detection     incomplete: ${f.gap}`)
  out.push(
    `  sightings     ${
      f.sightings === null
        ? unknown
        : f.sightings.length === 0
          ? 'no marker in this response'
          : f.sightings.map((s) => `${s.class}${options.markers ? ` ${safeLine(s.marker)}` : ''}${s.partial ? ' (partial)' : ''}${s.class === 'orphan' ? ' (an unregistered marker)' : ` marker of ${who(s.source_tenant, s.source_session)}`}`).join('; ')
    }`,
  )
  // A retry logged under this request id is no record: its answer's markers are in no sighting, so it is named here apart.
  if (f.retry_leaks.length > 0 || f.retry_lines_not_examined > 0) {
    const leaks = f.retry_leaks.map((x) => `${safeLine(x.line)} (${x.class}, served to ${safeId(x.recipient_tenant)}${x.source_tenants.length > 0 ? `, markers of ${x.source_tenants.map(safeId).join(', ')}` : ''})`)
    out.push(
      `  retries       ${[
        f.retry_leaks.length > 0 ? `${count(f.retry_leaks.length, 'line repeating this request id carries', 'lines repeating this request id carry')} another session's marker, NOT COUNTED in any figure: ${leaks.join('; ')}` : null,
        f.retry_lines_not_examined > 0 ? `${count(f.retry_lines_not_examined, 'line repeating this request id', 'lines repeating this request id')} could not be read again: whose marker ${f.retry_lines_not_examined === 1 ? 'its answer carries' : 'their answers carry'} is not known` : null,
      ].filter((x) => x !== null).join('; ')}`,
    )
  }
  const p = f.provenance
  out.push(
    `  provenance    ${
      !f.provenance_known
        ? unknown
        : p === null
          ? "repeats no earlier other session's text"
          : provenanceLine(p, who)
    }`,
  )
  const c = f.copied_by
  out.push(
    `  copied by     ${
      c === null
        ? unknown
        : c.responses === 0
          ? 'no later response of another session repeats this record'
          : `${count(c.responses, 'later response')}: ${c.first.map((x) => `${safeLine(x.request_id)} (${who(x.tenant_id, x.session_id)})`).join(', ')}${c.responses > c.first.length ? ', …' : ''}`
    }`,
  )
  out.push(
    `  personal data ${
      f.personal_data === null
        ? unknown
        : f.personal_data.length === 0
          ? 'no value in this response that its session never sent'
          : f.personal_data.map((d) => `${d.kind} ref:${d.value_ref}${d.source_request_id === null ? ' (first sender not found)' : ` from ${who(d.source_tenant, d.source_session)}`}`).join('; ')
    }`,
  )
  const retried = f.session_marker_retry_leaks > 0 ? `; besides, ${count(f.session_marker_retry_leaks, 'retry line', 'retry lines')} served to another session carried them, NOT COUNTED in any figure` : ''
  out.push(
    `  its markers   ${
      f.session_markers_registered === 0
        ? 'no marker is registered for this session'
        : f.session_marker_sightings === null
          ? `${unknown}${retried}`
          : f.session_marker_sightings === 0
            ? f.session_marker_retry_leaks > 0
              ? `this session's markers were seen in no other session's response that a record holds, but in ${count(f.session_marker_retry_leaks, "retry line served to another session", "retry lines served to other sessions")}, NOT COUNTED in any figure (crosstalk status names ${f.session_marker_retry_leaks === 1 ? 'it' : 'them'})`
              : f.case_retry_lines_not_examined > 0
                ? `this session's markers were not seen in another session's response read; ${count(f.case_retry_lines_not_examined, 'retry line', 'retry lines')} of the case could not be read again, and whose marker ${f.case_retry_lines_not_examined === 1 ? 'it carries' : 'they carry'} is not known`
                : "this session's markers were not seen in another session's response"
            : `this session's markers were seen in ${count(f.session_marker_sightings, "other session's response", "other sessions' responses")}${retried}`
    }`,
  )
  out.push(`  at risk       ${f.at_risk === null ? f.at_risk_basis : `${f.at_risk ? 'yes' : 'no'}: ${f.at_risk_basis}`}`)
  return out
}

/** One provenance finding, worded by what it establishes: a named source, several alike, or only a place the text was seen. */
function provenanceLine(p: NonNullable<RecordFindings['provenance']>, who: (tenant: string | null, session: string | null) => string): string {
  const seen = `${safeLine(p.source_request_id)} (${who(p.source_tenant, p.source_session)}, ${p.source_ts})`
  const words = count(p.overlap_words, 'word')
  const late = p.source_order === 'unknown' ? '; that prompt was logged after this response, so whether it was in flight before cannot be established' : ''
  if (p.source_status === 'ambiguous') {
    return `repeats ${words} that the texts of ${p.source_tenants} tenants hold alike: no one source can be named (one of them: the ${p.matched} of ${seen})${late}`
  }
  if (p.source_status === 'unknown') {
    return `repeats ${words} found only in answers whose prompts were not logged: source unknown (seen in the ${p.matched} of ${seen}, which may have received the text too)`
  }
  return `repeats ${words} of the ${p.matched} of ${seen}${late}`
}
