import type {CaseDb} from '../store/open-case.js'
import type {NotificationScope} from '../store/notifications.js'
import {lastFinishedScan} from '../store/scan-runs.js'
import {affectedTenants, buildFacts, factsExposureKnown, loadFactsInputs, type CaseFacts} from './facts.js'

// What a notification was based on: the scope as the case gave it when the notification was
// recorded (notify record), stored with it (migration 023). A later scan may grow the scope; a
// follow-up, a correction or the register says what was notified then beside what is known now,
// never today's figures as those notified.

export type {NotificationScope} from '../store/notifications.js'

/** The scope as these facts give it, with the scan it rests on: every figure null where the case gives none (never 0). */
export function notificationScopeOf(facts: CaseFacts, scan: {finished_at: string | null; sighting_rules: number | null; extract_scheme: string} | null): NotificationScope {
  const s = facts.scope
  const scanned = scan !== null && scan.finished_at !== null ? {finished_at: scan.finished_at, sighting_rules: scan.sighting_rules, extract_scheme: scan.extract_scheme} : null
  if (s === null) {
    return {known: false, detection_complete: facts.detection.complete, responses: null, sessions: null, source_tenants: null, recipient_tenants: null, controllers: null, data_subjects: null, records: null, first_seen: null, last_seen: null, scan: scanned}
  }
  return {
    known: true,
    // Detection incomplete, or markers no registry attributes: the figures were lower bounds then.
    detection_complete: facts.detection.complete && factsExposureKnown(facts),
    responses: s.exposure.responses,
    sessions: s.exposure.sessions,
    source_tenants: s.exposure.source_tenants,
    // A marker cut short naming none of several sessions (customers): "at least", kept with the notification.
    ...((s.exposure.sessions_low ?? 0) > s.exposure.sessions ? {sessions_low: s.exposure.sessions_low} : {}),
    ...((s.exposure.source_tenants_low ?? 0) > s.exposure.source_tenants ? {source_tenants_low: s.exposure.source_tenants_low} : {}),
    recipient_tenants: s.exposure.recipient_tenants,
    controllers: affectedTenants(facts).length,
    data_subjects: {low: s.data_subjects.low, high: s.data_subjects.high},
    records: {low: s.records.low, high: s.records.high},
    first_seen: s.exposure_first,
    last_seen: s.exposure_last,
    scan: scanned,
  }
}

/** The case's scope now, as a notification recorded now is based on it. */
export function notificationScopeNow(db: CaseDb, now: Date): NotificationScope {
  return notificationScopeOf(buildFacts(loadFactsInputs(db), now), lastFinishedScan(db))
}
