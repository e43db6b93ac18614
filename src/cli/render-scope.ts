import {describeGap, nothingSearched, nothingSearchedStep} from '../detect/coverage.js'
import {notReadSentence, type NotRead} from '../detect/not-read.js'
import type {CanaryFigures, ScopeResult} from '../scope/compute-scope.js'
import {exposureKnown, type RegistrylessTenantView, type UnscannedScope} from '../scope/unscanned.js'
import type {TenantViewResult} from '../scope/tenant-view.js'
import type {TimelineResult} from '../scope/build-timeline.js'
import {count} from './plural.js'
import {quoted, safeLine, safeId} from '../util/sanitize.js'
import {clip, displayWidth, idNames, padEndWidth, padStartWidth, WIDTH, wrap} from './text-width.js'

// Plain-text tables for the terminal and the row sets behind --csv. Tenant ids, node
// names and request ids come from the logs, so every one goes through safeLine. The text
// views read at any size: at most WIDTH characters a line (names clipped, prose wrapped),
// the top flows instead of a tenant x tenant matrix; --csv and --json carry everything.

/** Flows listed in the terminal; the rest are counted, and listed by --csv / --json. */
export const TOP_FLOWS = 10
/** Longest tenant or node name in a table cell. */
const NAME = 40

export interface CsvTable {
  columns: string[]
  rows: Array<Record<string, unknown>>
}

/**
 * A console table: each column as wide as its widest cell in terminal columns (displayWidth), the
 * first `textColumns` left-aligned under their headers, the others (figures) right-aligned.
 */
function table(header: string[], rows: string[][], textColumns = 1): string {
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))))
  const line = (cells: string[]) => cells.map((c, i) => (i < textColumns ? padEndWidth(c, widths[i]!) : padStartWidth(c, widths[i]!))).join('  ').trimEnd()
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
const n = (v: number | null) => (v === null ? '-' : String(v))
const t = (v: string | null) => v ?? '-'
/**
 * Decode-node names of one view, cut in the middle as tenants are (idNames): pool names share a
 * long prefix and differ at the end (`...-rack-17-decode-host-01`, `-02`), and cut at the end two
 * nodes with different counts read as one.
 */
const nodeNames = (nodes: Iterable<string | null>): ((v: string | null) => string) => {
  const shown = idNames([...nodes].filter((v): v is string => v !== null).map((v) => safeLine(v)), NAME)
  return (v) => (v === null ? '(unknown)' : shown(safeLine(v)))
}
/** Tenant names of one view, each cut in the middle to NAME, never so that two tenants read alike (idNames). */
const tenantNames = (tenants: Iterable<string>): ((v: string) => string) => {
  const shown = idNames([...tenants].map((v) => safeId(v)), NAME)
  return (v) => shown(safeId(v))
}
const name = (v: string) => tenantNames([v])(v)

/** The scope of a case never scanned: what detection would count is said to be unknown, not 0. */
export function renderUnscannedScope(r: UnscannedScope): string {
  const unknown = 'unknown'
  const rows: string[][] = [
    ['contaminated responses', unknown],
    ['exposed sessions', unknown],
    ['exposed tenants', unknown],
    ['recipient tenants', unknown],
    ['first / last seen', unknown],
    [
      'at-risk responses',
      r.pool_tokens === null ? '- (give --pool-tokens)'
        : r.at_risk_responses === null ? `unknown (${n(r.at_risk_unknown_records)} ${r.at_risk_unknown_records === 1 ? 'record' : 'records'} whose status or prompt size is not recorded)`
          : `${n(r.at_risk_responses)}${r.at_risk_unknown_records ? ` (and ${n(r.at_risk_unknown_records)} ${r.at_risk_unknown_records === 1 ? 'record' : 'records'} whose status or prompt size is not recorded: whether at risk unknown)` : ''}`,
    ],
    ['data subjects, records concerned', unknown],
  ]
  return ['Scope', table(['figure', 'value'], rows), '', wrap(`${upperFirst(describeGap(r.detection))}: nothing above is zero, it is not known yet. Run \`${nothingSearchedStep(r.detection)}\`.`)].join('\n')
}

/** "N responses whose source session could not be named", the reason the exposed sessions are a lower bound. */
function notNamedResponses(k: number): string {
  return `${k === 1 ? "1 response's" : `${k} responses'`} source session could not be named`
}

