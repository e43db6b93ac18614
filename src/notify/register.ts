import {z} from 'zod'
import {detectionSchema, detectionSummary} from './detection-note.js'
import type {CaseFacts} from './facts.js'

// GDPR Art. 33(5): document every breach (notified or not) so the authority can verify
// compliance: facts, effects, remedial action, the decision and its reasoning, the
// timestamps and the evidence it rests on. One entry per incident.

export const registerEntrySchema = z.object({
  kind: z.literal('register-entry'),
  generated_at: z.string(),
  reference: z.string().nullable(),
  title: z.string(),
  detection: detectionSchema,
  role: z.string().nullable(),
  detected_at: z.string().nullable(),
  aware_at: z.string().nullable(),
  deadline: z.string().nullable(),
  breach_window: z.string().nullable(),
  facts: z.string(),
  data_subjects: z.string(),
  records: z.string(),
  data_categories: z.string(),
  effects: z.string(),
  remedial_action: z.string(),
  decision: z.string().nullable(),
  rationale: z.string().nullable(),
  decided_by: z.string().nullable(),
  severity: z.string().nullable(),
  notified_authority_at: z.string().nullable(),
  notification_references: z.string(),
  controllers_notified: z.number().int(),
  awareness_amendments: z.number().int(),
  evidence: z.string(),
})

/** `crosstalk report register --format json` */
export type RegisterEntryResult = z.infer<typeof registerEntrySchema>
export const REGISTER_COLUMNS = Object.keys(registerEntrySchema.shape)

export function buildRegisterEntry(facts: CaseFacts): RegisterEntryResult {
  const s = facts.scope
  const inc = facts.incident
  const a = facts.assessment
  const range = (r: {low: number; high: number | null; method: string} | undefined): string =>
    r ? `${r.high === null ? `at least ${r.low}` : r.low === r.high ? r.low : `${r.low}-${r.high}`} (${r.method})` : 'not yet known'
  const authority = facts.notifications.find((n) => n.recipient === 'authority' && n.phase === 'initial')
  return registerEntrySchema.parse({
    kind: 'register-entry',
    generated_at: facts.generated_at,
    reference: inc?.internal_reference ?? null,
    title: inc?.title ?? 'untitled',
    detection: detectionSummary(facts.detection),
    role: inc?.role ?? null,
    detected_at: inc?.detected_at ?? null,
    aware_at: inc?.aware_at ?? null,
    deadline: facts.clock?.deadline ?? null,
    breach_window: s?.first_seen ? `${s.first_seen} - ${inc?.breach_ended_at ?? s.last_seen}` : null,
    facts: s
      ? `${s.contaminated_responses} responses carried another session's data (${s.cross_tenant_responses} cross-tenant, ${s.cross_session_responses} cross-session); ${s.exposed_sessions} sessions of ${s.exposed_tenants} customers exposed to ${s.recipient_tenants} receiving customers; ${facts.totals.records} responses examined`
      : 'detection not run yet',
    data_subjects: range(s?.data_subjects),
    records: range(s?.records),
    data_categories: (s?.categories ?? []).map((c) => `${c.label}${c.kind === 'free_text' ? '' : ` (${c.count})`}`).join('; ') || 'not yet known',
    effects: 'Loss of confidentiality of conversation content (and identifiers found in it) to other users and customers; integrity of responses for receiving users.',
    remedial_action: [inc?.measures_taken, inc?.measures_proposed].filter(Boolean).join('; ') || 'not yet recorded',
    decision: a?.decision ?? null,
    rationale: a?.rationale ?? null,
    decided_by: a?.decided_by ?? null,
    severity: a ? `ENISA SE ${a.se} (${a.band}); suggested ${a.suggested}` : null,
    notified_authority_at: authority?.at ?? null,
    notification_references: facts.notifications.map((n) => `${n.phase} ${n.at} ${n.recipient === 'authority' ? 'authority' : 'controller'} ref ${n.reference}${n.file_sha256 ? ` sha256 ${n.file_sha256}` : ''}`).join('; '),
    controllers_notified: new Set(facts.notifications.filter((n) => n.recipient !== 'authority').map((n) => n.recipient)).size,
    awareness_amendments: facts.amendments.length,
    evidence: facts.evidence.map((e) => `${e.path} sha256 ${e.sha256}`).join('; ') || 'none loaded',
  })
}
