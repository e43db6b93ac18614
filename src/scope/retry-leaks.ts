import {basename} from 'node:path'
import type {LeakingDuplicate} from '../detect/conflicting-duplicates.js'
import {safeLine, safeId} from '../util/sanitize.js'
import {iso} from './scope-data.js'

// A retry logged under the request id of a response already in the case is a duplicate line,
// not a record, so its markers are no sighting and no figure counts the response it carried
// (examineConflictingDuplicates reads those lines again). scope and status name them case-wide;
// these are the same lines as the other outputs name them: case-wide with the tenants the line
// records (the timeline, the case report), or one tenant's share (its tenant view, the
// processor's notice to it, a letter for its data subjects), counted, never with another
// customer's id.

/** One leaking retry as a case-wide output names it (file names only: the path is this machine's). */
export interface RetryLeak {
  /** the retry's own timestamp as its line records it */
  at: string
  /** "file name:line" */
  line: string
  request_id: string
  class: 'cross_session' | 'cross_tenant'
  /** the tenant the answer was served to */
  recipient_tenant: string
  /** the tenants whose markers it carried (the registry's owners), sorted */
  source_tenants: string[]
}

/** One tenant's share of the leaking retries: counted by side, each line named; the other tenants never. */
export interface TenantRetryLeaks {
  /** retries served to this tenant that carried another session's marker */
  received: number
  /** retries served to another session that carried this tenant's marker */
  reached_others: number
  /** the lines of both ("file name:line"), each once */
  lines: string[]
}

export function retryLeaks(leaking: readonly LeakingDuplicate[] | undefined): RetryLeak[] {
  return (leaking ?? [])
    .map((d) => ({
      at: iso(d.ts_ms)!,
      line: retryLine(d),
      request_id: safeLine(d.request_id),
      class: d.class,
      recipient_tenant: safeId(d.recipient_tenant),
      source_tenants: d.source_tenants.map(safeLine),
    }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
}

/** Whether a retry concerns this tenant: its data reached someone, or (side both) its users were served it. */
export function retryConcerns(d: Pick<LeakingDuplicate, 'recipient_tenant' | 'source_tenants'>, tenant: string, side: 'both' | 'leaked' = 'both'): boolean {
  return d.source_tenants.includes(tenant) || (side === 'both' && d.recipient_tenant === tenant)
}

export function tenantRetryLeaks(leaking: readonly LeakingDuplicate[] | undefined, tenant: string): TenantRetryLeaks {
  const mine = (leaking ?? []).filter((d) => retryConcerns(d, tenant))
  return {
    received: mine.filter((d) => d.recipient_tenant === tenant).length,
    reached_others: mine.filter((d) => d.source_tenants.includes(tenant)).length,
    lines: mine.map(retryLine),
  }
}

/**
 * One tenant's share of the repeated lines (a retry logged under a request id already counted)
 * that differ from their record and could not be read again: the gate fails on them, whose
 * marker each answer carried is not known. Any of them may carry this tenant's marker, so every
 * tenant's view counts them all (unknown, never none); those repeating this tenant's own requests
 * are counted apart (what its users were served in them is not known either). Counted, never named.
 */
export interface TenantUnexaminedDuplicates {
  /** every such line in the case */
  lines: number
  /** of those, lines repeating a request of this tenant (the record of the same source and request id is its) */
  of_this_tenant: number
}

export function tenantUnexaminedDuplicates(duplicates: {unexamined: number; unexamined_tenants?: ReadonlyArray<string | null>} | undefined, tenant: string): TenantUnexaminedDuplicates {
  return {lines: duplicates?.unexamined ?? 0, of_this_tenant: (duplicates?.unexamined_tenants ?? []).filter((t) => t === tenant).length}
}

/**
 * The customers this case concerns: every tenant on either side of the exposure (exposureTenants:
 * recipients, sources and possible sources), then every tenant a leaking retry concerns (served
 * the retry, or the owner of a marker it carried), then every tenant whose request a retry that
 * could not be read again repeats (what its users were served is not known: unknown, never none),
 * sorted. A retry is in no figure, yet its customer's data reached someone (or its users were
 * served someone else's): every output that lists or counts the controllers (the processor's
 * clocks, the notices, the register, the Article 33 draft, the case report) takes its set from
 * here, so none leaves one out.
 */
export function concernedTenants(
  exposed: readonly string[],
  leaking: readonly Pick<LeakingDuplicate, 'recipient_tenant' | 'source_tenants'>[] | undefined,
  unexamined: ReadonlyArray<string | null> = [],
): string[] {
  const out = new Set(exposed.filter((t) => t !== ''))
  for (const d of leaking ?? []) for (const t of [d.recipient_tenant, ...d.source_tenants]) if (t !== '') out.add(t)
  for (const t of unexamined) if (t !== null && t !== '') out.add(t)
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

function retryLine(d: Pick<LeakingDuplicate, 'path' | 'line_no'>): string {
  return safeLine(`${basename(d.path.replace(/\\/g, '/'))}:${d.line_no}`)
}
