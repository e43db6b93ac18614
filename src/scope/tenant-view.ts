import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {giveTenantLabels, storedTenantLabels, type TenantLabelNumbers} from '../store/tenant-labels.js'
import {sourceBounds, type SourceOfRow} from './exposure.js'
import {byText, factTimes, iso, loadExposureInputs, minMax, sessionKey, type ContaminationRow, type ProvenanceRow, type ScopeInputs} from './scope-data.js'
import {quoted} from '../util/sanitize.js'
import {closestName} from '../util/edit-distance.js'
import {tenantRetryLeaks, tenantUnexaminedDuplicates, type TenantRetryLeaks, type TenantUnexaminedDuplicates} from './retry-leaks.js'

// What one customer (a controller) needs for its own Art. 33 assessment: what its end
// users received from others, and what of its end users reached others. Other customers
// are themselves controllers with their own confidentiality: unless the responder asks
// (--reveal-tenants) they appear only as counts and opaque labels, and content never.

export interface TenantViewOptions {
  tenant: string
  /** Name other tenants instead of labelling them tenant#1, tenant#2, ... */
  revealTenants?: boolean
}

export interface TenantCounterpart {
  /** the other tenant's id with revealTenants, else an opaque label; the tenant itself by name */
  tenant: string
  same_tenant: boolean
  responses: number
  provenance_responses: number
  sessions: number
  first_seen: string | null
  last_seen: string | null
  /** distinct responses by either evidence (canary or verbatim text): what a notice counts */
  exposure_responses: number
}

/** One direction counted over all the evidence, canary and verbatim text together (see exposure.ts). */
export interface TenantExposureCount {
  responses: number
  by_canary: number
  by_text_only: number
  own_sessions: number
  other_sessions: number
  other_tenants: number
  first_seen: string | null
  last_seen: string | null
}

export interface TenantDirection {
  /** distinct responses with a contaminating sighting in this direction */
  responses: number
  cross_tenant_responses: number
  cross_session_responses: number
  /** this tenant's sessions involved: recipients (received) or sources (leaked) */
  own_sessions: number
  /** the other side's sessions */
  other_sessions: number
  /** other tenants on the other side (this tenant itself not counted) */
  other_tenants: number
  first_seen: string | null
  last_seen: string | null
  provenance_responses: number
  provenance_only_responses: number
  provenance_other_tenants: number
  /** the union of both kinds of evidence: the numbers drafts and notices use */
  exposure: TenantExposureCount
  counterparts: TenantCounterpart[]
  /**
   * Responses in this direction (received: served to this tenant; leaked: carrying a value this
   * tenant sent first) holding personal data another session sent earlier and the recipient's
   * session never sent (a `pii` finding attributed by value), with no marker and no verbatim text
   * of another session: in no figure above, so the exposure is a lower bound until they are
   * reviewed (as scope's pii_attributed_only_responses for the whole case). Null where the
   * exposure is not known.
   */
  pii_attributed_only_responses: number | null
}

export interface TenantViewResult {
  tenant: string
  tenants_revealed: boolean
  received: TenantDirection
  leaked: TenantDirection
  /** this tenant's own status-200 responses at or over the pool (null without --pool-tokens) */
  at_risk_responses: number | null
  /** this tenant's records whose status or prompt size is not recorded where that leaves open whether they were at risk (null where at_risk_responses is, or not counted per tenant) */
  at_risk_unknown_records: number | null
  /**
   * Retries logged under the request id of a response already counted whose answer carried
   * another session's marker, where this tenant is the recipient or a marker's owner: responses
   * served that none of the figures above count (a request's first line is its record), each
   * line named; the other tenants of those lines are not
   */
  retry_leaks_not_counted: TenantRetryLeaks
  /**
   * Repeated lines (a retry under a request id already counted) that differ from their record and
   * could not be read again: whether any carried this tenant's marker is not known (every one is
   * counted), and `of_this_tenant` repeat its own requests (what its users were served is not known)
   */
  duplicate_lines_not_examined: TenantUnexaminedDuplicates
}

type Row = (ContaminationRow | ProvenanceRow) & {kind: 'sighting' | 'provenance'}

