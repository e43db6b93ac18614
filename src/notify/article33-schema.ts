import {z} from 'zod'
import {AUTHORITIES} from './authorities.js'
import {detectionSchema} from './detection-note.js'
import {finalisedWithOpenItemsSchema} from './finalise.js'
import {openItemSchema, statementSchema} from './statements.js'

// The Article 33 draft's shape (published as schemas/article33.schema.json). The builder is
// article33.ts; authority forms are a projection of a draft (authority-forms.ts).
//
// Every sentence the draft states is in `statements`, each with the recorded facts it rests
// on (`rests_on`, see statements.ts); what the case does not hold is in `open_items`. The
// text fields below (nature.summary, measures_taken, ...) are those statements' texts,
// grouped for the templates.

const range = z.object({low: z.number().int(), high: z.number().int().nullable(), method: z.string()})
const flow = z.object({source_tenant: z.string(), recipient_tenant: z.string(), responses: z.number().int()})

export const exposureSchema = z.object({
  responses: z.number().int(),
  by_canary: z.number().int(),
  by_text_only: z.number().int(),
  sessions: z.number().int(),
  source_tenants: z.number().int(),
  recipient_tenants: z.number().int(),
  flows: z.array(flow),
  source_not_named: z
    .number()
    .int()
    .optional()
    .describe("of responses, those whose only evidence names no source tenant: verbatim text in several tenants' prompts (ambiguous) or only in answers whose prompts were not logged (unknown), or a canary marker cut short of the markers of several tenants' sessions (marker_source_not_named); counted as received, in no flow, no tenant counted as certainly exposed by them"),
  session_not_named: z.number().int().optional().describe('of responses, those carrying evidence whose source session is not named (a canary marker cut short of several sessions\' markers; text whose source is not established): sessions is then the named count and sessions_low the lower bound. Absent: none'),
  marker_session_not_named: z.number().int().optional().describe('of session_not_named, those holding a canary marker cut short of the markers of several sessions (not verbatim text)'),
  marker_source_not_named: z.number().int().optional().describe('of marker_session_not_named, those whose marker names no tenant either (its possible sources are sessions of several tenants)'),
  sessions_low: z.number().int().optional().describe('sessions whose data reached another session, at least: the named ones plus those the unnamed evidence shows to be others (absent: sessions)'),
  source_tenants_low: z.number().int().optional().describe('tenants whose data reached another session, at least (absent: source_tenants)'),
})

const draftScopeSchema = z
  .object({
    /** canary and verbatim text together: the numbers this draft states */
    exposure: exposureSchema,
    contaminated_responses: z.number().int(),
    cross_tenant_responses: z.number().int(),
    cross_session_responses: z.number().int(),
    exposed_sessions: z.number().int(),
    exposed_tenants: z.number().int(),
    recipient_tenants: z.number().int(),
    first_seen: z.string().nullable(),
    last_seen: z.string().nullable(),
    at_risk_responses: z.number().int().nullable(),
    /** records whose status or prompt size is not recorded where that leaves open whether they were at risk (null without a pool size, or for one controller's share) */
    at_risk_unknown_records: z.number().int().nullable(),
    pool_tokens: z.number().int().nullable(),
    provenance_responses: z.number().int(),
    provenance_only_responses: z.number().int(),
    orphan_sightings: z.number().int(),
    bug_window: z.object({start: z.string(), end: z.string(), basis: z.string()}).nullable(),
    /** responses and log files a finished scan covered */
    records_examined: z.number().int(),
    /** answers that decoded to no text: never examined for markers or verbatim text */
    responses_without_text: z.number().int(),
    /** responses provenance set aside as boilerplate (null: not known), and the tenants' count that makes text boilerplate */
    provenance_boilerplate_responses: z.number().int().nullable(),
    provenance_boilerplate_tenants: z.number().int().nullable(),
    log_files: z.number().int(),
    /** responses and complete log files ingested that no finished scan covered (--allow-incomplete): not examined */
    records_not_examined: z.number().int(),
    log_files_not_examined: z.number().int(),
    /** log sources an ingest reached and could not read, still open in the case (crosstalk status lists them): not examined */
    log_sources_not_read: z.number().int(),
    log_sources_dismissed: z
      .array(z.object({name: z.string(), reason: z.string()}))
      .describe('log sources an ingest could not read, settled with crosstalk ingest dismiss: never searched; each with the reason recorded'),
    log_files_not_read_whole: z.number().int().describe('complete log files kept but not read whole (what they did not yield was not examined; an open item names each)'),
    retry_leaks_not_counted: z.number().int().describe("responses logged under the request id of a response already counted (a retry) whose answer carries another session's canary marker: served, yet in none of these figures (an open item names each line)"),
    duplicate_lines_not_examined: z.number().int().describe("responses logged under the request id of a response already counted (a retry) that differ from it and could not be read again: whether they carry another session's data, and whose, is not known (an open item; on a controller's behalf too: its data may be in any)"),
    /** canary registry files in the case (0: no marker could be attributed; the marker counts are not findings) */
    registry_files: z.number().int(),
    method: z.string(),
    /** the canary flows, as scope --json's flows; the exposure's flows are in exposure.flows */
    flows: z.array(flow),
    by_hour: z.array(z.object({hour: z.string(), responses: z.number().int(), cross_tenant_responses: z.number().int(), provenance_responses: z.number().int(), text_only_responses: z.number().int(), at_risk_responses: z.number().int().nullable()})),
  })

