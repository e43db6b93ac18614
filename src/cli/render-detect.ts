import type {PiiResult, ProvenanceResult, SightingsResult} from '../detect/list.js'
import type {ScanResult} from '../detect/scan-case.js'
import {safeLine, safeText, safeId} from '../util/sanitize.js'
import {count} from './plural.js'
import {clip, displayWidth, idNames, padEndWidth} from './text-width.js'

// Human renderings of detection results. Everything that came from a log goes through
// safeLine; markers are shortened unless asked for (they identify sessions).

export function truncateMarker(marker: string): string {
  const m = /^(CANARY-[0-9a-fA-F]{4})[0-9a-fA-F]+$/.exec(marker)
  if (m) return `${m[1]}…`
  return marker.length > 10 ? `${marker.slice(0, 8)}…` : marker
}

/** Widest a table cell gets: a 100 KB tenant id must not pad every row of the table to its width. */
export const CELL_MAX = 72

/** `ids`: columns of ids already shortened by idCells, never cut again (an id shown whole is whole because a cut one would read as another). */
export function table(columns: readonly string[], rows: ReadonlyArray<readonly string[]>, ids: readonly number[] = []): string {
  const clipped = rows.map((r) => r.map((c, i) => (ids.includes(i) ? c : clip(c, CELL_MAX))))
  const widths = columns.map((c, i) => Math.max(displayWidth(c), ...clipped.map((r) => displayWidth(r[i] ?? ''))))
  const line = (cells: readonly string[]): string => cells.map((c, i) => padEndWidth(c, widths[i]!)).join('  ').trimEnd()
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...clipped.map(line)].join('\n')
}

/** Longest tenant and session id in a `tenant/session` cell (together within CELL_MAX). */
const TENANT_MAX = 40
const SESSION_MAX = CELL_MAX - TENANT_MAX - 1

/**
 * `tenant/session` cells and request ids of one table: each id cut in the middle (their
 * distinguishing end kept), never so that two different ids read alike (idNames).
 */
function idCells(rows: ReadonlyArray<{request_id: string; tenants: Array<string | null>; sessions: Array<string | null>; requests?: Array<string | null>}>) {
  const present = (xs: Array<string | null | undefined>): string[] => xs.filter((x): x is string => typeof x === 'string').map((x) => safeLine(x))
  const tenant = idNames(present(rows.flatMap((r) => r.tenants)), TENANT_MAX)
  const session = idNames(present(rows.flatMap((r) => r.sessions)), SESSION_MAX)
  const request = idNames(present(rows.flatMap((r) => [r.request_id, ...(r.requests ?? [])])), CELL_MAX)
  return {
    who: (t: string, s: string | null): string => `${tenant(safeId(t))}/${s === null ? '' : session(safeLine(s))}`,
    request: (id: string): string => request(safeLine(id)),
  }
}

export function renderSightings(rows: SightingsResult, options: {showMarkers: boolean; staleClasses?: boolean}): string {
  if (rows.length === 0) return 'No sightings.'
  const ids = idCells(rows.map((s) => ({request_id: s.request_id, tenants: [s.recipient_tenant, s.source_tenant], sessions: [s.recipient_session, s.source_session]})))
  // Where the sightings span several log sources, a request id may be in more than one: each row names its log source (show --source takes it).
  const sources = new Set(rows.map((s) => s.log_source)).size > 1
  return table(
    ['ts', 'request_id', 'class', 'marker', 'partial', 'recipient', 'source', ...(sources ? ['log source'] : [])],
    rows.map((s) => [
      s.ts,
      ids.request(s.request_id),
      // A class the last scan decided against another registry or earlier rules is marked in each row, never shown as current.
      options.staleClasses ? `${s.class} (stale)` : s.class,
      safeLine(options.showMarkers ? s.marker : truncateMarker(s.marker)),
      s.partial ? 'yes' : '',
      ids.who(s.recipient_tenant, s.recipient_session),
      s.possible_sources.length > 0
        ? `ambiguous, one of: ${s.possible_sources.map((c) => ids.who(c.tenant, c.session)).join(', ')}`
        : s.source_tenant === null ? '-' : ids.who(s.source_tenant, s.source_session),
      ...(sources ? [safeLine(s.log_source)] : []),
    ]),
    [1, 5, 6],
  )
}