// A label once given is kept for the case's life (stored, migration 022): phased notices name the
// same customer by the same label. An order computed afresh on each read did not hold: a record
// held since day 1 gains a new source (an earlier text in a log ingested later), and logs arrive
// out of order, so "tenant#4" came to name another customer. A customer not yet labelled takes
// the next free number, in the order of the first record, as ingested, in which it met the
// tenant (either direction); the label says nothing about its name. A customer labelled before
// and no longer in the exposure keeps its number unused.
function labelsOf(received: readonly Row[], leaked: readonly Row[], tenant: string, reveal: boolean, stored?: ReadonlyMap<string, number>): Map<string, string> {
  const firstContact = new Map<string, number>()
  for (const r of [...received.map((x) => [x.source_tenant ?? '', x.record_id] as const), ...leaked.map((x) => [x.recipient_tenant, x.record_id] as const)]) {
    const [other, ms] = r
    // '' is a source provenance does not name (ambiguous, unknown): no customer, so no label.
    if (other === tenant || other === '') continue
    const seen = firstContact.get(other)
    if (seen === undefined || ms < seen) firstContact.set(other, ms)
  }
  const numbers = numberLabels(firstContact, stored)
  return new Map([...numbers.entries()].sort((a, b) => a[1] - b[1]).map(([other, n]) => [other, reveal ? other : `tenant#${n}`]))
}

/** Each other customer's number: the one stored, else the next free one in the order of first contact. */
function numberLabels(firstContact: ReadonlyMap<string, number>, stored?: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>()
  let next = 1
  for (const n of stored?.values() ?? []) next = Math.max(next, n + 1)
  const fresh: Array<[string, number]> = []
  for (const [other, first] of firstContact) {
    const given = stored?.get(other)
    if (given !== undefined) out.set(other, given)
    else fresh.push([other, first])
  }
  for (const [other] of fresh.sort((a, b) => a[1] - b[1] || byText(a[0], b[0]))) out.set(other, next++)
  return out
}

/**
 * Gives (stores) a label to every other customer on either side of each tenant's exposure not yet
 * labelled, numbered after those already given; run as a scan finishes, so the labels a notice
 * shows are the case's, not the order of one read. Returns how many were given.
 */
export function giveOtherTenantLabels(db: CaseDb, at: Date): number {
  return giveTenantLabels(db, labelsToGive(db, storedTenantLabels(db)), at.toISOString())
}

/**
 * The labels a scan finishing now would give, after those `stored`: verify derives the last
 * scan's again with it, from the labels given before that scan.
 */
export function labelsToGive(db: CaseDb, stored: TenantLabelNumbers): Array<{tenant: string; other: string; label: number}> {
  const {contamination, provenance} = loadExposureInputs(db)
  const contacts = new Map<string, Map<string, number>>()
  const meet = (tenant: string, other: string, id: number) => {
    if (tenant === other || tenant === '' || other === '') return
    let m = contacts.get(tenant)
    if (!m) contacts.set(tenant, (m = new Map()))
    const seen = m.get(other)
    if (seen === undefined || id < seen) m.set(other, id)
  }
  for (const r of [...contamination, ...provenance]) {
    meet(r.recipient_tenant, r.source_tenant ?? '', r.record_id)
    meet(r.source_tenant ?? '', r.recipient_tenant, r.record_id)
  }
  const give: Array<{tenant: string; other: string; label: number}> = []
  for (const [tenant, firstContact] of contacts) {
    const mine = stored.get(tenant)
    for (const [other, label] of numberLabels(firstContact, mine)) if (mine?.get(other) === undefined) give.push({tenant, other, label})
  }
  return give
}

/**
 * The opaque label (tenant#1, ...) of every other tenant on either side of this tenant's
 * exposure, as its tenant view and its processor notice name them; the tenant itself keeps
 * its name.
 */
export function otherTenantLabels(inputs: ScopeInputs, tenant: string): Map<string, string> {
  const rows: Row[] = [
    ...inputs.contamination.map((c) => ({...c, kind: 'sighting' as const})),
    ...inputs.provenance.map((p) => ({...p, kind: 'provenance' as const})),
  ]
  return labelsOf(rows.filter((r) => r.recipient_tenant === tenant), rows.filter((r) => r.source_tenant === tenant), tenant, false, inputs.tenantLabels?.get(tenant))
}

