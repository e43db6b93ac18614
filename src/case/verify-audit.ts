import {listAssessmentRows} from '../store/assessments.js'
import {auditTriggersInPlace, findBrokenAuditLink, listAudit, type AuditEntry} from '../store/audit.js'
import {countCanaries} from '../store/canaries.js'
import {listFiles, type FileRow} from '../store/files.js'
import {getIncidentRow, incidentAwareness, listAmendmentRows} from '../store/incident.js'
import {listNotificationRows} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'
import {finishedScanRuns, unfinishedScanRunAt, type ScanRunRow} from '../store/scan-runs.js'
import {getSettings, ingestClaimant, registryVersion} from '../store/settings.js'
import {checkAuditedFileFacts} from './verify-file-facts.js'
import {checkTenantLabels} from './verify-tenant-labels.js'
import {Problems, shown} from './verify-problems.js'
import {checkRecordedIncident, checkRecordedNotifications, checkRecordedUnreadSources, flagsOf, summaryOf} from './verify-recorded.js'
import {count} from '../util/plural.js'
import {processAlive} from '../util/process-alive.js'

// The audit log is a hash chain inside the case: it proves that no entry was edited or
// removed from the middle, but a forger with the file can rewrite the whole chain, or cut
// its tail, and recompute every hash. Two defences, both here:
// - the anchor: the entry count and head hash, printed by `status` and `verify` for the
//   responder to note outside the case, and checked with `verify --expect-head HASH[:COUNT]`
//   (an earlier head still has to be in the chain at its place: the case only grows);
// - coverage: every fact a command writes must be named by the audit entry of that command
//   (each evidence file by its SHA-256, the incident's opening and every awareness
//   amendment, each scan, the pool size, each notification and decision). A fact changed or
//   added by hand has no entry; removing the entries breaks the chain or the anchor.

export interface AuditAnchor {
  /** The hash of the newest entry (null: no entries) */
  head: string | null
  entries: number
  /** Whether --expect-head was given (otherwise the chain is checked only against itself). */
  anchored: boolean
  /** Entries appended after the anchored one. */
  entries_since_anchor: number | null
  /** What the audit log cannot speak for and is not a problem (a pool size set by a scan that did not finish) */
  notes: string[]
  /**
   * Files whose ingest did not finish (no problem: the same ingest, run again, finishes them):
   * loading ones no audit entry records as ingested (one it records, set back to loading, is a
   * problem), and ones read whole by an ingest killed before its entry.
   */
  unfinished: FileRow[]
  /** Compressed files whose content no audit entry records (ingested by an earlier version): tied to their original, if readable, by verify. */
  unanchored_content: FileRow[]
}

export interface ExpectedHead {
  hash: string
  count: number | null
}

/** Parses HASH[:COUNT]; the hash may be cut (at least 12 hex digits), as a responder might note it. */
export function parseExpectedHead(text: string): ExpectedHead | null {
  // A head is an entry, so the count it was noted with is 1 or more: 0 is no head, never a log cut to nothing.
  const m = /^([0-9a-f]{12,64})(?::([1-9]\d*))?$/i.exec(text.trim())
  return m ? {hash: m[1]!.toLowerCase(), count: m[2] === undefined ? null : Number(m[2])} : null
}

export function verifyAudit(db: CaseDb, problems: Problems, expect: ExpectedHead | null): AuditAnchor {
  const entries = listAudit(db)
  const broken = findBrokenAuditLink(db)
  if (broken) problems.add('audit', `audit entry ${broken.seq}`, broken.reason)
  const triggers = auditTriggersInPlace(db)
  if (!triggers.no_update || !triggers.no_delete) {
    problems.add('audit', 'audit log', `its append-only trigger${!triggers.no_update && !triggers.no_delete ? 's were' : ' was'} dropped (${[!triggers.no_update && 'no update', !triggers.no_delete && 'no delete'].filter(Boolean).join(', ')})`)
  }
  const head = entries.at(-1)?.hash ?? null
  const anchor: AuditAnchor = {head, entries: entries.length, anchored: expect !== null, entries_since_anchor: null, notes: [], unfinished: [], unanchored_content: []}
  if (expect) checkAnchor(entries, expect, problems, anchor)
  checkCoverage(db, entries, problems, anchor)
  anchor.notes.push(...checkTenantLabels(db, entries, problems))
  return anchor
}

