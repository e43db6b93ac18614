import {z} from 'zod'
import {InputError} from '../errors.js'
import {detectionSchema, detectionSummary} from './detection-note.js'
import type {CaseFacts, TenantExposure} from './facts.js'

// GDPR Art. 33(2): the processor tells each affected controller "without undue delay";
// it need not assess risk first (EDPB 9/2022). A notice speaks only of that customer's own
// exposure: its own sessions, and counts (never names) of who else was involved. Nothing
// another customer wrote, no marker in full, no PII value: only counts and categories.

/** Another customer, only as an opaque label (tenant#1, ...): never its id. */
const counterpart = z.object({label: z.string().regex(/^tenant#\d+$/), responses: z.number().int(), provenance_responses: z.number().int(), sessions: z.number().int(), first_seen: z.string().nullable(), last_seen: z.string().nullable()})

export const processorNoticeSchema = z.object({
  kind: z.literal('processor-notice'),
  generated_at: z.string(),
  tenant_id: z.string(),
  detection: detectionSchema,
  processor: z.string().nullable(),
  processor_aware_at: z.string().nullable(),
  contact: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  your_data_reached_others: z.object({
    sessions: z.array(z.string()),
    responses: z.number().int(),
    other_sessions_of_yours: z.number().int(),
    sessions_of_other_customers: z.number().int(),
    other_customers: z.number().int(),
    first: z.string().nullable(),
    last: z.string().nullable(),
    markers_truncated: z.array(z.string()),
    verbatim_only_responses: z.number().int(),
    personal_data_found: z.array(z.object({label: z.string(), count: z.number().int()})),
    other_customers_detail: z.array(counterpart),
  }),
  you_received_other_data: z.object({
    responses: z.number().int(),
    sessions: z.array(z.string()),
    from_customers: z.number().int(),
    personal_data_found: z.array(z.object({label: z.string(), count: z.number().int()})),
    other_customers_detail: z.array(counterpart),
  }),
  at_risk_responses: z.number().int().nullable(),
  containment: z.array(z.string()),
  your_next_steps: z.array(z.string()),
})

/** `crosstalk report processor-notice --format json` */
export type ProcessorNoticeResult = z.infer<typeof processorNoticeSchema>

export function affectedTenants(facts: CaseFacts): string[] {
  return facts.tenants.map((t) => t.tenant_id)
}

export function buildProcessorNotice(facts: CaseFacts, tenant: string): ProcessorNoticeResult {
  const t: TenantExposure | undefined = facts.tenants.find((x) => x.tenant_id === tenant)
  if (!t) throw new InputError(`tenant ${JSON.stringify(tenant.slice(0, 80))} has no exposure in this case (affected: ${facts.tenants.length} tenants; see --all)`, 'E_NO_EXPOSURE')
  const inc = facts.incident
  return processorNoticeSchema.parse({
    kind: 'processor-notice',
    generated_at: facts.generated_at,
    tenant_id: t.tenant_id,
    detection: detectionSummary(facts.detection),
    processor: inc?.processor_name ?? inc?.controller_name ?? null,
    processor_aware_at: inc?.aware_at ?? null,
    contact: {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null},
    your_data_reached_others: {
      sessions: t.leaked_sessions,
      responses: t.responses_carrying_its_data,
      other_sessions_of_yours: t.recipient_sessions_same_tenant,
      sessions_of_other_customers: t.recipient_sessions_other_tenants,
      other_customers: t.recipient_tenants_other,
      first: t.first_leaked,
      last: t.last_leaked,
      markers_truncated: t.markers_truncated,
      verbatim_only_responses: t.provenance_only_leaked,
      personal_data_found: t.pii_in_leaked.map((c) => ({label: c.label, count: c.count})),
      other_customers_detail: t.counterparts_leaked_to,
    },
    you_received_other_data: {
      responses: t.received_foreign_responses,
      sessions: t.receiving_sessions,
      from_customers: t.received_from_tenants,
      personal_data_found: t.pii_in_received.map((c) => ({label: c.label, count: c.count})),
      other_customers_detail: t.counterparts_received_from,
    },
    at_risk_responses: t.at_risk_responses,
    containment: [
      'The shared prompt/KV cache that caused the fault has been isolated per customer (see measures in our follow-up).',
      'Every affected response was identified from the serving logs by canary markers; evidence is preserved with SHA-256 hashes.',
    ],
    your_next_steps: [
      'As controller, assess the risk to your users and decide on notifying your supervisory authority: your 72 hours start when you receive this notice (EDPB Guidelines 9/2022).',
      'Delete or quarantine the listed responses your users received that carried another party\'s data; do not process them further.',
      'Tell us the contact point you want follow-up information sent to; we will send updates in phases as facts are confirmed.',
    ],
  })
}