/** The tenants of the case with records (complete files), for checking a --tenant value. */
export interface TenantIndex {
  has(tenant: string): boolean
  /** Every tenant id the index holds, for "did you mean" when a typed one is not among them (read only then). */
  ids?(): Iterable<string>
}

/**
 * Refuses (exit 1) a tenant the case knows nothing of: no record, no finding, no leaking retry
 * names it. A typo'd id would otherwise read as a tenant that was checked and found unaffected.
 */
const tenantsOf = (r: {recipient_tenant: string; source_tenant: string | null}): string[] => (r.source_tenant === null ? [r.recipient_tenant] : [r.recipient_tenant, r.source_tenant])

export function requireTenantInCase(inputs: ScopeInputs, tenant: string, known: TenantIndex, what: string): void {
  if (known.has(tenant)) return
  const names = (r: {recipient_tenant: string; source_tenant: string | null}) => r.recipient_tenant === tenant || r.source_tenant === tenant
  if (inputs.contamination.some(names) || inputs.provenance.some(names)) return
  if ((inputs.duplicates?.leaking ?? []).some((d) => d.source_tenants.includes(tenant) || d.recipient_tenant === tenant)) return
  // A mistyped id gets the closest one the case holds (records, registry where the index has it, findings), as a mistyped command or flag does.
  const named = [...(known.ids?.() ?? []), ...inputs.contamination.flatMap(tenantsOf), ...inputs.provenance.flatMap(tenantsOf)]
  const near = closestName(tenant, named)
  const hint = near === null ? '' : `; did you mean ${quoted(near.slice(0, 200))}?`
  throw new InputError(`${what}tenant ${quoted(tenant.slice(0, 200))} has no records in this case${hint}`, 'E_NO_TENANT')
}

export function computeTenantView(inputs: ScopeInputs, options: TenantViewOptions, known?: TenantIndex): TenantViewResult {
  const {tenant} = options
  const rows: Row[] = [
    ...inputs.contamination.map((c) => ({...c, kind: 'sighting' as const})),
    ...inputs.provenance.map((p) => ({...p, kind: 'provenance' as const})),
  ]
  const received = rows.filter((r) => r.recipient_tenant === tenant)
  const leaked = rows.filter((r) => r.source_tenant === tenant)
  if (known) requireTenantInCase(inputs, tenant, known, '')

  const labels = labelsOf(received, leaked, tenant, Boolean(options.revealTenants), inputs.tenantLabels?.get(tenant))
  const name = (other: string) => (other === tenant ? tenant : labels.get(other)!)

  const atRisk = inputs.atRiskByTenant === null ? null : (inputs.atRiskByTenant.get(tenant) ?? 0)

  // Personal data matched by value only (the case-wide scope's pii_attributed_only_responses), each side's.
  const inExposure = new Set(rows.map((r) => r.record_id))
  const piiOnly = inputs.pii.filter((p) => p.source_tenant !== null && !inExposure.has(p.record_id))
  const piiResponses = (keep: (p: (typeof piiOnly)[number]) => boolean): number => new Set(piiOnly.filter(keep).map((p) => p.record_id)).size

  return {
    tenant,
    tenants_revealed: Boolean(options.revealTenants),
    received: {...direction(received, tenant, (r) => r.source_tenant ?? '', recipientOf, sourceOf, name), pii_attributed_only_responses: piiResponses((p) => p.recipient_tenant === tenant)},
    leaked: {...direction(leaked, tenant, (r) => r.recipient_tenant, sourceOf, recipientOf, name), pii_attributed_only_responses: piiResponses((p) => p.source_tenant === tenant)},
    at_risk_responses: atRisk,
    // Known where the at-risk figure is not: logs without a status leave every such record open, and say how many (as the whole case's count does).
    at_risk_unknown_records: inputs.atRiskUndecidedByTenant === null ? null : (inputs.atRiskUndecidedByTenant.get(tenant) ?? 0),
    retry_leaks_not_counted: tenantRetryLeaks(inputs.duplicates?.leaking, tenant),
    duplicate_lines_not_examined: tenantUnexaminedDuplicates(inputs.duplicates, tenant),
  }
}

const sourceOf = (r: Row): SourceOfRow => ({source_tenant: r.source_tenant, source_session: r.source_session})
const recipientOf = (r: Row): SourceOfRow => ({source_tenant: r.recipient_tenant, source_session: r.recipient_session})