function checkAnchor(entries: readonly AuditEntry[], expect: ExpectedHead, problems: Problems, anchor: AuditAnchor): void {
  const noted = `the head you noted (${expect.hash.slice(0, 16)}…${expect.count === null ? '' : `, entry ${expect.count}`})`
  if (expect.count !== null) {
    const entry = entries[expect.count - 1]
    if (!entry) {
      problems.add('audit', 'audit log', `holds ${count(entries.length, 'entry', 'entries')}, fewer than ${noted}: entries were removed`)
    } else if (!entry.hash.startsWith(expect.hash)) {
      problems.add('audit', `audit entry ${expect.count}`, `its hash is ${entry.hash.slice(0, 16)}…, not ${noted}: the log was rewritten`)
    } else anchor.entries_since_anchor = entries.length - expect.count
    return
  }
  const at = entries.findIndex((e) => e.hash.startsWith(expect.hash))
  if (at < 0) problems.add('audit', 'audit log', `no entry has ${noted}: the log was rewritten or cut`)
  else anchor.entries_since_anchor = entries.length - 1 - at
}

/** Every string found under a key named `key` in an entry's summary and arguments. */
function valuesNamed(entry: AuditEntry, key: string): unknown[] {
  const out: unknown[] = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === key) out.push(x)
        walk(x)
      }
    }
  }
  for (const text of [entry.summary, entry.args]) {
    try {
      walk(JSON.parse(text))
    } catch {
      // not JSON: names nothing
    }
  }
  return out
}