/** The scope on the console; without a canary registry (`registry: false`) the markers' figures read "unknown", never 0. */
export function renderScope(r: ScopeResult, options: {registry?: boolean; provenance?: boolean; orphans?: boolean} = {}): string {
  const registry = options.registry ?? true
  // Provenance not covering the case: every figure that counts verbatim text is unknown, and so is every total built on it.
  const known = options.provenance ?? true
  const m = (v: number | null): string => (registry ? n(v) : 'unknown')
  const mt = (v: string | null): string => (registry ? t(v) : 'unknown')
  const p = (v: number | null): string => (known ? n(v) : 'unknown')
  const out: string[] = []
  out.push('Scope')
  out.push(
    table(
      ['figure', 'value'],
      [
        ['contaminated responses', m(r.contaminated_responses)],
        ['  cross-tenant', m(r.cross_tenant_responses)],
        ['  cross-session', m(r.cross_session_responses)],
        // Said only where it applies: the echo check had no prompt to read for these.
        ...(registry && (r.contaminated_without_prompt === null ? (r.contaminated_responses ?? 0) > 0 : r.contaminated_without_prompt > 0)
          ? [['  no prompt logged (echo not ruled out)', r.contaminated_without_prompt === null ? 'unknown (evidence unreadable)' : n(r.contaminated_without_prompt)]]
          : []),
        // Said only where it applies: the echo check read these prompts in part (request members not read).
        ...(registry && (r.contaminated_prompt_in_part === null ? (r.contaminated_responses ?? 0) > 0 : r.contaminated_prompt_in_part > 0)
          ? [['  prompt read in part (echo not ruled out)', r.contaminated_prompt_in_part === null ? 'unknown (evidence unreadable)' : n(r.contaminated_prompt_in_part)]]
          : []),
        // A retry logged under a request id already counted: a response served that the figures above leave out (the request's first line is its record).
        ...(r.duplicate_leaks_not_counted.length > 0 ? [['  NOT COUNTED above: repeated request ids carrying another session\'s marker', n(r.duplicate_leaks_not_counted.length)]] : []),
        ...(r.duplicate_lines_not_examined > 0 ? [['  NOT EXAMINED: repeated request ids whose line differs and could not be read again', n(r.duplicate_lines_not_examined)]] : []),
        // A marker cut short of several sessions' markers names no session: the named count beside the lower bound, never "0".
        ['exposed sessions', (r.exposed_session_not_named ?? 0) > 0 && registry ? `at least ${n(r.exposed_sessions_low ?? r.exposed_sessions)} (${n(r.exposed_sessions)} named; ${notNamedResponses(r.exposed_session_not_named!)})` : m(r.exposed_sessions)],
        ['exposed tenants', (r.exposed_tenants_low ?? r.exposed_tenants) > r.exposed_tenants && registry ? `at least ${n(r.exposed_tenants_low!)} (${n(r.exposed_tenants)} named)` : m(r.exposed_tenants)],
        ['recipient tenants', m(r.recipient_tenants)],
        ['first seen', mt(r.first_seen)],
        ['last seen', mt(r.last_seen)],
        [
          'at-risk responses',
          r.pool_tokens === null ? '- (give --pool-tokens)'
            : r.at_risk_responses === null ? `unknown (${n(r.at_risk_unknown_records)} ${r.at_risk_unknown_records === 1 ? 'record' : 'records'} whose status or prompt size is not recorded)`
              : `${n(r.at_risk_responses)}${r.at_risk_unknown_records ? ` (and ${n(r.at_risk_unknown_records)} ${r.at_risk_unknown_records === 1 ? 'record' : 'records'} whose status or prompt size is not recorded: whether at risk unknown)` : ''}`,
        ],
        // Said where a window was given (--advertised-tokens, or the one the scan recorded).
        ...(r.advertised_tokens === null ? [] : [[`  at or over the advertised ${r.advertised_tokens}-token window`, r.over_advertised_responses === null ? 'unknown' : n(r.over_advertised_responses)]]),
        ['provenance-attributed responses', p(r.provenance_responses)],
        ['  without a canary sighting', p(r.provenance_only_responses)],
        // A registry changed since the scan leaves which markers are registered to nobody unknown too (`orphans: false`).
        ['orphan markers seen', options.orphans === false ? 'unknown' : n(r.orphan_sightings)],
      ],
    ),
  )
  if (r.duplicate_leaks_not_counted.length > 0) out.push('', wrap(duplicateLeaksNote(r.duplicate_leaks_not_counted)))
  // Where the echo check read a prompt in part: which request members were not read, and where to look first.
  if (registry && r.prompt_in_part !== null && (r.contaminated_prompt_in_part ?? 0) > 0) {
    const {members, first} = r.prompt_in_part
    const names = members.length > 5 ? `${members.slice(0, 5).join(', ')}, and ${members.length - 5} more` : members.join(', ')
    out.push('', wrap(`Prompt read in part: ${n(r.contaminated_prompt_in_part!)} contaminated ${r.contaminated_prompt_in_part === 1 ? "response's request holds" : "responses' requests hold"} what this release does not read (${safeLine(names)}), the first on line ${first.line} of log file #${first.file_id}: whether the user sent the marker there (an echo) is not known, so ${r.contaminated_prompt_in_part === 1 ? 'it stays' : 'they stay'} counted as contamination.`))
  }
  const e = r.exposure
  // No registry and a marker in an answer (an orphan): it may be another session's, so the totals are not known (scope --json: null).
  const x = (v: number): string => (!registry && r.orphan_sightings > 0 ? 'unknown' : p(v))
  out.push('', 'Exposure (canary and verbatim text together: the numbers the drafts and notices use)')
  out.push(
    table(
      ['figure', 'value'],
      [
        ['responses carrying another session\'s data', x(e.responses)],
        ['  with a canary marker', m(e.by_canary)],
        ['  by verbatim text only', x(e.by_text_only)],
        ['sessions whose data reached someone else', (e.session_not_named ?? 0) > 0 && x(0) !== 'unknown' ? `at least ${p(e.sessions_low ?? e.sessions)} (${n(e.sessions)} named; ${notNamedResponses(e.session_not_named!)})` : x(e.sessions)],
        ['tenants whose data reached someone else', (e.source_tenants_low ?? e.source_tenants) > e.source_tenants && x(0) !== 'unknown' ? `at least ${p(e.source_tenants_low!)} (${n(e.source_tenants)} named)` : x(e.source_tenants)],
        ['tenants that received it', x(e.recipient_tenants)],
        // Text whose source provenance does not name (ambiguous, unknown) is in no session or tenant above.
        ...((e.source_not_named ?? 0) > 0 ? [['responses whose source is not established (in no session or tenant above)', p(e.source_not_named ?? 0)]] : []),
        // Another session's personal data matched by value, with no marker or text: in none of the figures above, which are then a lower bound.
        ...(r.pii_attributed_only_responses > 0 ? [["further responses with another session's personal data (matched by value only; not counted above)", p(r.pii_attributed_only_responses)]] : []),
      ],
    ),
  )
  if (r.pii_attributed_only_responses > 0) out.push(wrap(`${n(r.pii_attributed_only_responses)} ${r.pii_attributed_only_responses === 1 ? 'response' : 'responses'} carried personal data another session sent first and the recipient's session never sent (crosstalk pii), with no canary marker or verbatim text of that session: the exposure above is a lower bound until ${r.pii_attributed_only_responses === 1 ? 'it is' : 'they are'} reviewed.`))
  out.push('', 'Art. 33(3)(a) estimates')
  // A low bound of 0 with no high bound, where answers hold markers of no registered session (exposureKnown false), is no finding: unknown (scope --json: null).
  const lowKnown = (e: ScopeResult['data_subjects']): boolean => registry || r.orphan_sightings === 0 || e.high !== null || e.low > 0
  const est = (label: string, e: ScopeResult['data_subjects']) => (known ? [label, lowKnown(e) ? String(e.low) : 'unknown', e.high === null ? 'unbounded' : String(e.high)] : [label, 'unknown', 'unknown'])
  out.push(table(['figure', 'low', 'high'], [est('data subjects (sessions)', r.data_subjects), est('records concerned (responses)', r.records_concerned)]))
  out.push(wrap(`data subjects: ${r.data_subjects.method}`), wrap(`records: ${r.records_concerned.method}`))
  if (r.bug_window && known) out.push('', wrap(`Bug window: ${r.bug_window.start} .. ${r.bug_window.end} (${r.bug_window.basis})`))

  if (known && r.exposure.flows.length > 0) out.push('', ...renderTopFlows(r.exposure.flows, registry ? r.flows : null))
  if (known && r.data_categories.length > 0) {
    out.push('', 'Data categories seen')
    out.push(table(['category', 'evidence', 'responses', 'findings'], r.data_categories.map((c) => [clip(safeLine(c.label), 120), c.evidence, String(c.responses), n(c.findings)])))
  }
  if (r.by_node.length > 0) {
    const node = nodeNames(r.by_node.map((x) => x.decode_node))
    out.push('', 'By decode node')
    out.push(
      table(
        ['node', 'contaminated', 'x-tenant', 'x-session', 'provenance', 'at risk', 'first seen', 'last seen'],
        r.by_node.map((x) => [node(x.decode_node), m(x.contaminated_responses), m(x.cross_tenant_responses), m(x.cross_session_responses), p(x.provenance_responses), n(x.at_risk_responses), mt(x.first_seen), mt(x.last_seen)]),
      ),
    )
  }
  if (r.by_hour.length > 0) {
    out.push('', 'By hour (UTC)')
    out.push(table(['hour', 'contaminated', 'x-tenant', 'provenance', 'text only', 'at risk'], r.by_hour.map((h) => [h.hour.slice(0, 13) + ':00Z', m(h.contaminated_responses), m(h.cross_tenant_responses), p(h.provenance_responses), p(h.text_only_responses), n(h.at_risk_responses)])))
  }
  return out.join('\n')
}