/** Answers in the case, and those of them that decoded to no text (never examined). */
export interface TextCoverage {
  answers: number
  withoutText: number
}

/** What the listing cannot speak for: answers with no text were never compared with anything. */
export function unexaminedLine(c: TextCoverage): string | null {
  return c.withoutText > 0 ? `${count(c.withoutText, 'response')} of ${c.answers} had no response text and ${c.withoutText === 1 ? 'was' : 'were'} not examined (crosstalk status lists the files).` : null
}

export function renderProvenance(rows: ProvenanceResult, coverage: TextCoverage = {answers: 0, withoutText: 0}): string {
  const unexamined = unexaminedLine(coverage)
  if (rows.length === 0) {
    return unexamined === null
      ? 'No response repeats an earlier other session\'s text.'
      : `No response among the ${count(coverage.answers - coverage.withoutText, 'response')} that had text repeats an earlier other session's text; ${unexamined}`
  }
  const ids = idCells(rows.map((p) => ({request_id: p.request_id, requests: [p.source_request_id], tenants: [p.recipient_tenant, p.source_tenant], sessions: [p.recipient_session, p.source_session]})))
  const out = [
    table(
      ['ts', 'request_id', 'recipient', 'source_request_id', 'source', 'matched', 'words', 'overlap_sha256'],
      rows.map((p) => [
        p.ts,
        ids.request(p.request_id),
        ids.who(p.recipient_tenant, p.recipient_session),
        ids.request(p.source_request_id),
        p.source_status === 'ambiguous' ? `ambiguous: ${p.source_tenants} tenants` : p.source_status === 'unknown' ? 'unknown' : ids.who(p.source_tenant, p.source_session),
        p.source_order === 'unknown' ? `${p.matched}*` : p.matched,
        String(p.overlap_words),
        p.overlap_sha256.slice(0, 12),
      ]),
      [1, 2, 3, 4],
    ),
  ]
  const ambiguous = rows.filter((p) => p.source_status === 'ambiguous').length
  if (ambiguous > 0) {
    out.push(
      `${count(ambiguous, 'response')}: the same text is in the prompts of several tenants (source ambiguous, the count of candidate tenants shown); source_request_id is one of them, not the source.`,
    )
  }
  const unknown = rows.filter((p) => p.source_status === 'unknown').length
  if (unknown > 0) {
    out.push(
      `${count(unknown, 'response')}: source unknown; the text is found only in other answers whose prompts were not logged (such an answer may have received it too); source_request_id is where it was seen.`,
    )
  }
  const unordered = rows.filter((p) => p.source_order === 'unknown').length
  if (unordered > 0) {
    out.push(
      `* ${count(unordered, 'source')} ${unordered === 1 ? 'is a prompt' : 'are prompts'} logged after the response: the logs give when a response was returned, not when its request arrived, so whether the source was in flight before the response cannot be established.`,
    )
  }
  for (const p of rows) if (p.overlap_text !== undefined) out.push(`\n${safeLine(p.request_id)}:\n  ${safeText(p.overlap_text)}`)
  if (unexamined !== null) out.push('', unexamined)
  return out.join('\n')
}

export function renderPii(rows: PiiResult, coverage: TextCoverage = {answers: 0, withoutText: 0}): string {
  const unexamined = unexaminedLine(coverage)
  if (rows.length === 0) {
    return unexamined === null
      ? 'No personal data that a session never sent.'
      : `No personal data that a session never sent in the ${count(coverage.answers - coverage.withoutText, 'response')} that had text; ${unexamined}`
  }
  const ids = idCells(rows.map((p) => ({request_id: p.request_id, requests: [p.source_request_id], tenants: [p.recipient_tenant, p.source_tenant], sessions: [p.recipient_session, p.source_session]})))
  return table(
    ['ts', 'request_id', 'kind', 'value', 'recipient', 'source_request_id', 'source'],
    rows.map((p) => [
      p.ts,
      ids.request(p.request_id),
      p.kind,
      p.value === undefined ? `ref:${p.value_ref}` : safeLine(p.value),
      ids.who(p.recipient_tenant, p.recipient_session),
      p.source_request_id === null ? '-' : ids.request(p.source_request_id),
      p.source_tenant === null ? '-' : ids.who(p.source_tenant, p.source_session),
    ]),
    [1, 4, 5, 6],
  ) + (unexamined === null ? '' : `\n\n${unexamined}`)
}