function checkCoverage(db: CaseDb, entries: readonly AuditEntry[], problems: Problems, anchor: AuditAnchor): void {
  const notes = anchor.notes
  checkAuditedFilesPresent(db, entries, problems)
  anchor.unanchored_content = checkAuditedFileFacts(db, entries, problems, notes)

  // Evidence files: each named by its SHA-256 in the entry of the ingest that read it (or of one
  // that found it already present: an ingest killed before its entry, then run again).
  const hashes = new Set(entries.flatMap((e) => valuesNamed(e, 'sha256')).filter((v): v is string => typeof v === 'string'))
  // An ingest writes its entry once every file is read: one killed before it (SIGKILL, a crash)
  // leaves the files it finished without an entry, and its claim on the case held by a process
  // that no longer runs (a scan since releases it; then the file it was reading when killed, still
  // loading and begun after the last entry, says the same). The files it finished, begun after
  // the last entry, are its unfinished work, not rows added by hand; their evidence is checked
  // all the same.
  const lastAt = entries.at(-1)?.at ?? ''
  const claimant = ingestClaimant(db)
  const files = listFiles(db)
  const killed = (claimant !== null && claimant !== process.pid && !processAlive(claimant)) || files.some((f) => f.state === 'loading' && f.started_at > lastAt)
  for (const f of files) {
    if (hashes.has(f.sha256)) continue
    if (f.state !== 'complete' || (killed && f.started_at > lastAt)) {
      anchor.unfinished.push(f)
      continue
    }
    problems.add(
      'unaudited', f.path,
      `${f.kind === 'log' ? 'log' : 'registry'} file ${f.sha256.slice(0, 16)}… is in the case, but no audit entry records its ingest (added by hand, or its ingest was killed before recording it: run the same ingest again)`,
      'files',
    )
  }

  // Scans: each finished one named by its scanned_at in the entry of scan, triage or provenance.
  const scans = new Map<string, Record<string, unknown>>()
  for (const e of entries) {
    const s = summaryOf(e)
    if (typeof s.scanned_at === 'string') scans.set(s.scanned_at, s)
  }
  const runs = finishedScanRuns(db)
  for (const run of runs) {
    if (!scans.has(run.started_at)) problems.add('unaudited', `scan run ${run.id} (${run.started_at})`, 'no audit entry records this scan', 'scans')
  }
  checkAuditedScans(db, entries, runs, problems)
  const settings = getSettings(db)
  if (settings.pool_tokens !== null) {
    const scan = settings.pool_set_at === null ? undefined : scans.get(settings.pool_set_at)
    // A scan killed after it set the pool (its run row is there, unfinished) wrote no audit entry:
    // detection names the unfinished scan, and the pool is audited by the next scan that sets it.
    const unfinished = !scan && settings.pool_set_at !== null && unfinishedScanRunAt(db, settings.pool_set_at)
    if (unfinished) {
      notes.push(`pool size ${settings.pool_tokens} was set by the scan begun at ${settings.pool_set_at}, which did not finish, so no audit entry records it: run \`crosstalk scan --pool-tokens ${settings.pool_tokens}\` to record it`)
    } else if (!scan) problems.add('unaudited', 'pool size', `pool_tokens ${settings.pool_tokens} was set at ${settings.pool_set_at ?? 'an unrecorded time'}, by no audited scan`)
    else if (scan.pool_tokens !== settings.pool_tokens || (scan.advertised_tokens ?? null) !== settings.advertised_tokens) {
      problems.add('settings', 'pool size', `the case says pool ${settings.pool_tokens} / advertised ${shown(settings.advertised_tokens)}, the scan that set it recorded ${shown(scan.pool_tokens)} / ${shown(scan.advertised_tokens)}`)
    }
  }

  checkIncident(db, entries, problems)
  checkRecordedIncident(db, entries, problems)
  checkRecordedNotifications(db, entries, problems)
  checkRecordedUnreadSources(db, entries, problems)

  // Notifications: each named by id, with the SHA-256 of what was sent.
  const notified = new Map<number, unknown>()
  for (const e of entries) {
    const s = summaryOf(e)
    if (e.command === 'notify:record' && typeof s.notification === 'number') notified.set(s.notification, s.sha256 ?? null)
  }
  for (const n of listNotificationRows(db)) {
    if (!notified.has(n.id)) problems.add('unaudited', `notification ${n.id} (${n.phase}, ${shown(n.recipient)})`, 'no audit entry records it', 'notifications')
    else if (notified.get(n.id) !== n.file_sha256) problems.add('unaudited', `notification ${n.id}`, `the file hash ${shown(n.file_sha256)} is not the one its audit entry recorded`, 'notifications')
  }

  // Risk decisions: the k-th recorded decision is the k-th audited one, with the rationale,
  // author and time its entry's flags and time give.
  const decided = entries.filter((e) => e.command === 'assess' && typeof summaryOf(e).decision === 'string')
  const decisions = decided.map(summaryOf)
  const assessments = listAssessmentRows(db)
  assessments.forEach((a, i) => {
    const d = decisions[i]
    if (!d) problems.add('unaudited', `assessment ${a.id} (${a.decision})`, 'no audit entry records this decision', 'assessments')
    else if (d.decision !== a.decision || d.suggested !== a.suggested || d.se !== a.se) {
      problems.add('unaudited', `assessment ${a.id}`, `decision ${a.decision} (suggested ${a.suggested}, SE ${a.se}) differs from its audit entry: ${shown(d.decision)} (suggested ${shown(d.suggested)}, SE ${shown(d.se)})`, 'assessments')
    } else {
      const entry = decided[i]!
      const flags = flagsOf(entry)
      const fields: Array<[string, unknown, unknown]> = [
        ['rationale', a.rationale, typeof flags.rationale === 'string' ? flags.rationale.trim() : undefined],
        ['decided_by', a.decided_by, typeof flags['decided-by'] === 'string' ? flags['decided-by'] : null],
        ['at', a.at, entry.at],
      ]
      for (const [field, now, should] of fields) {
        if (should !== undefined && now !== should) problems.add('recorded', `assessment ${a.id}`, `its ${field} is ${shown(now)}, but audit entry ${entry.seq} recorded ${shown(should)}`, 'assessments')
      }
    }
  })
  if (decisions.length > assessments.length) {
    problems.add('recorded', 'risk decisions', `the audit log records ${count(decisions.length, 'decision')}, the case holds ${assessments.length}: decisions were removed`, 'assessments')
  }
}