/**
 * The flows with the most responses (ties by name), by either kind of evidence with the
 * responses that carried a marker beside them, and one line counting the rest: a tenant x
 * tenant matrix is 2,000 characters wide at 200 tenants.
 */
export function renderTopFlows(flows: ReadonlyArray<{source_tenant: string; recipient_tenant: string; responses: number}>, markerFlows: ScopeResult['flows'] | null, top = TOP_FLOWS): string[] {
  // null: no canary registry, so what carried a marker is not known.
  const marked = markerFlows === null ? null : new Map(markerFlows.map((f) => [JSON.stringify([f.source_tenant, f.recipient_tenant]), f.responses]))
  const sorted = [...flows].sort((a, b) => b.responses - a.responses || a.source_tenant.localeCompare(b.source_tenant) || a.recipient_tenant.localeCompare(b.recipient_tenant))
  const shown = sorted.slice(0, top)
  const rest = sorted.slice(top)
  const tenantSet = new Set(flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))
  const tenants = tenantSet.size
  const name = tenantNames(tenantSet)
  const out = [
    `Flows (marker or verbatim text): ${count(flows.length, 'tenant pair')} among ${count(tenants, 'tenant')}${rest.length > 0 ? `; the ${shown.length} with the most responses` : ''}`,
    table(
      ['source tenant', 'recipient tenant', 'responses', 'with a marker'],
      shown.map((f) => [
        name(f.source_tenant),
        f.source_tenant === f.recipient_tenant ? `${name(f.recipient_tenant)} (same tenant)` : name(f.recipient_tenant),
        String(f.responses),
        marked === null ? 'unknown' : String(marked.get(JSON.stringify([f.source_tenant, f.recipient_tenant])) ?? 0),
      ]),
      // Both tenant columns read left to right under their headers (a recipient id hung off the right of its column); the counts are right-aligned.
      2,
    ),
  ]
  if (rest.length > 0) {
    const responses = rest.reduce((a, f) => a + f.responses, 0)
    out.push(`... and ${count(rest.length, 'more pair')} with ${count(responses, 'response')}: every pair with --csv --table exposure or --json (markers alone: --table flows, matrix)`)
  }
  return out
}