export const replayGroupSchema = z.object({
  target: z.string(),
  target_kind: z.enum(['simulator', 'external', 'unrecorded']),
  target_version: z.string().nullable(),
  model: z.string(),
  purpose: z.enum(['confirmation', 'negative-control', 'unrecorded']),
  run_ids: z.array(z.number().int()),
  first_at: z.string(),
  last_at: z.string(),
  records: z.number().int(),
  confirmed: z.number().int(),
  not_reproduced: z.number().int(),
  rejected: z.number().int(),
  /** distinct records no trigger of which was judged (each hung, errored, had no readable text or was not read whole) */
  inconclusive: z.number().int(),
  trials: z.number().int(),
  /** triggers answered with no readable text or not read whole (a stream cut off): not judged, in none of `trials`; null: not recorded (results stored before case schema 15) */
  unjudged_trials: z.number().int().nullable(),
  /** triggers that hung or errored: not judged, in none of `trials` */
  hung_or_errored_trials: z.number().int().optional(),
  reproduced: z.number().int(),
  /** reproduced / trials; null where no trial was judged (not known, never 0) */
  rate: z.number().nullable(),
  wilson_low: z.number(),
  wilson_high: z.number(),
  /** whether any record's original prompt was re-sent */
  original_prompt: z.boolean(),
  /** distinct records whose original prompt was re-sent; the others were sent synthetic stand-ins, sized as stand_in_sizes says */
  original_prompt_records: z.number().int().optional(),
  /** how the stand-ins' sizes were mapped from the recorded ones (as_recorded: same length; scaled_to_pool, clamped_to_gap, clamped_to_window, unrecorded_window_max), with the distinct records sent each way */
  stand_in_sizes: z.array(z.object({scaling: z.string(), records: z.number().int()})).optional(),
  /** answers to the priming requests that carried another synthetic tenant's marker (the target leaked during the replay); null: not recorded (results stored before case schema 16) */
  primer_leaks: z.number().int().nullable().optional(),
  /** answers (to triggers, and since this release to priming requests) that carried a marker the replay gave no synthetic tenant, or one cut short so that whose it is cannot be told: not judged; null: not recorded */
  other_markers: z.number().int().nullable().optional(),
  /** distinct sessions of the case's canary registry whose markers those answers carried; null: not recorded */
  other_owner_sessions: z.number().int().nullable().optional(),
  interrupted: z.boolean(),
})

const rangeThen = z.object({low: z.number().int(), high: z.number().int().nullable()}).nullable()

/** The scope a notification was based on (store/notifications.ts NotificationScope). */
export const notificationScopeSchema = z.object({
  known: z.boolean(),
  /** false: detection did not cover the whole case then (or markers no registry attributed): each figure a lower bound */
  detection_complete: z.boolean(),
  responses: z.number().int().nullable(),
  sessions: z.number().int().nullable(),
  source_tenants: z.number().int().nullable(),
  recipient_tenants: z.number().int().nullable(),
  controllers: z.number().int().nullable(),
  data_subjects: rangeThen,
  records: rangeThen,
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  scan: z.object({finished_at: z.string(), sighting_rules: z.number().int().nullable(), extract_scheme: z.string()}).nullable(),
})