/** A file the audit log says is in the case, with what its ingest counted (null: not recorded). */
interface AuditedFile {
  kind: 'log' | 'canaries'
  path: string
  seq: number
  records: number | null
  bad_lines: number | null
  /** registry files: the markers its ingest added (null: not recorded) */
  added: number | null
}

function objectsOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : []
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null
}

/**
 * The files the audit log says the case holds: each one an audited ingest added (logs,
 * findings by reference, registries) and no audited drop removed since, with the counts the
 * ingest recorded (a drop that kept records at their duplicate lines adds those). Each must be
 * in the case with those counts, and the registry must hold the markers the registry ingests
 * added: a file row or markers deleted by hand (their records and findings go with them by
 * cascade) are named here.
 */
function checkAuditedFilesPresent(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const audited = new Map<string, AuditedFile>()
  const logFile = (seq: number, f: Record<string, unknown>): void => {
    if (typeof f.sha256 !== 'string' || f.sha256 === '') return
    if (f.status === 'refused') return
    if (f.status === 'already_present') {
      if (!audited.has(f.sha256)) audited.set(f.sha256, {kind: 'log', path: String(f.path), seq, records: null, bad_lines: null, added: null})
      return
    }
    audited.set(f.sha256, {kind: 'log', path: String(f.path), seq, records: numberOrNull(f.records), bad_lines: numberOrNull(f.bad_lines), added: null})
  }
  for (const e of entries) {
    const s = summaryOf(e)
    let step: unknown
    try {
      step = (JSON.parse(e.args) as Record<string, unknown> | null)?.step
    } catch {
      step = undefined
    }
    if (e.command === 'ingest:logs' || (e.command === 'triage' && step === 'ingest logs') || e.command === 'ingest:findings') {
      for (const f of [...objectsOf(s.files), ...objectsOf(s.per_file)]) logFile(e.seq, f)
    } else if (e.command === 'ingest:canaries' || (e.command === 'triage' && step === 'ingest canaries')) {
      if (typeof s.sha256 !== 'string') continue
      if (s.status === 'already_present') {
        if (!audited.has(s.sha256)) audited.set(s.sha256, {kind: 'canaries', path: String(s.file), seq: e.seq, records: null, bad_lines: null, added: null})
      } else {
        audited.set(s.sha256, {kind: 'canaries', path: String(s.file), seq: e.seq, records: numberOrNull(s.entries), bad_lines: null, added: numberOrNull(s.added)})
      }
    } else if (e.command === 'drop') {
      for (const f of [...objectsOf(s.dropped), ...objectsOf(s.registries_dropped)]) if (typeof f.sha256 === 'string') audited.delete(f.sha256)
      // A registry withdrawn hands the markers another registry also gives to that file.
      for (const r of objectsOf(s.markers_reregistered)) {
        const f = typeof r.sha256 === 'string' ? audited.get(r.sha256) : undefined
        if (f && f.added !== null && typeof r.markers === 'number') f.added += r.markers
      }
      for (const k of objectsOf(s.kept_in)) {
        const f = typeof k.sha256 === 'string' ? audited.get(k.sha256) : undefined
        if (f && f.records !== null && typeof k.records === 'number') f.records += k.records
      }
    }
  }
  const present = new Map<string, FileRow>(listFiles(db).map((f) => [f.sha256, f]))
  let markers: number | null = 0
  for (const [sha256, a] of audited) {
    const what = a.kind === 'log' ? 'log file' : 'registry file'
    if (a.kind === 'canaries') markers = markers === null || a.added === null ? null : markers + a.added
    const f = present.get(sha256)
    if (!f || f.state !== 'complete' || f.kind !== a.kind) {
      problems.add(
        'audit', `${what} ${a.path}`,
        `audit entry ${a.seq} records its ingest (sha256 ${sha256.slice(0, 16)}…) and no audited drop removed it, but the case no longer holds it${a.kind === 'log' ? ' (nor its records and findings)' : ''}: removed outside crosstalk`,
        'files',
      )
      continue
    }
    const counts: Array<[string, number | null, number]> = [['records', a.records, f.records], ['bad lines', a.bad_lines, f.bad_lines]]
    if (a.kind === 'canaries') counts.splice(1, 1)
    for (const [label, was, now] of counts) {
      if (was !== null && was !== now) problems.add('counts', f.path, `the case says ${now} ${label}, its ingest (audit entry ${a.seq}) recorded ${was}`, 'files')
    }
  }
  const held = countCanaries(db)
  // A registry file no audit entry records is named as unaudited already; its markers cannot be counted against the log.
  const unauditedRegistry = [...present.values()].some((f) => f.kind === 'canaries' && !audited.has(f.sha256))
  if (markers !== null && !unauditedRegistry && markers !== held) {
    problems.add('registry', 'canary registry', `holds ${count(held, 'marker')}, but the audited registry ingests added ${markers}: markers were ${held < markers ? 'removed' : 'added'} outside crosstalk`)
  }
}

