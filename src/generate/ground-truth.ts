// The answer key of a generated incident: written by the generator from its own construction
// (never by running detection), loaded by tests and the bench to score every pipeline stage.

import {readFileSync} from 'node:fs'
import {z} from 'zod'
import {InputError} from '../errors.js'

const iso = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
const count = z.number().int().nonnegative()

export const SIGHTING_CLASSES = ['own', 'echo', 'cross_session', 'cross_tenant', 'orphan'] as const
export const BAD_LINE_REASONS = ['truncated_json', 'not_json', 'not_object', 'missing_session_id', 'invalid_utf8'] as const

export const groundTruthFileSchema = z.object({
  path: z.string(),
  lines: count,
  records: count,
  duplicates: count,
  bad_lines: count,
  blank_lines: count,
  gzip: z.boolean(),
  crlf: z.boolean(),
  bom: z.boolean(),
})

export const groundTruthSightingSchema = z.object({
  request_id: z.string(),
  class: z.enum(SIGHTING_CLASSES),
  marker: z.string(),
  partial: z.boolean(),
  recipient_session: z.string(),
  recipient_tenant: z.string(),
  source_session: z.string().nullable(),
  source_tenant: z.string().nullable(),
})

export const groundTruthProvenanceSchema = z.object({
  request_id: z.string(),
  source_request_id: z.string(),
  source_session: z.string(),
  source_tenant: z.string(),
  matched: z.enum(['prompt', 'response']),
  overlap_words: count,
})

/**
 * One stale-page leak: a 200 response whose text includes a span of another session's prompt or
 * answer, whatever its length and whether or not it carries a marker (the real disclosures;
 * `sightings` and `provenance` are only the ones a marker or a >= 12-word overlap can show).
 */
export const groundTruthLeakSchema = z.object({
  request_id: z.string(),
  source_request_id: z.string(),
  source_session: z.string(),
  source_tenant: z.string(),
  /** Whole source words served verbatim (0 when only a truncated marker was served). */
  words: count,
  /** The served span includes the source's canary marker (in full or truncated). */
  with_marker: z.boolean(),
  /** A chained leak: the stale page was an earlier contaminated answer (this request) carrying the source's span; null when the page was the source's own. */
  via_request_id: z.string().nullable(),
})

export const groundTruthScopeSchema = z.object({
  contaminated_responses: count,
  cross_tenant_responses: count,
  cross_session_responses: count,
  exposed_sessions: count,
  exposed_tenants: count,
  recipient_tenants: count,
  first_seen: iso.nullable(),
  last_seen: iso.nullable(),
  at_risk_responses: count.nullable(),
  flows: z.array(z.object({source_tenant: z.string(), recipient_tenant: z.string(), responses: count})),
})

export const groundTruthSchema = z.object({
  version: z.literal(1),
  seed: z.number().int(),
  params: z.object({
    records: count,
    pool_tokens: count,
    advertised_tokens: count,
    start: iso,
    end: iso,
    canaries_deployed_at: iso,
    bug_window: z.object({start: iso, end: iso}),
    bug_decode_nodes: z.array(z.string()),
    tenants: z.array(z.string()),
  }),
  files: z.array(groundTruthFileSchema),
  totals: z.object({records: count, duplicates: count, bad_lines: count, blank_lines: count, lines: count}),
  bad_lines: z.array(z.object({file: z.string(), line: z.number().int().positive(), reason: z.enum(BAD_LINE_REASONS)})),
  canaries: count,
  /** Shared system prompts and greetings: repeated across >= 3 tenants, never provenance evidence. */
  boilerplate: z.array(z.object({kind: z.enum(['system', 'greeting']), text: z.string(), tenants: count})),
  /** How many records use each request shape, response shape and timestamp form. */
  shapes: z.object({request: z.record(z.string(), count), response: z.record(z.string(), count), timestamp: z.record(z.string(), count)}),
  /** Strings planted in responses that must NOT be sightings (e.g. a registered word marker in lower case). */
  non_sightings: z.array(z.object({request_id: z.string(), text: z.string(), why: z.string()})),
  sightings: z.array(groundTruthSightingSchema),
  contaminated_request_ids: z.array(z.string()),
  provenance: z.array(groundTruthProvenanceSchema),
  scope: groundTruthScopeSchema,
  /** Source sessions of cross_session/cross_tenant sightings (marker evidence only). */
  exposed_session_ids: z.array(z.string()),
  /** Every session whose text a stale page served to another session: the real data subjects. */
  true_exposed_session_ids: z.array(z.string()),
  leaks: z.array(groundTruthLeakSchema),
  pii: z.array(z.object({request_id: z.string(), kind: z.enum(['email', 'phone', 'iban', 'card', 'ipv4', 'ipv6']), value: z.string(), source_request_id: z.string()})),
})

