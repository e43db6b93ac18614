import {EN, type ExposureSide, type Phrases} from './phrases-en.js'
import type {CaseFacts, TenantExposure} from './facts.js'
import {FR} from './phrases-fr.js'
import type {Language} from './labels.js'

// One phrase table per language (phrases-en.ts, phrases-fr.ts), the same keys in each; the
// category labels are in labels.ts. A document is written in one language from end to end.

export {CATEGORY_LABELS, categoryLabel, type Language} from './labels.js'
export type {ExposureSide, Phrases} from './phrases-en.js'

export const LANGUAGES = ['en', 'fr'] as const

export const PHRASES: Record<Language, Phrases> = {en: EN, fr: FR}

/** "7 to 19", "7", or "at least 7 (upper bound not yet known)"; `approx` adds the word. */
export function formatRange(r: {low: number; high: number | null} | null, lang: Language, unknown: string, approx = false): string {
  return r ? PHRASES[lang].range(r, approx) : unknown
}

/**
 * A data-subject or record range as a draft states it: where the exposure is not known
 * (exposureKnown false) an unbounded low of 0 is no finding, said as not known; a higher low
 * already reads "at least".
 */
export function rangeText(P: Phrases, r: {low: number; high: number | null}, exposureKnown: boolean, approx = false): string {
  return !exposureKnown && r.high === null && r.low === 0 ? P.exposureUnknown.notKnown : P.range(r, approx)
}

/** What of a controller's data reached other sessions, as the phrases state it; `atLeast` where the exposure is not known (exposureKnown false): each count a lower bound. */
export function leakedSide(t: TenantExposure, canaries: boolean, atLeast = false): ExposureSide {
  return {
    ...(atLeast ? {atLeast} : {}),
    responses: t.responses_carrying_its_data, by_canary: t.leaked_by_canary, by_text_only: t.provenance_only_leaked,
    // A response whose source session (one of this tenant's) is not named is at least one session, never none.
    sessions: Math.max(t.leaked_sessions.length, (t.leaked_sessions_not_named ?? 0) > 0 ? 1 : 0),
    ...((t.leaked_sessions_not_named ?? 0) > 0 ? {sessionsNotNamed: t.leaked_sessions_not_named} : {}),
    ownSessions: t.recipient_sessions_same_tenant, otherSessions: t.recipient_sessions_other_tenants, others: t.recipient_tenants_other, first: t.first_leaked, last: t.last_leaked, canaries,
  }
}

/** What a controller's users were served of other sessions' data, as the phrases state it. */
export function receivedSide(t: TenantExposure, canaries: boolean, atLeast = false): ExposureSide {
  return {
    ...(atLeast ? {atLeast} : {}),
    responses: t.received_foreign_responses, by_canary: t.received_by_canary, by_text_only: t.received_by_text_only, sessions: t.receiving_sessions.length,
    ownSessions: t.source_sessions_same_tenant, otherSessions: t.source_sessions_other_tenants, others: t.received_from_tenants, first: t.first_received, last: t.last_received, canaries,
    notNamed: t.received_source_not_named,
    ...((t.received_source_customer_not_named ?? 0) > 0 ? {customerNotNamed: t.received_source_customer_not_named} : {}),
  }
}

/**
 * "No leak found", said only of what was examined: answers that decoded to no text were never
 * searched for markers or copied text, so where there are some the statement names them, and
 * where no answer had text it says nothing could be examined.
 */
export function noLeakStatement(P: Phrases, totals: CaseFacts['totals'], detection?: CaseFacts['detection'], scope?: {orphan_sightings: number; pii_attributed_only_responses?: number} | null): string {
  const n = totals.responses_without_text ?? 0
  const answers = totals.answers ?? totals.records
  // With no canary registry a marker found in an answer is nobody's: only verbatim text was matched, and the markers' owners are not known.
  const orphans = totals.registry_files === 0 ? (scope?.orphan_sightings ?? 0) : 0
  // Personal data another session sent first, in an answer (matched by value): another session's data all the same; said, never "none".
  const piiOnly = scope?.pii_attributed_only_responses ?? 0
  const none = piiOnly > 0
    ? `${orphans > 0 ? P.noVerbatimExposure : P.noMarkerOrTextExposure} ${P.piiAttributedOnly(piiOnly)}${orphans > 0 ? ` ${P.orphansWithoutRegistry(orphans)}` : ''}`
    : orphans > 0 ? `${P.noVerbatimExposure} ${P.orphansWithoutRegistry(orphans)}` : P.noExposure
  const base = totals.records === 0 ? P.noResponsesInLogs : n === 0 ? none : n >= answers ? P.nothingExamined(n) : P.noExposureOfExamined(answers - n, n)
  // Responses set aside as boilerplate are said with it: the rule is never an all-clear over them.
  const aside = detection?.provenance_boilerplate_responses ?? 0
  const withAsideOnly = aside > 0 && detection?.provenance_parameters ? `${base} ${P.boilerplateSetAside(aside, detection.provenance_parameters.boilerplate_tenants)}` : base
  // Nor over prompts the logs do not hold (nothing of theirs to compare), nor over texts the verbatim-text search could not compare.
  const noPrompt = totals.records > 0 ? (totals.records_without_request_text ?? 0) : 0
  const withPrompts = noPrompt > 0 ? `${withAsideOnly} ${P.noRequestText(noPrompt, totals.records)}` : withAsideOnly
  const notComparable = detection?.provenance_not_comparable_responses ?? 0
  const withAside = notComparable > 0 ? `${withPrompts} ${P.notComparable(notComparable)}` : withPrompts
  // Nor over a log source an ingest could not read: it was never searched.
  const unread = totals.unread_sources ?? []
  const withUnread = unread.length > 0 ? `${withAside} ${P.unreadSources(unread)}` : withAside
  // Nor over the part of a file kept but not read whole.
  const partial = totals.files_not_read_whole ?? []
  const withPartialOnly = partial.length > 0 ? `${withUnread} ${P.notReadWhole(partial)}` : withUnread
  // Nor over the bytes appended to a log since it was ingested.
  const grown = totals.files_grown ?? []
  const withGrown = grown.length > 0 ? `${withPartialOnly} ${P.grownOriginals(grown)}` : withPartialOnly
  // Nor over quarantined lines (never judged), nor over a retry that differs and could not be read again.
  const bad = totals.bad_lines ?? 0
  const withBad = bad > 0 ? `${withGrown} ${P.badLines(bad)}` : withGrown
  const unexamined = totals.duplicate_lines_not_examined ?? 0
  const withPartial = unexamined > 0 ? `${withBad} ${P.duplicatesNotExamined(unexamined)}` : withBad
  // Nor where a retry logged under a request id already counted carried another session's marker: a response served, in no figure.
  const retries = totals.duplicate_leaks ?? []
  const withRetries = retries.length > 0 ? `${withPartial} ${P.duplicateLeaks(retries)}` : withPartial
  // Nor over a source dismissed unread (ingest dismiss): settled, never searched; named with its recorded reason.
  const dismissed = totals.dismissed_sources ?? []
  return dismissed.length > 0 ? `${withRetries} ${P.dismissedSources(dismissed)}` : withRetries
}