/**
 * The awareness time starts the 72 hours, so it moves only by an audited amendment. Its
 * history is replayed: the time the incident was opened with (kept in the audit entry of
 * `incident open`), then each amendment in order (each from the time before it, each with an
 * audit entry); the result must be the time the case holds.
 */
function checkIncident(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const incident = incidentAwareness(db)
  const amendments = listAmendmentRows(db).filter((a) => a.field === 'aware_at')
  if (!incident) {
    if (amendments.length > 0) problems.add('incident', 'incident', `${count(amendments.length, 'awareness amendment')} of an incident the case does not hold`)
    return
  }
  if (Date.parse(incident.aware_at) !== incident.aware_at_ms) {
    problems.add('incident', 'incident aware_at', `${incident.aware_at} is stored as ${new Date(incident.aware_at_ms).toISOString()} in milliseconds: one of them was edited`)
  }
  const opened = entries.find((e) => e.command === 'incident:open')
  const openedAt = opened ? summaryOf(opened).incident_opened : undefined
  let time: string | null = typeof openedAt === 'string' ? openedAt : null
  if (time === null) problems.add('unaudited', 'incident', 'no audit entry records its opening, so its original awareness time is unknown')
  const audited = entries.filter((e) => {
    const s = summaryOf(e)
    return e.command === 'incident:amend-awareness' || (e.command === 'incident:set' && Array.isArray(s.changed) && s.changed.includes('aware_at'))
  })
  amendments.forEach((a, i) => {
    if (time !== null && a.old_value !== time) {
      problems.add('incident', `awareness amendment ${i + 1} (${a.at})`, `moves aware_at from ${shown(a.old_value)}, but it was ${time} then`)
    }
    const entry = audited[i]
    const auditedTo = entry ? summaryOf(entry).aware_at : undefined
    if (!entry) problems.add('unaudited', `awareness amendment ${i + 1} (${a.at})`, 'no audit entry records it')
    else if (typeof auditedTo === 'string' && auditedTo !== a.new_value) {
      problems.add('incident', `awareness amendment ${i + 1} (${a.at})`, `moves aware_at to ${shown(a.new_value)}, but its audit entry ${entry.seq} recorded ${auditedTo}`)
    }
    time = a.new_value
  })
  if (audited.length > amendments.length) {
    problems.add('incident', 'awareness amendments', `the audit log records ${count(audited.length, 'amendment')}, the case holds ${amendments.length}: amendments were removed`)
  }
  if (time !== null && time !== incident.aware_at) {
    problems.add('incident', 'incident aware_at', `is ${incident.aware_at}, but its opening and amendments give ${time}: it was moved without an amendment`)
  }
  checkRole(db, entries, opened, problems)
}