export type GroundTruth = z.infer<typeof groundTruthSchema>
export type GroundTruthSighting = z.infer<typeof groundTruthSightingSchema>
export type GroundTruthProvenance = z.infer<typeof groundTruthProvenanceSchema>
export type GroundTruthLeak = z.infer<typeof groundTruthLeakSchema>
export type GroundTruthScope = z.infer<typeof groundTruthScopeSchema>
export type GroundTruthFile = z.infer<typeof groundTruthFileSchema>

export function loadGroundTruth(path: string): GroundTruth {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new InputError(`cannot read ground truth ${path}: ${(error as Error).message.split('\n')[0]}`)
  }
  const parsed = groundTruthSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InputError(`ground truth ${path} is not valid: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim())
  }
  return parsed.data
}

/**
 * The contract's scope object from the sightings (and the response times of contaminated
 * records): the same rules `crosstalk scope` applies, computed here from the construction.
 */
export function scopeFromSightings(sightings: readonly GroundTruthSighting[], tsOf: (requestId: string) => number, atRisk: number | null): GroundTruthScope {
  const contaminated = new Set<string>()
  const crossTenant = new Set<string>()
  const crossSession = new Set<string>()
  const exposedSessions = new Set<string>()
  const exposedTenants = new Set<string>()
  const recipients = new Set<string>()
  const flows = new Map<string, Set<string>>()
  for (const s of sightings) {
    if (s.class !== 'cross_tenant' && s.class !== 'cross_session') continue
    contaminated.add(s.request_id)
    ;(s.class === 'cross_tenant' ? crossTenant : crossSession).add(s.request_id)
    recipients.add(s.recipient_tenant)
    // A token cut short of markers of several sessions names no session (nor tenant, where theirs differ).
    if (s.source_session !== null) exposedSessions.add(s.source_session)
    if (s.source_tenant === null) continue
    exposedTenants.add(s.source_tenant)
    const key = `${s.source_tenant}\u0000${s.recipient_tenant}`
    const set = flows.get(key) ?? new Set<string>()
    set.add(s.request_id)
    flows.set(key, set)
  }
  let first = Infinity
  let last = -Infinity
  for (const id of contaminated) {
    const ms = tsOf(id)
    first = Math.min(first, ms)
    last = Math.max(last, ms)
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
  return {
    contaminated_responses: contaminated.size,
    cross_tenant_responses: crossTenant.size,
    cross_session_responses: crossSession.size,
    exposed_sessions: exposedSessions.size,
    exposed_tenants: exposedTenants.size,
    recipient_tenants: recipients.size,
    first_seen: contaminated.size ? new Date(first).toISOString() : null,
    last_seen: contaminated.size ? new Date(last).toISOString() : null,
    at_risk_responses: atRisk,
    flows: [...flows.entries()]
      .map(([key, set]) => {
        const [source_tenant, recipient_tenant] = key.split('\u0000') as [string, string]
        return {source_tenant, recipient_tenant, responses: set.size}
      })
      .sort((a, b) => cmp(a.source_tenant, b.source_tenant) || cmp(a.recipient_tenant, b.recipient_tenant)),
  }
}
