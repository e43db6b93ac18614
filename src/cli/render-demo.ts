import {DEMO_POOL_TOKENS, type DemoResult} from '../demo/pipeline.js'
import {join} from 'node:path'
import {shellQuote} from './invocation.js'
import {count} from './plural.js'

export interface DemoSummaryOptions {
  /** how the user runs crosstalk from where they are ("crosstalk" or a path to bin/run.js) */
  bin: string
  /** what the demo left on disk */
  folder: {path: string; bytes: number; temporary: boolean}
}

/** The demo's closing summary: the numbers a responder would quote, and where things are. */
export function renderDemoSummary(result: DemoResult, seconds: number, options: DemoSummaryOptions): string {
  const find = (prefix: string): any => result.steps.find((s) => s.command.startsWith(`crosstalk ${prefix} `))?.result ?? {}
  const triage = find('triage')
  const ingest = triage.ingest ?? {}
  const scan = triage.scan ?? {}
  const scope = triage.scope ?? {}
  const probe = find('probe')
  const replay = find('replay')
  const clock = find('clock')
  const verify = find('verify')
  const confirmed = Array.isArray(replay.results) ? replay.results.filter((r: {verdict?: string}) => r.verdict === 'confirmed').length : 0
  const replayed = Array.isArray(replay.results) ? replay.results.length : 0
  const exposure = scope.exposure ?? {responses: '?', by_canary: '?', by_text_only: '?', sessions: '?', source_tenants: '?', recipient_tenants: '?'}
  const subjects = scope.data_subjects ? `${scope.data_subjects.low}–${scope.data_subjects.high ?? '?'}` : 'n/a'
  const hours = typeof clock.remaining_seconds === 'number' ? (clock.remaining_seconds / 3600).toFixed(1) : '?'
  const db = shellQuote(result.db)
  const lines = [
    '',
    `crosstalk demo: generated incident of ${count(result.records, 'record')} (seed ${result.seed}), whole pipeline in ${seconds.toFixed(1)} s`,
    '',
    `  evidence      ${count(ingest.records, 'record')} ingested, ${count(ingest.duplicates, 'duplicate')}, ${count(ingest.bad_lines, 'bad line')} quarantined`,
    `  detection     ${scan.sightings === null || scan.sightings === undefined ? '? sightings' : count(scan.sightings, 'sighting')}: ${Object.entries(scan.sightings_by_class ?? {}).filter(([, n]) => n !== null).map(([c, n]) => `${c} ${n}`).join(', ')}`,
    `                ${scan.provenance_matches === null || scan.provenance_matches === undefined ? '? responses' : count(scan.provenance_matches, 'response')} attributed by verbatim content, ${scan.pii_findings === null || scan.pii_findings === undefined ? '? personal-data values' : count(scan.pii_findings, 'personal-data value')} never sent by their session`,
    // Both kinds of evidence first (the numbers the drafts state), the markers' own split inside.
    `  scope         ${count(exposure.responses, 'response')} carried another session's data: ${exposure.by_canary} with its marker (contaminated responses: ${scope.cross_tenant_responses} cross-tenant, ${scope.cross_session_responses} cross-session), ${exposure.by_text_only} by verbatim text only`,
    `                data of ${count(exposure.sessions, 'session')} of ${count(exposure.source_tenants, 'tenant')} reached ${count(exposure.recipient_tenants, 'tenant')}; data subjects ${subjects}`,
    `                first marker ${scope.first_seen ?? '-'}  last marker ${scope.last_seen ?? '-'}; ${scope.at_risk_responses ?? '?'} at-risk over-pool responses`,
    `  reproduction  probe against the reference backend (stale, disaggregated): ${probeSummary(probe)}; replay confirmed ${confirmed} of ${replayed} records`,
    clock.basis === 'art33(2)-without-undue-delay' || clock.basis === 'art33(2)-contract'
      ? `  GDPR clock    processor: notify each of ${Array.isArray(clock.controllers) ? clock.controllers.length : '?'} controllers ${clock.duty_deadline ? `by ${clock.duty_deadline} (the contractual period)` : 'without undue delay (Art. 33(2))'}; ${Array.isArray(clock.controllers) ? clock.controllers.filter((c: {notified_at: string | null}) => c.notified_at !== null).length : '?'} notified so far`
      : `  GDPR clock    deadline ${clock.deadline ?? '?'} (${clock.status ?? '?'}, ${hours} h left)`,
    `  integrity     verify ${verify.ok ? 'passed' : 'FAILED'}: ${verify.records_checked === null || verify.records_checked === undefined ? '? records' : count(verify.records_checked, 'record')} against their original bytes, audit chain of ${verify.audit_entries === null || verify.audit_entries === undefined ? '? entries' : count(verify.audit_entries, 'entry', 'entries')}`,
    '',
    `  case database ${result.db}`,
    `  reports       ${result.outputs.reports}  (processor-notices/, article33.md/.json/.pdf drafted for the most exposed controller, register.md, probe-junit.xml)`,
    `  ground truth  ${result.outputs.ground_truth}`,
    '',
    `  left on disk  ${(options.folder.bytes / 1e6).toFixed(0)} MB in ${options.folder.path}${
      options.folder.temporary ? ` (a temporary folder; remove it with: rm -rf ${shellQuote(options.folder.path)})` : ''
    }`,
    '',
    'Next, on this case:',
    ...[
      `status --db ${db}`,
      `scope --db ${db} --pool-tokens ${DEMO_POOL_TOKENS}`,
      `timeline --db ${db} --pool-tokens ${DEMO_POOL_TOKENS}`,
      `report case --db ${db} --format html --out ${shellQuote(join(result.outputs.reports, 'case.html'))}`,
    ].map((command) => `  ${options.bin} ${command}`),
  ]
  return lines.join('\n')
}

/** The probe's verdict with what decided it: "fail" alone reads as the probe having failed to run. */
function probeSummary(probe: {verdict?: string; checks?: Array<{name: string; ok: boolean; inconclusive: boolean}>}): string {
  const failed = (probe.checks ?? []).filter((c) => !c.ok && !c.inconclusive).map((c) => c.name)
  if (probe.verdict === 'fail' && failed.length > 0) return `fail (${failed.length === 1 ? 'failed check' : 'failed checks'}: ${failed.join(', ')})`
  return probe.verdict ?? '?'
}