/**
 * The role decides the duty and its clock, so it too is replayed: the role the incident was
 * opened with (in the audit entry of `incident open`; entries written before it was kept there
 * give none, and then only the changes are checked against their audit entries), then each
 * audited change. The result must be the role the case holds.
 */
function checkRole(db: CaseDb, entries: readonly AuditEntry[], opened: AuditEntry | undefined, problems: Problems): void {
  const incident = getIncidentRow(db)
  if (!incident) return
  const changes = listAmendmentRows(db).filter((a) => a.field === 'role')
  const openedAs = opened ? summaryOf(opened).role : undefined
  let role: string | null = typeof openedAs === 'string' ? openedAs : null
  const audited = entries.filter((e) => {
    const s = summaryOf(e)
    return e.command === 'incident:set' && Array.isArray(s.changed) && s.changed.includes('role')
  })
  changes.forEach((c, i) => {
    if (role !== null && c.old_value !== role) problems.add('incident', `role change ${i + 1} (${c.at})`, `changes the role from ${shown(c.old_value)}, but it was ${role} then`)
    const entry = audited[i]
    const auditedTo = entry ? summaryOf(entry).role : undefined
    if (!entry) problems.add('unaudited', `role change ${i + 1} (${c.at})`, 'no audit entry records it')
    else if (typeof auditedTo === 'string' && auditedTo !== c.new_value) {
      problems.add('incident', `role change ${i + 1} (${c.at})`, `changes the role to ${shown(c.new_value)}, but its audit entry ${entry.seq} recorded ${auditedTo}`)
    }
    role = c.new_value
  })
  if (audited.length > changes.length) {
    problems.add('incident', 'role changes', `the audit log records ${count(audited.length, 'role change')}, the case holds ${changes.length}: changes were removed`)
  }
  if (role !== null && role !== incident.role) {
    problems.add('incident', 'incident role', `is ${incident.role}, but its opening and recorded changes give ${role}: it was changed without an amendment`)
  }
}

/** Whether an entry's command can change the canary registry (and with it the registry version a scan ran under). */
function changesRegistry(e: AuditEntry): boolean {
  if (e.command === 'ingest:canaries' || e.command === 'drop' || e.command === 'ingest:findings') return true
  if (e.command !== 'triage') return false
  try {
    return (JSON.parse(e.args) as Record<string, unknown> | null)?.step === 'ingest canaries'
  } catch {
    return false
  }
}

/**
 * Each scan the audit log records must still be in the case as a finished run (no command
 * removes one): without it verify and the gates read the case as never scanned, and the
 * sightings as not re-derivable. The last one ran under the registry the case holds unless an
 * audited command changed the registry since; a registry version lowered by hand would have
 * verify skip the sightings as stale instead of comparing them.
 */
function checkAuditedScans(db: CaseDb, entries: readonly AuditEntry[], runs: readonly ScanRunRow[], problems: Problems): void {
  const byStart = new Map(runs.map((r) => [r.started_at, r]))
  let last: {entry: AuditEntry; run: ScanRunRow | undefined} | null = null
  for (const e of entries) {
    const s = summaryOf(e)
    if (typeof s.scanned_at !== 'string') continue
    const run = byStart.get(s.scanned_at)
    if (!run) problems.add('audit', `scan of ${s.scanned_at}`, `audit entry ${e.seq} records it, but the case holds no finished scan run begun then: removed outside crosstalk`, 'scans')
    last = {entry: e, run}
  }
  if (!last?.run || entries.slice(last.entry.seq).some(changesRegistry)) return
  const version = registryVersion(db)
  if (last.run.registry_version !== version) {
    problems.add('audit', `scan run ${last.run.id} (${last.run.started_at})`, `ran under registry version ${last.run.registry_version}, but the case's registry is at version ${version} and no audited command changed the registry since the scan (audit entry ${last.entry.seq})`, 'scans')
  }
}
