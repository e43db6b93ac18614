import {NOT_COMPARABLE_REMEDY, PII_ATTRIBUTED_REMEDY, DUPLICATE_LEAKS_REMEDY, type CaseFacts, remediesOf} from './facts.js'
import type {Phrases} from './phrases-en.js'

// "Nothing found" is a finding about what detection examined, never beyond it. What it does not
// cover, each a recorded fact of the case: a log source an ingest could not read (open, or
// dismissed with a reason: settled, still never searched), the part of a file not read whole, the bytes appended to a log after it was ingested,
// quarantined lines no rule could read (status --bad-lines: never judged), answers that decoded to no text, responses provenance set aside as boilerplate (text of 3 or
// more customers' sessions: a leak that reached that many is among it), retries logged under
// a counted request id whose answer carries another session's marker, those that could not be
// read again (whose marker they carry is not known), and marker-shaped tokens in answers that a
// case with no canary registry cannot attribute to any session (orphans). Every document that says
// none was found reads this one list: it says none only where the list is empty, and otherwise
// names each exception (an open item where something can still be done).

export type NoneFoundGapKind = 'pii_attributed' | 'no_request_text' | 'not_comparable' | 'unread_sources' | 'not_read_whole' | 'responses_without_text' | 'boilerplate' | 'duplicate_leaks' | 'duplicates_not_examined' | 'dismissed_sources' | 'no_registry' | 'bad_lines' | 'grown_originals'

export interface NoneFoundGap {
  kind: NoneFoundGapKind
  /** what is not covered, as a fact (said beside "none found") */
  statement: string
  /** what is not covered and how to cover it (the open item) */
  item: string
  record_with: string | null
  /** false for a source dismissed with a reason: settled by the responder, and still not searched */
  open: boolean
}

/** What a "none found" over this case does not cover, in one order every document follows. */
export function noneFoundGaps(facts: Pick<CaseFacts, 'totals' | 'detection' | 'spark_findings'> & {scope?: CaseFacts['scope']}, P: Phrases): NoneFoundGap[] {
  const t = facts.totals
  const gaps: NoneFoundGap[] = []
  // A personal-data finding attributed to another session is another session's data in an answer
  // (matched by value): a finding, never covered by "none", whatever else was searched.
  const piiOnly = facts.scope?.pii_attributed_only_responses ?? 0
  if (piiOnly > 0) gaps.push({kind: 'pii_attributed', statement: P.piiAttributedOnly(piiOnly), item: P.open.piiAttributedOnly(piiOnly), record_with: PII_ATTRIBUTED_REMEDY, open: true})
  const orphans = t.registry_files === 0 ? (facts.scope?.orphan_sightings ?? 0) : 0
  if (orphans > 0) gaps.push({kind: 'no_registry', statement: P.orphansWithoutRegistry(orphans), item: P.open.orphansWithoutRegistry(orphans), record_with: remediesOf(facts).no_registry, open: true})
  const unread = t.unread_sources ?? []
  if (unread.length > 0) gaps.push({kind: 'unread_sources', statement: P.unreadSources(unread), item: P.open.unreadSources(unread), record_with: remediesOf(facts).unread_sources, open: true})
  const partial = t.files_not_read_whole ?? []
  if (partial.length > 0) gaps.push({kind: 'not_read_whole', statement: P.notReadWhole(partial), item: P.open.notReadWhole(partial), record_with: remediesOf(facts).not_read_whole, open: true})
  // A log appended to after ingest: the bytes added were never read.
  const grown = t.files_grown ?? []
  if (grown.length > 0) gaps.push({kind: 'grown_originals', statement: P.grownOriginals(grown), item: P.open.grownOriginals(grown), record_with: remediesOf(facts).grown, open: true})
  // Quarantined lines (no rule could read them) were never judged: any one may be an answer carrying
  // another session's data. There is no recorded acceptance of them in the case (--accept-bad-lines
  // lets one --fail-on-leak run pass over them, and settles nothing), so the gap stays open.
  const bad = t.bad_lines ?? 0
  if (bad > 0) gaps.push({kind: 'bad_lines', statement: P.badLines(bad), item: P.open.badLines(bad), record_with: remediesOf(facts).bad_lines, open: true})
  const withoutText = t.responses_without_text ?? 0
  if (withoutText > 0) {
    gaps.push({kind: 'responses_without_text', statement: P.noResponseText(withoutText), item: P.open.responsesWithoutText(withoutText), record_with: remediesOf(facts).responses_without_text, open: true})
  }
  // Prompts not logged: the verbatim-text search had nothing of theirs to compare the answers with.
  const noPrompt = t.records_without_request_text ?? 0
  if (noPrompt > 0) gaps.push({kind: 'no_request_text', statement: P.noRequestText(noPrompt, t.records), item: P.open.noRequestText(noPrompt, t.records), record_with: remediesOf(facts).no_request_text, open: true})
  // Texts the verbatim-text search could not compare (a script written without spaces), counted by the scan.
  const notComparable = facts.detection.provenance_not_comparable_responses ?? 0
  if (notComparable > 0) gaps.push({kind: 'not_comparable', statement: P.notComparable(notComparable), item: P.open.notComparable(notComparable), record_with: NOT_COMPARABLE_REMEDY, open: true})
  const aside = facts.detection.provenance_boilerplate_responses ?? 0
  const tenants = facts.detection.provenance_parameters?.boilerplate_tenants
  if (aside > 0 && tenants !== undefined) {
    gaps.push({kind: 'boilerplate', statement: P.boilerplateSetAside(aside, tenants), item: P.open.boilerplateResponses(aside, tenants), record_with: `crosstalk provenance --boilerplate-tenants N (N above ${tenants})`, open: true})
  }
  const retries = t.duplicate_leaks ?? []
  if (retries.length > 0) gaps.push({kind: 'duplicate_leaks', statement: P.duplicateLeaks(retries), item: P.open.duplicateLeaks(retries), record_with: DUPLICATE_LEAKS_REMEDY, open: true})
  const unexamined = t.duplicate_lines_not_examined ?? 0
  if (unexamined > 0) {
    gaps.push({kind: 'duplicates_not_examined', statement: P.duplicatesNotExamined(unexamined), item: P.open.duplicatesNotExamined(unexamined, t.duplicate_lines_not_examined_of_tenant ?? null), record_with: remediesOf(facts).duplicates_not_examined, open: true})
  }
  const dismissed = t.dismissed_sources ?? []
  if (dismissed.length > 0) gaps.push({kind: 'dismissed_sources', statement: P.dismissedSources(dismissed), item: P.dismissedSources(dismissed), record_with: null, open: false})
  return gaps
}

/**
 * The value of a field that would read "none" (a register row, a form field) where detection
 * finished and found nothing: "none" over every log only where nothing is excepted; the first
 * exception still open as the thing to complete; else "none in what was searched" with what was not.
 */
export function noneFoundValue(gaps: readonly NoneFoundGap[], P: Phrases): {value: string; open: boolean; gap: NoneFoundGap | null} {
  const open = gaps.find((g) => g.open)
  if (open) return {value: P.toComplete(open.item), open: true, gap: open}
  if (gaps.length > 0) return {value: `${P.noneFoundInSearched} ${gaps.map((g) => g.statement).join(' ')}`, open: false, gap: null}
  return {value: P.noneFound, open: false, gap: null}
}
