import {z} from 'zod'
import {AUTHORITIES} from './authorities.js'
import {detectionSchema} from './detection-note.js'

// The Article 33 draft's shape (published as schemas/article33.schema.json). The builder is
// article33.ts; authority forms are a projection of a draft (authority-forms.ts).

const range = z.object({low: z.number().int(), high: z.number().int().nullable(), method: z.string()})
const openItem = z.object({item: z.string(), ref: z.string()})

export const article33Schema = z.object({
  kind: z.literal('article33'),
  authority: z.enum(AUTHORITIES),
  language: z.enum(['en', 'fr']),
  phase: z.enum(['initial', 'follow-up']),
  final: z.boolean(),
  generated_at: z.string(),
  title: z.string(),
  detection: detectionSchema,
  role: z.enum(['controller', 'processor']).nullable(),
  clock: z
    .object({
      aware_at: z.string(),
      deadline: z.string(),
      remaining_seconds: z.number().int(),
      status: z.enum(['open', 'due_soon', 'overdue', 'notified']),
      remaining_text: z.string(),
      late: z.boolean(),
    })
    .nullable(),
  delay_reason: z.string().nullable(),
  controller: z.object({name: z.string().nullable(), contact: z.string().nullable(), processor: z.string().nullable(), internal_reference: z.string().nullable()}),
  contact_point: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  timeline: z.object({
    detected_at: z.string().nullable(),
    investigation_started_at: z.string().nullable(),
    aware_at: z.string().nullable(),
    awareness_basis: z.string().nullable(),
    awareness_decided_by: z.string().nullable(),
    awareness_amendments: z.number().int(),
    breach_started_at: z.string().nullable(),
    breach_ended_at: z.string().nullable(),
    first_seen: z.string().nullable(),
    last_seen: z.string().nullable(),
    dates_estimated: z.boolean(),
    discovery: z.string().nullable(),
  }),
  nature: z.object({
    summary: z.string(),
    types: z.array(z.enum(['confidentiality', 'integrity', 'availability'])),
    incident_category: z.string(),
    cause: z.string(),
    systems: z.string().nullable(),
    nodes: z.array(
      z.object({
        node: z.string(),
        responses: z.number().int(),
        cross_tenant_responses: z.number().int(),
        cross_session_responses: z.number().int(),
        provenance_responses: z.number().int(),
        at_risk_responses: z.number().int().nullable(),
        first_seen: z.string().nullable(),
        last_seen: z.string().nullable(),
      }),
    ),
  }),
  data_subjects: z.object({categories: z.array(z.string()), approximate: range.nullable()}),
  records: z.object({approximate: range.nullable()}),
  data_categories: z.array(z.object({kind: z.string(), label: z.string(), count: z.number().int(), responses: z.number().int()})),
  scope: z
    .object({
      contaminated_responses: z.number().int(),
      cross_tenant_responses: z.number().int(),
      cross_session_responses: z.number().int(),
      exposed_sessions: z.number().int(),
      exposed_tenants: z.number().int(),
      recipient_tenants: z.number().int(),
      first_seen: z.string().nullable(),
      last_seen: z.string().nullable(),
      at_risk_responses: z.number().int().nullable(),
      pool_tokens: z.number().int().nullable(),
      provenance_responses: z.number().int(),
      provenance_only_responses: z.number().int(),
      orphan_sightings: z.number().int(),
      bug_window: z.object({start: z.string(), end: z.string(), basis: z.string()}).nullable(),
      records_examined: z.number().int(),
      method: z.string(),
      flows: z.array(z.object({source_tenant: z.string(), recipient_tenant: z.string(), responses: z.number().int()})),
      by_hour: z.array(z.object({hour: z.string(), responses: z.number().int(), cross_tenant_responses: z.number().int(), provenance_responses: z.number().int(), at_risk_responses: z.number().int().nullable()})),
    })
    .nullable(),
  consequences: z.array(z.string()),
  measures_taken: z.array(z.string()),
  measures_proposed: z.array(z.string()),
  replay: z
    .object({
      runs: z.number().int(),
      results: z.number().int(),
      confirmed: z.number().int(),
      not_reproduced: z.number().int(),
      rejected: z.number().int(),
      trials: z.number().int(),
      reproduced: z.number().int(),
      rate: z.number(),
      wilson_low: z.number(),
      wilson_high: z.number(),
    })
    .nullable(),
  risk: z
    .object({
      outcome: z.enum(['document', 'notify', 'notify-subjects']),
      suggested: z.enum(['document', 'notify', 'notify-subjects']),
      method: z.string(),
      se: z.number(),
      band: z.string(),
      rationale: z.string(),
      decided_by: z.string().nullable(),
      at: z.string(),
    })
    .nullable(),
  article34: z.object({status: z.string()}),
  cross_border: z.object({lead_authority: z.string().nullable(), countries: z.string().nullable()}),
  notifications: z.array(z.object({phase: z.string(), at: z.string(), reference: z.string(), recipient: z.string(), file_sha256: z.string().nullable()})),
  open_items: z.array(openItem),
  evidence: z.array(z.object({path: z.string(), sha256: z.string(), size: z.number().int(), kind: z.string(), records: z.number().int()})),
  excerpts: z.array(z.object({request_id: z.string(), ts: z.string(), marker_truncated: z.string(), text: z.string()})).nullable(),
  form_fields: z.array(z.object({id: z.string(), label: z.string(), value: z.string()})),
})

/** `crosstalk report article33 --format json` */
export type Article33Result = z.infer<typeof article33Schema>