export const notificationFactSchema = z.object({
  id: z.number().int(),
  phase: z.enum(['initial', 'follow-up']),
  at: z.string(),
  reference: z.string(),
  recipient: z.string(),
  /** a processor's case: the controller an authority notification was made for (notify record --controller); null: none named */
  controller: z.string().nullable(),
  file_sha256: z.string().nullable(),
  /** null: not known (no fixed deadline for it: a processor's notice to a controller with no contractual period, a notice to the data subjects) */
  late: z.boolean().nullable(),
  delay_reason: z.string().nullable(),
  /**
   * the scope it was based on, stored when it was recorded (notify record; a later scan never changes it): counts null where
   * not known then; `known` false: the case gave no scope then; null: not recorded (a notification recorded before this release)
   */
  scope_at_notification: notificationScopeSchema.nullable(),
  /** a draft for one controller: a scope was stored with it, but it is the whole case's (other customers' figures), so scope_at_notification is null here (absent: false) */
  scope_withheld: z.boolean().optional(),
  /** the scan stored with it finished after it was sent (recorded later, with --at in the past): the scope kept is the one current when it was recorded, not what it rested on (absent: false) */
  scope_recorded_after_sent: z.boolean().optional(),
  /**
   * a processor's notification to the authority made for a controller: that controller's awareness, which its Art. 33(1)
   * 72 hours (and late) count from, taken as the processor's first initial notice to it; null: not known (no controller
   * named, or no notice to it recorded); absent: not such a notification
   */
  controller_aware_at: z.string().nullable().optional(),
  /** whom it went to: the authority, the data subjects, or a controller (recipient is then its tenant id, which may read "authority") */
  recipient_kind: z.enum(['authority', 'data-subjects', 'controller']),
})

export const clockSchema = z.object({
  aware_at: z.string(),
  /** null: no fixed deadline (a processor without a contractual period) */
  deadline: z.string().nullable(),
  remaining_seconds: z.number().int().nullable(),
  status: z.enum(['open', 'due_soon', 'overdue', 'notified']),
  remaining_text: z.string(),
  /** null: not known (no fixed deadline) */
  late: z.boolean().nullable(),
  basis: z.string(),
})