export const SCOPE_CSV_TABLES = ['flows', 'exposure', 'matrix', 'nodes', 'hours'] as const
export type ScopeCsvTable = (typeof SCOPE_CSV_TABLES)[number]

/** The scope's CSV tables; without a canary registry the markers' columns are empty cells (unknown), never 0. */
export function scopeCsvTables(r: ScopeResult, options: {registry?: boolean} = {}): Record<ScopeCsvTable, CsvTable> {
  const registry = options.registry ?? true
  const known = (n: number | string | null): number | string | null => (registry ? n : null)
  const {tenants, responses} = r.flow_matrix
  // one row per source tenant, one column per recipient tenant (the names as cells: csvCell guards them)
  const corner = 'source_tenant \\ recipient_tenant'
  const marked = new Map(r.flows.map((f) => [JSON.stringify([f.source_tenant, f.recipient_tenant]), f.responses]))
  return {
    flows: {columns: ['source_tenant', 'recipient_tenant', 'responses'], rows: r.flows.map((f) => ({...f}))},
    // Both kinds of evidence: responses with a marker or verbatim text of the source, and of them with a marker.
    exposure: {
      columns: ['source_tenant', 'recipient_tenant', 'responses', 'with_marker'],
      rows: r.exposure.flows.map((f) => ({
        source_tenant: f.source_tenant,
        recipient_tenant: f.recipient_tenant,
        responses: f.responses,
        with_marker: known(marked.get(JSON.stringify([f.source_tenant, f.recipient_tenant])) ?? 0),
      })),
    },
    matrix: {
      columns: [corner, ...tenants],
      rows: responses.map((row, i) => Object.fromEntries([[corner, tenants[i]], ...row.map((v, j) => [tenants[j]!, v])])),
    },
    nodes: {
      columns: ['decode_node', 'contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'provenance_responses', 'at_risk_responses', 'first_seen', 'last_seen', 'at_risk_first', 'at_risk_last'],
      rows: r.by_node.map((x) => ({...x, contaminated_responses: known(x.contaminated_responses), cross_tenant_responses: known(x.cross_tenant_responses), cross_session_responses: known(x.cross_session_responses), first_seen: known(x.first_seen), last_seen: known(x.last_seen)})),
    },
    hours: {
      columns: ['hour', 'contaminated_responses', 'cross_tenant_responses', 'provenance_responses', 'text_only_responses', 'at_risk_responses'],
      rows: r.by_hour.map((h) => ({...h, contaminated_responses: known(h.contaminated_responses), cross_tenant_responses: known(h.cross_tenant_responses)})),
    },
  }
}

/**
 * One tenant's counterparts as CSV. `responses`, `first_seen` and `last_seen` are the canary
 * markers' (the console's "with marker", "first (marker)", "last (marker)"); `provenance_responses`
 * the verbatim text's; `exposure_responses` both together, each response once (the console's
 * "responses"): a response with both is in each of the first two, so they do not add up to it.
 * `exposure: false` (answers hold marker-shaped tokens no registry attributes): the figures of
 * both together are not known, so empty.
 */
export function tenantCsvTable(v: TenantViewResult | RegistrylessTenantView, options: {exposure?: boolean} = {}): CsvTable {
  const known = options.exposure ?? true
  const rows = (['received', 'leaked'] as const).flatMap((direction) =>
    v[direction].counterparts.map((c) => ({
      tenant: v.tenant, direction, counterpart: c.tenant, same_tenant: c.same_tenant ? 1 : 0, responses: c.responses, provenance_responses: c.provenance_responses,
      sessions: known ? c.sessions : null, first_seen: c.first_seen, last_seen: c.last_seen, exposure_responses: known ? c.exposure_responses : null,
    })),
  )
  return {columns: ['tenant', 'direction', 'counterpart', 'same_tenant', 'responses', 'provenance_responses', 'sessions', 'first_seen', 'last_seen', 'exposure_responses'], rows}
}

/**
 * The caveat of one side of a tenant view where responses carried personal data matched by value
 * only (a `pii` finding attributed to another session): the side's exposure is a lower bound, as
 * the case-wide scope says of the whole case's.
 */
export function tenantPiiOnlyNote(responses: number, side: 'received' | 'leaked'): string {
  const what = side === 'received'
    ? `${responses === 1 ? 'response' : 'responses'} served to this tenant carried personal data another session sent first and the recipient's session never sent`
    : `${responses === 1 ? 'response' : 'responses'} served to other sessions carried personal data this tenant's sessions sent first`
  return `${responses} ${what} (crosstalk pii), with no canary marker or verbatim text of that session: the exposure above is a lower bound until ${responses === 1 ? 'it is' : 'they are'} reviewed.`
}

/** Said above the timeline of a case with no canary registry: no event or count of it rests on a marker. */
export const NO_REGISTRY_TIMELINE_NOTE =
  'No canary registry in this case: no marker can be attributed to a session, so the leaks below are by verbatim text only and their markers were not checked (crosstalk ingest canaries FILE).'

/** Said above the scope of a case with no canary registry: its marker figures count nothing. */
export const NO_REGISTRY_SCOPE_NOTE =
  'No canary registry in this case: the marker figures below cannot count anything (not known, not none); the exposure is by verbatim text only (crosstalk ingest canaries FILE).'

/**
 * One tenant's view on the console; without a canary registry, or with one changed since the
 * scan (`registry: false`), the markers' figures read "unknown", never 0; so do the verbatim-text
 * figures where provenance does not cover the case (`provenance: false`), and, with either, the
 * totals built on both.
 */
export function renderTenantView(v: TenantViewResult, options: {registry?: boolean; provenance?: boolean; exposure?: boolean} = {}): string {
  const registry = options.registry ?? true
  const known = options.provenance ?? true
  const m = (x: number): string => (registry ? String(x) : 'unknown')
  const p = (x: number): string => (known ? String(x) : 'unknown')
  // The exposure (both kinds together) is known without a registry (all by text), not with a stale one.
  const exposureKnown = options.exposure ?? known
  const both = (x: number): string => (exposureKnown ? String(x) : 'unknown')
  const mt = (x: string | null): string => (registry ? t(x) : 'unknown')
  const out = [`Tenant ${name(v.tenant)}${v.tenants_revealed ? '' : ' (other tenants shown as opaque labels; --reveal-tenants names them)'}`]
  const dir = (title: string, d: TenantViewResult['received'], own: string, other: string) => {
    const e = d.exposure
    out.push('', title)
    // Both kinds of evidence together first (the numbers the notices and drafts state), then
    // the canary markers alone: a first or last time is said with what it is the time of.
    out.push(
      table(
        ['figure', 'value'],
        [
          ['responses (marker or verbatim text)', both(e.responses)],
          ['  with a marker', m(e.by_canary)],
          ['  verbatim text only', both(e.by_text_only)],
          [own, both(e.own_sessions)],
          [other, both(e.other_sessions)],
          ['other tenants', both(e.other_tenants)],
          ['first seen', exposureKnown ? t(e.first_seen) : 'unknown'],
          ['last seen', exposureKnown ? t(e.last_seen) : 'unknown'],
          ['responses with a foreign marker', m(d.responses)],
          ['  cross-tenant', m(d.cross_tenant_responses)],
          ['  cross-session (same tenant)', m(d.cross_session_responses)],
          ['  other tenants (marker)', m(d.other_tenants)],
          ['  first seen (marker)', mt(d.first_seen)],
          ['  last seen (marker)', mt(d.last_seen)],
          ['provenance-attributed responses', p(d.provenance_responses)],
          ...((d.pii_attributed_only_responses ?? 0) > 0 ? [["further responses with another session's personal data (matched by value only; not counted above)", both(d.pii_attributed_only_responses!)]] : []),
        ],
      ),
    )
    const pii = d.pii_attributed_only_responses ?? 0
    if (pii > 0 && exposureKnown) out.push(wrap(tenantPiiOnlyNote(pii, title === 'Received from others' ? 'received' : 'leaked')))
    const name = tenantNames([v.tenant, ...d.counterparts.map((c) => c.tenant)])
    if (d.counterparts.length > 0)
      out.push(
        table(
          ['counterpart', 'responses', 'with marker', 'with verbatim text', 'sessions', 'first (marker)', 'last (marker)'],
          d.counterparts.map((c) => [name(c.tenant) + (c.same_tenant ? ' (self)' : ''), both(c.exposure_responses), m(c.responses), p(c.provenance_responses), both(c.sessions), mt(c.first_seen), mt(c.last_seen)]),
        ),
      )
  }
  dir('Received from others', v.received, 'own sessions that received', 'source sessions')
  dir('Reached others', v.leaked, 'own sessions exposed', 'recipient sessions')
  if (v.at_risk_responses !== null) out.push('', `At-risk responses served to this tenant: ${v.at_risk_responses}`)
  const retries = tenantRetriesNote(v.retry_leaks_not_counted)
  if (retries !== null) out.push('', wrap(retries))
  const unexamined = tenantUnexaminedNote(v.duplicate_lines_not_examined)
  if (unexamined !== null) out.push('', wrap(unexamined))
  return out.join('\n')
}

const BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/** A bar of `value / max` of `width` cells, in eighths. */
export function bar(value: number, max: number, width = 40): string {
  if (max <= 0 || value <= 0) return ''
  const eighths = Math.max(1, Math.round((value / max) * width * 8))
  return '█'.repeat(Math.floor(eighths / 8)) + BLOCKS[eighths % 8]
}

/** `orphans`: marker-shaped tokens found in answers; with no registry they leave the exposure not known (exposureKnown), never "no contamination". */
/** `notRead`: evidence no finding speaks for (notReadEvidence): a "none" is said of what was read only, and what was not is named. */
export function renderTimeline(tl: TimelineResult, options: {maxSightings?: number; maxPairs?: number; registry?: boolean; orphans?: number; stale?: {markers: boolean; provenance: boolean}; notRead?: NotRead} = {}): string {
  const out: string[] = []
  const registry = options.registry ?? true
  // Findings out of date (staleFindings): the hours' counts that rest on them, and the bug window built on both, are not known.
  const markersKnown = !(options.stale?.markers ?? false)
  const textKnown = markersKnown && !(options.stale?.provenance ?? false)
  if (!registry && !nothingSearched(tl.detection)) out.push(wrap(NO_REGISTRY_TIMELINE_NOTE), '')
  // What was never read (quarantined lines, files not read whole) holds findings no figure counts: said wherever figures follow, as scope says it.
  const notReadLine = options.notRead === undefined ? null : notReadSentence(options.notRead)
  const noneBranch = !(options.stale !== undefined && !nothingSearched(tl.detection)) && !nothingSearched(tl.detection) && !tl.bug_window
  if (notReadLine !== null && !noneBranch) out.push(wrap(`${notReadLine} The figures below count what was read.`), '')
  if (options.stale !== undefined && !nothingSearched(tl.detection)) out.push(wrap('Bug window: not known until a scan (crosstalk scan): it spans the findings that do not cover the case.'))
  else if (nothingSearched(tl.detection)) out.push(wrap(`${upperFirst(describeGap(tl.detection))}: contamination is not known yet (run \`${nothingSearchedStep(tl.detection)}\`); the at-risk responses are below.`))
  else if (tl.bug_window) out.push(wrap(`Bug window: ${tl.bug_window.start} .. ${tl.bug_window.end} (${tl.bug_window.basis})`))
  else {
    // "None" only for what was looked at: unscanned files and uncounted at-risk responses are said as unknown.
    const where = tl.detection.complete ? 'in this case' : `in what was scanned (${describeGap(tl.detection)})`
    const undecided = tl.at_risk_unknown_records ?? 0
    const risk =
      tl.at_risk_basis === 'counted' ? (undecided > 0 ? `${where}; no at-risk response among the records that could be tested, and ${undecidedRecords(undecided)}` : 'or at-risk responses')
        : tl.at_risk_basis === 'no_pool' ? `${where}; at-risk responses are not known without a KV pool size (--pool-tokens N)`
          : `${where}; at-risk responses are unknown: no record gives both its HTTP status and its prompt size`
    // A leaking retry is a response served, though no event counts it: never "no contamination" then.
    const retries = tl.retry_leaks_not_counted.length
    const unread = tl.duplicate_lines_not_examined
    const orphans = exposureKnown(registry, options.orphans ?? 0) ? 0 : options.orphans!
    const notRead = options.notRead === undefined ? null : notReadSentence(options.notRead)
    const none = retries > 0 ? `No contamination counted (but see the ${retries === 1 ? 'retry' : 'retries'} below)` : unread > 0 ? `No contamination counted (but see the ${unread === 1 ? 'line' : 'lines'} not examined below)` : notRead !== null ? 'No contamination found in what could be read' : 'No contamination'
    if (orphans > 0) out.push(wrap(`Contamination not known ${where}: ${count(orphans, 'marker-shaped token')} found in answers could not be attributed to any session (no canary registry), so whether ${orphans === 1 ? 'it carries' : 'they carry'} another session's data is not known; no verbatim text of another session was found (crosstalk ingest canaries FILE; crosstalk scan).`))
    else out.push(wrap(tl.at_risk_basis === 'counted' && undecided === 0 ? `${none} ${risk} ${where}.` : `${none} ${risk}.`))
    if (orphans === 0 && notRead !== null) out.push(wrap(notRead))
  }
  // A counted at-risk figure covers the records that could be tested: the others are said beside it.
  if ((nothingSearched(tl.detection) || tl.bug_window || options.stale !== undefined) && tl.at_risk_basis === 'counted' && (tl.at_risk_unknown_records ?? 0) > 0) {
    out.push(wrap(`At-risk responses are counted among the records that could be tested; ${undecidedRecords(tl.at_risk_unknown_records!)}.`))
  }
  const sightings = tl.events.filter((e) => e.kind === 'sighting').length
  const showSightings = sightings <= (options.maxSightings ?? 20)
  // On a wide incident every tenant pair has two milestones: list them only while readable.
  const showPairs = tl.pairs.length <= (options.maxPairs ?? 30)
  out.push('', 'Timeline (UTC)')
  const eventTenant = idNames(new Set(tl.events.flatMap((e) => [e.source_tenant, e.recipient_tenant]).filter((x): x is string => typeof x === 'string').map((x) => safeLine(x))), NAME)
  for (const e of tl.events) {
    if (e.kind === 'sighting' && !showSightings) continue
    if ((e.kind === 'pair_first_contamination' || e.kind === 'pair_last_contamination') && !showPairs) continue
    // audit entries name commands by oclif id ("ingest:logs"); users type "ingest logs"
    const description = e.kind === 'audit' && e.command ? `crosstalk ${e.command.replace(/:/g, ' ')}` : e.description
    // Tenant ids in the sentence are cut in the middle, never so that two read alike; the sentence wraps rather than losing its end.
    let text = safeLine(description)
    for (const id of [e.source_tenant, e.recipient_tenant].filter((x): x is string => typeof x === 'string').map((x) => safeLine(x)).sort((a, b) => b.length - a.length)) {
      if (eventTenant(id) !== id) text = text.split(id).join(eventTenant(id))
    }
    out.push(`${e.at}  ${e.kind.padEnd(24)}  ${wrap(text, WIDTH - 52, 0).split('\n').join(`\n${' '.repeat(52)}`)}`)
  }
  if (tl.retry_leaks_not_counted.length > 0) out.push('', wrap(timelineRetriesNote(tl.retry_leaks_not_counted)))
  if (tl.duplicate_lines_not_examined > 0) out.push('', wrap(duplicatesNotExaminedNote(tl.duplicate_lines_not_examined)))
  if (!showSightings) out.push(`(${sightings} individual sightings not listed; --json lists every one)`)
  if (!showPairs) out.push(`(first/last leak of ${tl.pairs.length} tenant pairs not listed; --json lists them)`)
  if (tl.hours.length > 0) {
    const max = Math.max(...tl.hours.map((h) => Math.max(h.contaminated_responses + h.text_only_responses, h.at_risk_responses ?? 0)))
    const risk = tl.hours.some((h) => h.at_risk_responses !== null)
    const light = (s: string): string => s.replace(/./gu, '░')
    out.push('', registry
      ? `Responses carrying another session's data per hour: with its marker █, by verbatim text only ░${risk ? ' (second line: at-risk responses)' : ''}`
      : `Responses carrying another session's data per hour, by verbatim text ░ (no canary registry: markers not checked)${risk ? ' (second line: at-risk responses)' : ''}`)
    if (!markersKnown || !textKnown) out.push(wrap(`? : not known until a scan (${markersKnown ? 'by verbatim text only' : 'with a marker, and by verbatim text only'}: the findings do not cover the case)`))
    for (const h of tl.hours) {
      const c = markersKnown ? h.contaminated_responses : 0
      const t = textKnown ? h.text_only_responses : 0
      const marker = markersKnown ? String(h.contaminated_responses) : '?'
      const text = textKnown ? String(h.text_only_responses) : '?'
      const both = registry ? `${marker}+${text}` : text
      out.push(`${h.hour.slice(0, 13)}:00Z ${both.padStart(6)} ${bar(c, max)}${light(bar(t, max))}`)
      if (risk) out.push(`${' '.repeat(18)}${String(h.at_risk_responses ?? 0).padStart(6)} ${bar(h.at_risk_responses ?? 0, max).replace(/./gu, (ch) => (ch === '█' ? '▒' : ch))}`)
    }
  }
  return out.join('\n')
}

/** The records whose at-risk test is open, in words (the same wording as scope's at-risk line). */
function undecidedRecords(count: number): string {
  return `${n(count)} ${count === 1 ? 'record' : 'records'} whose status or prompt size is not recorded: whether at risk unknown`
}

/**
 * "N sessions of M tenants", or where a marker's source session is not named (cut short of several
 * sessions' markers) the lower bounds, said as such: never "0 sessions" of a response someone's data reached.
 */
function sourcesText(v: CanaryFigures): string {
  const k = v.exposed_session_not_named ?? 0
  if (k === 0) return `${count(v.exposed_sessions, 'session')} of ${count(v.exposed_tenants, 'tenant')}`
  const tenants = v.exposed_tenants_low ?? v.exposed_tenants
  return `at least ${count(v.exposed_sessions_low ?? v.exposed_sessions, 'session')} of ${tenants > v.exposed_tenants ? 'at least ' : ''}${count(tenants, 'tenant')}`
}

/** Flows the canary verdict lists; the rest are counted (scope lists them all). */
const VERDICT_FLOWS = 5

/**
 * triage's first answer: the canary verdict, printed as soon as every record's markers are
 * classified. "No response carried..." is said only of files read whole; files no verdict can
 * speak for are named as such.
 */
export function renderVerdict(v: CanaryFigures & {
  basis: 'quick' | 'scan'; canaries: number; unreadable_files: readonly {path: string}[]; quarantined_lines: number
  /** records the verdict speaks for (0: it speaks for none); unknown where not given */
  records_judged?: number
  /** entries a directory walk reached and could not read */
  skipped_entries?: readonly {unread: boolean}[]
}): string {
  const unreadEntries = (v.skipped_entries ?? []).filter((e) => e.unread).length
  const out: string[] = [
    v.basis === 'quick'
      ? 'Canary verdict (a markers-only pass over every line, by the rules ingest and scan apply; the scan checks it; the evidence work follows)'
      : 'Canary verdict (every record\'s markers classified; provenance, personal data and scope follow)',
  ]
  if (v.canaries === 0) {
    out.push('  Not known: the case holds no canary registry, so no marker can be attributed to a session (ingest it: --canaries FILE).')
  } else if (v.records_judged === 0) {
    out.push('  Not known: no log record was read, so nothing was judged (see the warnings).')
  } else if (v.contaminated_responses === 0) {
    out.push(`  No response carried another session's canary marker${v.unreadable_files.length > 0 || v.quarantined_lines > 0 || unreadEntries > 0 ? ' in the lines that could be read' : ''}.`)
  } else {
    out.push(
      `  ${count(v.contaminated_responses, 'response')} carried another session's canary marker: ${n(v.cross_tenant_responses)} cross-tenant, ${n(v.cross_session_responses)} cross-session.`,
      `  Data of ${sourcesText(v)} reached ${count(v.recipient_tenants, 'tenant')}; first ${t(v.first_seen)}, last ${t(v.last_seen)}.`,
    )
    const unnamed = v.exposed_session_not_named ?? 0
    if (unnamed > 0)
      out.push(`  ${unnamed === 1 ? "1 response's source session could not be named: its marker is" : `${unnamed} responses' source sessions could not be named: each marker is`} cut short, a prefix of the markers of several sessions (crosstalk sightings lists the possible sources).`)
    const top = [...v.flows].sort((a, b) => b.responses - a.responses || (a.source_tenant < b.source_tenant ? -1 : a.source_tenant > b.source_tenant ? 1 : 0)).slice(0, VERDICT_FLOWS)
    const name = tenantNames(v.flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))
    out.push(`  Largest flows (source tenant -> recipient tenant, responses)${v.flows.length > top.length ? `, ${top.length} of ${v.flows.length}` : ''}:`)
    for (const f of top) out.push(`    ${name(f.source_tenant)} -> ${name(f.recipient_tenant)}  ${f.responses}`)
  }
  if (v.quarantined_lines > 0) out.push(`  ${count(v.quarantined_lines, 'quarantined line')} could not be read and ${v.quarantined_lines === 1 ? 'is' : 'are'} not judged (crosstalk status --bad-lines).`)
  if (v.unreadable_files.length > 0) out.push(`  ${count(v.unreadable_files.length, 'log file')} could not be judged (see the warnings): the verdict does not speak for ${v.unreadable_files.length === 1 ? 'it' : 'them'}.`)
  if (unreadEntries > 0) out.push(`  ${unreadEntries === 1 ? '1 entry' : `${unreadEntries} entries`} reached in the directories or globs given could not be read (see the warnings): the verdict does not speak for ${unreadEntries === 1 ? 'it' : 'them'}.`)
  return out.join('\n')
}

/** The leaking retries on the timeline: when, where, and the tenants each line records (the timeline names tenants). */
export function timelineRetriesNote(leaks: ReadonlyArray<{at: string; line: string; class: string; recipient_tenant: string; source_tenants: readonly string[]}>): string {
  const one = (r: (typeof leaks)[number]): string =>
    `${r.at} ${r.line} (${r.class}: served to ${r.recipient_tenant}${r.source_tenants.length > 0 ? `, carrying a marker of ${r.source_tenants.join(', ')}` : ''})`
  const few = leaks.slice(0, 5).map(one).join('; ') + (leaks.length > 5 ? `; and ${leaks.length - 5} more (--json lists every one)` : '')
  return `NOT COUNTED above: ${leaks.length === 1 ? '1 retry' : `${leaks.length} retries`} logged under the request id of a response already in the case carried another session's marker: ${leaks.length === 1 ? 'a response' : 'responses'} served, in no event, pair, node or hour of this timeline (a request's first line is its record): ${few}`
}

/** One tenant's leaking retries, said beside its figures (its tenant view); null where there are none. */
export function tenantRetriesNote(r: {received: number; reached_others: number; lines: readonly string[]}): string | null {
  if (r.lines.length === 0) return null
  const sides = [
    ...(r.received > 0 ? [`${r.received} served to this tenant carrying another session's marker`] : []),
    ...(r.reached_others > 0 ? [`${r.reached_others} served to another session carrying this tenant's marker`] : []),
  ]
  const few = r.lines.slice(0, 5).join(', ') + (r.lines.length > 5 ? `, and ${r.lines.length - 5} more` : '')
  return `NOT COUNTED above: ${r.lines.length === 1 ? '1 retry' : `${r.lines.length} retries`} logged under the request id of a response already in the case (${sides.join('; ')}): ${r.lines.length === 1 ? 'a response' : 'responses'} served, in none of these figures (a request's first line is its record): ${few}`
}

/** One tenant's share of the repeated lines that could not be read again (the gate fails on them), or null where there are none. */
export function tenantUnexaminedNote(d: {lines: number; of_this_tenant: number}): string | null {
  if (d.lines === 0) return null
  const mine = d.of_this_tenant === 0 ? '' : ` (${d.of_this_tenant === d.lines ? (d.lines === 1 ? 'it repeats' : 'all repeat') : `${d.of_this_tenant} repeat`} a request of this tenant's: what its users were served in ${d.of_this_tenant === 1 ? 'it' : 'them'} is not known either)`
  return `NOT EXAMINED: ${d.lines === 1 ? '1 line repeats' : `${d.lines} lines repeat`} a request_id with a different answer and could not be read again${mine}: whether ${d.lines === 1 ? 'it carries' : 'they carry'} this tenant's marker is not known (crosstalk status names ${d.lines === 1 ? 'it' : 'them'})`
}

/** The repeated lines that differ from their record and could not be read again, case-wide (timeline, scope and sightings beside a CSV or JSON listing). */
export function duplicatesNotExaminedNote(lines: number): string {
  return `NOT EXAMINED: ${lines === 1 ? '1 line repeats' : `${n(lines)} lines repeat`} a request_id with a different answer and could not be read again: whether ${lines === 1 ? 'it carries' : 'they carry'} another session's marker is not known (crosstalk status names ${lines === 1 ? 'it' : 'them'})`
}

/** The duplicate lines that carry another session's marker and that no figure counts, named (status, scope, sightings). */
export function duplicateLeaksNote(leaks: ReadonlyArray<{path: string; line: number; request_id: string; class: string}>): string {
  const few = leaks.slice(0, 5).map((d) => `${safeLine(d.path)}:${d.line} (request_id ${quoted(d.request_id.slice(0, 80))}, ${d.class})`).join(', ') + (leaks.length > 5 ? `, and ${leaks.length - 5} more` : '')
  return `NOT COUNTED: ${leaks.length} ${leaks.length === 1 ? 'line repeats' : 'lines repeat'} a request_id already in the case with an answer carrying another session's marker (a retry logged under the same id): ${leaks.length === 1 ? 'a response' : 'responses'} served, in no figure or sighting (a request's first line is its record): ${few}`
}