/**
 * Distinct sessions among the rows' sessions (one side of each). A source session that is not named
 * (a marker cut short of the markers of several of a tenant's sessions; text whose source is not
 * established) is one session only where none counted can be it (exposure.ts sourceBounds): it may
 * be one of them, and is never one more by default.
 */
function sessionCount(rows: readonly Row[], session: (r: Row) => SourceOfRow): number {
  return sourceBounds(rows.map(session)).sessions_low
}

function direction(
  rows: Row[],
  tenant: string,
  other: (r: Row) => string,
  ownSession: (r: Row) => SourceOfRow,
  otherSession: (r: Row) => SourceOfRow,
  name: (t: string) => string,
): Omit<TenantDirection, 'pii_attributed_only_responses'> {
  const sightings = rows.filter((r) => r.kind === 'sighting') as Array<ContaminationRow & Row>
  const prov = rows.filter((r) => r.kind === 'provenance')
  const ids = (xs: Row[]) => new Set(xs.map((x) => x.record_id))
  const marked = ids(sightings)
  const seen = minMax(factTimes(sightings))
  // A source provenance does not name is no counterpart: which customer (if any) it was is not known.
  const others = [...new Set(rows.map(other))].filter((o) => o !== '')
  const counterparts = others
    .map((o) => {
      const s = sightings.filter((r) => other(r) === o)
      const all = rows.filter((r) => other(r) === o)
      const t = minMax(factTimes(s))
      return {
        tenant: name(o),
        same_tenant: o === tenant,
        responses: ids(s).size,
        provenance_responses: ids(prov.filter((r) => other(r) === o)).size,
        sessions: sessionCount(rows.filter((r) => other(r) === o), otherSession),
        first_seen: iso(t?.[0]),
        last_seen: iso(t?.[1]),
        exposure_responses: ids(all).size,
        _order: o === tenant ? -1 : 0,
      }
    })
    .sort((a, b) => a._order - b._order || byText(a.first_seen ?? '~', b.first_seen ?? '~') || byLabel(a.tenant, b.tenant))
    .map(({_order, ...c}) => c)
  return {
    responses: marked.size,
    cross_tenant_responses: ids(sightings.filter((r) => r.class === 'cross_tenant')).size,
    cross_session_responses: ids(sightings.filter((r) => r.class === 'cross_session')).size,
    own_sessions: sessionCount(sightings, ownSession),
    other_sessions: sessionCount(sightings, otherSession),
    other_tenants: new Set(sightings.map(other).filter((o) => o !== tenant)).size,
    first_seen: iso(seen?.[0]),
    last_seen: iso(seen?.[1]),
    provenance_responses: ids(prov).size,
    provenance_only_responses: [...ids(prov)].filter((id) => !marked.has(id)).length,
    provenance_other_tenants: new Set(prov.map(other).filter((o) => o !== tenant)).size,
    exposure: exposureCount(rows, tenant, other, ownSession, otherSession),
    counterparts,
  }
}

function exposureCount(rows: Row[], tenant: string, other: (r: Row) => string, ownSession: (r: Row) => SourceOfRow, otherSession: (r: Row) => SourceOfRow): TenantExposureCount {
  const all = new Set(rows.map((r) => r.record_id))
  const canary = new Set(rows.filter((r) => r.kind === 'sighting').map((r) => r.record_id))
  const seen = minMax(factTimes(rows))
  return {
    responses: all.size,
    by_canary: canary.size,
    by_text_only: all.size - canary.size,
    own_sessions: sessionCount(rows, ownSession),
    other_sessions: sessionCount(rows, otherSession),
    other_tenants: new Set(rows.map(other).filter((o) => o !== tenant && o !== '')).size,
    first_seen: iso(seen?.[0]),
    last_seen: iso(seen?.[1]),
  }
}

/** Opaque labels in their numbers' order (tenant#2 before tenant#10), names by their text. */
function byLabel(a: string, b: string): number {
  const la = /^tenant#(\d+)$/.exec(a)
  const lb = /^tenant#(\d+)$/.exec(b)
  return la && lb ? Number(la[1]) - Number(lb[1]) : byText(a, b)
}