/** Why a scan of a case with no log record knows no count (as `status` says it). */
const SEARCHED_NOTHING = 'no record was examined (the case holds no log record, so the scan searched nothing)'

export function renderScan(r: ScanResult): string {
  const c = r.sightings_by_class
  // A full re-scan re-classifies records scanned before; on a first scan every record is new,
  // and there is nothing to re-classify.
  const rescanned = r.full_rescan ? r.records_scanned - r.records_new : 0
  const withoutText = r.unreadable_files.reduce((a, f) => a + (f.state === 'complete' ? (f.no_response_text ?? 0) : 0), 0)
  const lines = [
    `Scanned ${r.records_scanned} of ${count(r.records_total, 'record')} (${r.records_new} new${rescanned ? `, ${rescanned} re-classified: the canary registry or the detection rules changed since the last scan` : ''}) against ${count(r.canaries, 'canary', 'canaries')}.`,
    // Nothing searched (no log record in the case): no count is known, not even 0.
    r.records_total === 0
      ? `Sightings: not known: ${SEARCHED_NOTHING}.`
    // With no registry every marker found is an orphan; the other classes are not known, not 0.
    : r.canaries === 0
      ? `Sightings: ${r.sightings}, every one an orphan: a marker-shaped token registered to nobody, since the case holds no canary registry (own, echo, cross_session and cross_tenant not known).`
      : `Sightings: ${r.sightings} (own ${c.own}, echo ${c.echo}, cross_session ${c.cross_session}, cross_tenant ${c.cross_tenant}, orphan ${c.orphan}; partial ${r.partial_sightings}).`,
    r.records_total === 0
      ? `Contaminated responses: not known: ${SEARCHED_NOTHING}.`
    // With no registry no marker can be attributed: the count is not a finding.
    : r.canaries === 0
      ? 'Contaminated responses (canary markers): not known: the case holds no canary registry, so no marker can be attributed to a session (crosstalk ingest canaries FILE).'
      : `Contaminated responses: ${r.contaminated_responses} (cross-tenant ${r.cross_tenant_responses}, cross-session ${r.cross_session_responses}).`,
    `Provenance: ${r.records_total === 0 ? 'not known: no record was examined' : r.provenance_matches === null ? 'skipped' : `${count(r.provenance_matches, 'response')} ${r.provenance_matches === 1 ? 'repeats' : 'repeat'} an earlier other session's text${withoutText > 0 ? ` (${count(withoutText, 'response')} had no text and ${withoutText === 1 ? 'was' : 'were'} not examined)` : ''}${
      (r.provenance_stats?.boilerplate_responses ?? 0) > 0 ? `; ${count(r.provenance_stats!.boilerplate_responses, 'response')} set aside as boilerplate (crosstalk provenance says how to review them)` : ''}${
      (r.provenance_not_comparable ?? 0) > 0 ? `; ${count(r.provenance_not_comparable!, 'response')} in a script written without spaces (Chinese, Japanese, Thai, ...) could not be compared and ${r.provenance_not_comparable === 1 ? 'was' : 'were'} not examined for verbatim text` : ''}${
      r.no_request_text !== undefined && r.no_request_text > 0 ? `; ${r.no_request_text >= r.records_total ? 'no prompt was logged, so no leaked prompt could be looked for' : `${count(r.no_request_text, 'record')} had no request text, so ${r.no_request_text === 1 ? 'its prompt' : 'their prompts'} could not be looked for in other answers`}` : ''}`}.`,
    `PII never sent by the recipient: ${r.pii_findings === null || r.pii_attributed === null ? 'not known: no record was examined' : `${r.pii_findings} (${r.pii_attributed} attributed)`}.`,
    `At risk (status 200, prompt >= pool): ${r.pool_tokens === null ? 'n/a (no --pool-tokens)' : r.at_risk === null ? `unknown at pool ${r.pool_tokens}: no record gives both its HTTP status and its prompt size` : `${r.at_risk} at pool ${r.pool_tokens}`}.`,
    `Time: ${r.timings_ms.total} ms (markers ${r.timings_ms.markers}, provenance ${r.timings_ms.provenance}, pii ${r.timings_ms.pii}).`,
  ]
  return lines.join('\n')
}
