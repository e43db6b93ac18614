import {examineConflictingDuplicates} from '../detect/conflicting-duplicates.js'
import {detectionCoverage} from '../detect/coverage.js'
import {concernedTenants} from '../scope/retry-leaks.js'
import {exposureRows, exposureTenants} from '../scope/exposure.js'
import {loadExposureInputs} from '../scope/scope-data.js'
import type {CaseDb} from '../store/open-case.js'
import {computeCaseClock, type ClockResult} from './clock.js'
import {requireIncident} from './incident.js'
import {listNotifications} from './notifications.js'
import {exposureKnown} from '../scope/unscanned.js'
import {hasCanaries} from '../store/canaries.js'
import {orphanSightingCount} from '../store/findings.js'
import {noticeController} from './recipients.js'
import {correctionsOf, droppedEvidence, owedOf} from './facts.js'

/**
 * The case's clock as `crosstalk clock` and `status` show it: for a controller the 72 hours to
 * the authority; for a processor one clock per controller concerned (Art. 33(2)): on either side of the exposure, or of a leaking retry.
 */
export function loadCaseClock(db: CaseDb, now: Date): ClockResult {
  const incident = requireIncident(db)
  // Every customer concerned, a retry's too (leaking, or not read again): the same set the notices and the register count.
  const duplicates = incident.role === 'processor' ? examineConflictingDuplicates(db) : null
  const concerned = duplicates ? concernedTenants(exposureTenants(exposureRows(loadExposureInputs(db))), duplicates.leaking, duplicates.unexamined.map((u) => u.tenant_id)) : []
  const recorded = listNotifications(db)
  // A controller notified before stays in the clock when the exposure no longer shows it (after a drop or a rescan): it is owed a correction (facts.ts withdrawn_tenants).
  const withdrawn = duplicates ? [...new Set(recorded.map(noticeController).filter((r): r is string => r !== null && !concerned.includes(r)))] : []
  // It is no longer among the controllers affected: the clock lists it as owed a correction (as the register does), not as notified.
  const owed = owedOf(correctionsOf(withdrawn, recorded, droppedEvidence(db)))
  // As of `now` (clock --now): a notification recorded for a later time had not been sent yet.
  const sent = recorded.filter((n) => Date.parse(n.at) <= now.getTime())
  // Which controllers to notify is known only where detection covers the case, and where every
  // marker found in an answer could be attributed (no registry: an orphan's owner is not known).
  // Nor where responses were set aside as boilerplate (text seen in several customers' sessions):
  // each is not known to be free of another session's data, so whose data it carries, and which
  // controllers it concerns, are not known (an empty list said "no controller to notify").
  const coverage = incident.role === 'processor' ? detectionCoverage(db) : null
  const complete = coverage === null || coverage.complete
  const markers = incident.role !== 'processor' || exposureKnown(hasCanaries(db), orphanSightingCount(db))
  const setAside = coverage?.provenance_boilerplate_responses ?? 0
  return computeCaseClock(incident, sent, now, concerned, complete && markers && setAside === 0, !complete ? 'detection' : !markers ? 'markers' : 'boilerplate', setAside, owed)
}