export const article33Schema = z.object({
  kind: z.literal('article33'),
  /** true until --final: every rendering says DRAFT (or the language's word for it) */
  draft: z.boolean(),
  final: z.boolean(),
  /** who accepted finalising it with open items, and when (--final --accept-open-items NAME); null otherwise */
  finalised_with_open_items: finalisedWithOpenItemsSchema,
  authority: z.enum(AUTHORITIES),
  language: z.enum(['en', 'fr']),
  /** where the language came from: --lang, the authority (--authority cnil), or the default */
  language_basis: z.enum(['given', 'authority', 'default']),
  phase: z.enum(['initial', 'follow-up']),
  generated_at: z.string(),
  title: z.string(),
  detection: detectionSchema,
  role: z.enum(['controller', 'processor']).nullable(),
  /** a processor's draft for a controller that authorised it (--on-behalf-of-controller) */
  prepared_on_behalf_of: z.string().nullable(),
  clock: clockSchema.nullable(),
  delay_reason: z.string().nullable(),
  controller: z.object({
    name: z.string().nullable(),
    contact: z.string().nullable(),
    processor: z.string().nullable(),
    internal_reference: z.string().nullable(),
    sector: z.string().nullable(),
    organisation_size: z.string().nullable(),
    economic_activity: z.string().nullable(),
    eea_representative: z.string().nullable(),
  }),
  contact_point: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  reporting_person: z.object({name: z.string().nullable(), role: z.string().nullable()}),
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
    informed_by: z.string().nullable(),
    informed_at: z.string().nullable(),
  }),
  nature: z.object({
    summary: z.array(z.string()),
    types: z.array(z.enum(['confidentiality', 'integrity', 'availability'])),
    incident_category: z.string().nullable(),
    cause: z.array(z.string()),
    systems: z.string().nullable(),
    nodes: z.array(
      z.object({
        node: z.string(),
        /** the marker counts: null where the case holds no canary registry (not known, as scope --json's by_node) */
        responses: z.number().int().nullable(),
        cross_tenant_responses: z.number().int().nullable(),
        cross_session_responses: z.number().int().nullable(),
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
  scope: draftScopeSchema.nullable(),
  scope_as_it_stands: z
    .object({
      /** which findings do not cover the case, and why */
      reason: z.string(),
      figures: z.array(
        z.object({
          key: z.string(),
          label: z.string(),
          /** null: not known (the note says why) */
          value: z.number().int().nullable(),
          known: z.boolean(),
          /** what the figure rests on */
          basis: z.string(),
          note: z.string(),
        }),
      ),
    })
    .nullable()
    .optional()
    .describe("where a scan ran but its findings no longer cover the case (scope is null then): every scope figure, each with its base; those whose base has not changed since the scan keep their value, the others are null with why (never left out)"),
  measures_before: z.string().nullable(),
  /** whether the exposed data was unintelligible to whoever received it, as recorded (incident set --data-unintelligible) [57]; null: not recorded (an open item) */
  data_unintelligible: z.enum(['protection-intact', 'protection-likely-subvertible', 'no', 'cannot-assess']).nullable(),
  investigation: z.array(z.string()),
  consequences: z.array(z.string()),
  measures_taken: z.array(z.string()),
  measures_proposed: z.array(z.string()),
  replay: z.object({groups: z.array(replayGroupSchema)}).nullable(),
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
      statement: z.string(),
    })
    .nullable(),
  article34: z.object({status: z.string().nullable()}),
  cross_border: z.object({processing: z.enum(['yes', 'no']).nullable(), lead_authority: z.string().nullable(), countries: z.string().nullable(), establishment_countries: z.string().nullable(), subjects_per_country: z.string().nullable(), authorities_notified: z.string().nullable()}),
  other_authorities: z.object({police: z.string().nullable(), others: z.string().nullable()}),
  notifications: z.array(notificationFactSchema),
  notification_statements: z.array(z.string()),
  statements: z.array(statementSchema),
  open_items: z.array(openItemSchema),
  evidence: z.array(z.object({
    name: z.string(), sha256: z.string(), size: z.number().int(), kind: z.string(),
    records: z.number().int().describe('the records this file stored: for a later version of a grown log, those it added (version.records_held: all its bytes hold)'),
    version: z.object({number: z.number().int(), of: z.number().int(), records_held: z.number().int()}).optional()
      .describe('a log held in several versions (ingested again once it grew, each beginning with the bytes of the one before): which version, of how many, and the records its bytes hold'),
    same_name: z.object({number: z.number().int(), of: z.number().int()}).optional().describe('other files (not versions of one log) share its name: which of them it is, in ingest order'),
  })),
  excerpts: z.array(z.object({request_id: z.string(), ts: z.string(), marker_truncated: z.string(), text: z.string()})).nullable(),
  excerpts_note: z
    .string()
    .nullable()
    .describe('with --include-excerpts: what the excerpts cover (canary-marker findings only) and how many responses found by verbatim text alone have none; null without the flag'),
  form_fields: z.array(z.object({id: z.string(), label: z.string(), value: z.string(), open: z.boolean()})),
})

/** `crosstalk report article33 --format json` */
export type Article33Result = z.infer<typeof article33Schema>

// The draft as `report article33 --json` / `--format json` gives it (article33Json): with no canary
// registry the marker counts are not known (null, as scope --json's), and where answers also hold
// marker-shaped tokens no exposure figure is known (exposureKnown): null, never the verbatim
// text's lower bound given as the total. A case with a registry is the draft itself.
const unknownNumber = z.number().int().nullable()
const lowBoundRange = z.object({
  low: z.number().int().nullable().describe('null: not known (no bound found and the exposure is not known: exposure_known false), never 0'),
  high: z.number().int().nullable(),
  method: z.string(),
})
const jsonScopeSchema = draftScopeSchema.extend({
  exposure_known: z
    .literal(false)
    .optional()
    .describe('present (false) only where the exposure is not known: the case holds no canary registry and answers hold marker-shaped tokens no session can be given (orphans); absent where it is known'),
  exposure_unknown_reason: z.string().optional().describe('why the exposure is not known; present with exposure_known'),
  exposure: exposureSchema
    .extend({by_canary: unknownNumber.describe('null: the case holds no canary registry (not known)')})
    .nullable()
    .describe('null where the exposure is not known (exposure_known false)'),
  exposure_at_least: exposureSchema
    .extend({by_canary: z.null()})
    .optional()
    .describe('where the exposure is not known: the figures verbatim text shows, each a lower bound, never the total'),
  contaminated_responses: unknownNumber,
  cross_tenant_responses: unknownNumber,
  cross_session_responses: unknownNumber,
  exposed_sessions: unknownNumber,
  exposed_tenants: unknownNumber,
  recipient_tenants: unknownNumber,
  flows: z.array(flow).nullable(),
  by_hour: z.array(z.object({hour: z.string(), responses: unknownNumber, cross_tenant_responses: unknownNumber, provenance_responses: z.number().int(), text_only_responses: z.number().int(), at_risk_responses: z.number().int().nullable()})),
})

export const article33JsonSchema = article33Schema.extend({
  data_subjects: z.object({categories: z.array(z.string()), approximate: lowBoundRange.nullable()}),
  records: z.object({approximate: lowBoundRange.nullable()}),
  scope: jsonScopeSchema.nullable(),
})

/** `crosstalk report article33 --json` (or `--format json`) */
export type Article33Json = z.infer<typeof article33JsonSchema>
