import {z} from 'zod'
import {InputError} from '../errors.js'
import {formatDuration} from './time.js'
import type {CaseFacts} from './facts.js'
import {authorityFields, AUTHORITIES, type Authority} from './authority-forms.js'

// The Article 33 notification as a plain object: built from CaseFacts only, validated by
// this zod schema (published as schemas/article33.schema.json), then rendered to Markdown,
// JSON or PDF at the edge. Whatever the case cannot answer becomes an open item for a
// follow-up phase (Art. 33(4)) instead of a refusal.

const range = z.object({low: z.number().int(), high: z.number().int(), method: z.string()})
const openItem = z.object({item: z.string(), ref: z.string()})

export const article33Schema = z.object({
  kind: z.literal('article33'),
  authority: z.enum(AUTHORITIES),
  language: z.enum(['en', 'fr']),
  phase: z.enum(['initial', 'follow-up']),
  final: z.boolean(),
  generated_at: z.string(),
  title: z.string(),
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
    nodes: z.array(z.object({node: z.string(), phase: z.string(), responses: z.number().int()})),
  }),
  data_subjects: z.object({categories: z.array(z.string()), approximate: range.nullable()}),
  records: z.object({approximate: range.nullable()}),
  data_categories: z.array(z.object({kind: z.string(), label: z.string(), count: z.number().int()})),
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
      records_examined: z.number().int(),
      method: z.string(),
      flows: z.array(z.object({source_tenant: z.string(), recipient_tenant: z.string(), responses: z.number().int()})),
      by_hour: z.array(z.object({hour: z.string(), responses: z.number().int()})),
    })
    .nullable(),
  consequences: z.array(z.string()),
  measures_taken: z.array(z.string()),
  measures_proposed: z.array(z.string()),
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

export interface BuildArticle33Options {
  authority?: Authority
  phase?: 'initial' | 'follow-up'
  delayReason?: string
  final?: boolean
}

const splitList = (text: string | null | undefined): string[] =>
  (text ?? '')
    .split(/;|\n/)
    .map((s) => s.trim())
    .filter(Boolean)

export function buildArticle33(facts: CaseFacts, options: BuildArticle33Options = {}): Article33Result {
  const authority = options.authority ?? 'edpb'
  const inc = facts.incident
  const scope = facts.scope
  const clock = facts.clock
  const delayReason = options.delayReason?.trim() || null
  // Art. 33(1): "where the notification ... is not made within 72 hours, it shall be
  // accompanied by reasons for the delay". A late draft cannot leave without them.
  const late = clock?.status === 'overdue' || Boolean(clock?.notified_at && clock.notified_at > clock.deadline && (options.phase ?? 'initial') === 'initial')
  if (clock?.status === 'overdue' && !delayReason) {
    throw new InputError(
      `the 72-hour deadline passed at ${clock.deadline} (${formatDuration(clock.remaining_seconds)}): a late notification must give the reasons for the delay (GDPR Art. 33(1)); pass --delay-reason TEXT`,
      'E_DELAY_REASON',
    )
  }
  const open: Array<{item: string; ref: string}> = []
  const need = (cond: boolean, item: string, ref: string): void => {
    if (cond) open.push({item, ref})
  }
  need(!inc, 'No incident record: awareness time, role and title (crosstalk incident open)', 'Art. 33(1)')
  need(!inc?.controller_name, 'Controller name and contact details', 'EDPB template 12-13')
  need(!inc?.dpo_name && !inc?.dpo_contact, 'Name and contact details of the DPO or other contact point', 'Art. 33(3)(b)')
  need(!inc?.awareness_basis, 'Basis for the awareness time (why there was reasonable certainty then) and who decided it', 'EDPB 9/2022; template 48')
  need(!inc?.detected_at, 'Time of first detection (alert or report)', 'EDPB template 50-53')
  need(!inc?.lead_authority, 'Lead supervisory authority (one-stop shop) or the authorities of every Member State concerned', 'Art. 55-56; template 114')
  need(!inc?.countries, 'Countries of the affected data subjects and numbers per country', 'EDPB template 116-117')
  need(!scope, 'Detection has not run: numbers of responses, sessions and tenants affected (crosstalk scan)', 'Art. 33(3)(a)')
  need(Boolean(scope) && scope!.data_subjects.low !== scope!.data_subjects.high, 'Exact number of data subjects (only a range is known so far)', 'Art. 33(3)(a), 33(4)')
  need(true, 'What the leaked prompts and completions contained beyond the detected identifiers (special categories? children?)', 'Art. 33(3)(a); template 70')
  need(!inc?.breach_ended_at, 'Confirmation that the breach has ended (end time)', 'EDPB template 44-47')
  need(!facts.assessment, 'Risk assessment and the decision on it (crosstalk assess --decide ...)', 'Art. 33(1), 34(1); template 89-90')
  need(!facts.replay, 'Reproduction of the fault on a test system (crosstalk replay) to confirm the root cause', 'Art. 33(3)(d)')
  need(!inc?.measures_proposed, 'Preventive measures proposed', 'Art. 33(3)(d); template 94-95')

  const types: Array<'confidentiality' | 'integrity' | 'availability'> = ['confidentiality']
  if ((scope?.cross_tenant_responses ?? 0) > 0 || (scope?.cross_session_responses ?? 0) > 0) types.push('integrity')

  const summary = scope
    ? `A fault in the shared LLM serving system (prompt/KV cache reuse) caused responses to be generated from another user's cached context. ${scope.contaminated_responses} responses carried data belonging to another session (${scope.cross_tenant_responses} of them to a different customer organisation), exposing data of ${scope.exposed_sessions} sessions of ${scope.exposed_tenants} customers to ${scope.recipient_tenants} receiving customers between ${scope.first_seen ?? 'unknown'} and ${scope.last_seen ?? 'unknown'} (UTC).`
    : 'A fault in the shared LLM serving system is suspected of serving one customer\'s data to another. Detection over the logs has not run yet; the scope is not known.'

  const consequences = [
    'Loss of confidentiality: personal data in prompts and completions of affected users was shown to other users, including users of other organisations.',
    'Loss of control over personal data; depending on content, risk of identity theft or fraud (identifiers and financial data), phishing using the disclosed contact details, and reputational damage or distress.',
  ]
  if (types.includes('integrity')) consequences.push('Integrity: receiving users got responses built from someone else\'s context and may have acted on wrong information.')
  if ((scope?.categories ?? []).some((c) => (c.kind === 'iban' || c.kind === 'card') && c.count > 0)) consequences.push('Financial data (IBAN / payment card numbers) was disclosed: risk of fraud and financial loss.')

  const measuresTaken = splitList(inc?.measures_taken)
  if (scope) measuresTaken.push(`Logs of ${facts.totals.records} responses from ${facts.totals.files} files were searched for canary markers; every affected response, session and customer is identified (evidence annex, SHA-256).`)
  if (facts.replay) measuresTaken.push(`Fault reproduced on an isolated testbed (${facts.replay.results} replay results recorded).`)
  if (facts.provenance) measuresTaken.push(`${facts.provenance.attributed_responses} contaminated responses were attributed to the source request by verbatim text overlap.`)
  if ((facts.notifications ?? []).some((n) => n.recipient !== 'authority')) measuresTaken.push('Affected customers (controllers) were notified (Art. 33(2)); see notifications.')
  const measuresProposed = splitList(inc?.measures_proposed)
  if (measuresProposed.length === 0) measuresProposed.push('Keep cache isolation per tenant; add a gate (crosstalk probe --fail-on-leak) to deployment; ask receiving customers to delete the affected responses.')

  const a = facts.assessment
  const article34 = a
    ? a.decision === 'notify-subjects'
      ? 'Data subjects will be informed (high risk, Art. 34(1)).'
      : 'Not informed: the assessment did not find a likely high risk (Art. 34(1)); under review as facts emerge.'
    : 'Not decided yet: investigation ongoing.'

  const draft: Article33Result = {
    kind: 'article33',
    authority,
    language: authority === 'cnil' ? 'fr' : 'en',
    phase: options.phase ?? 'initial',
    final: options.final ?? false,
    generated_at: facts.generated_at,
    title: inc?.title ?? 'Personal data breach (untitled)',
    role: inc?.role ?? null,
    clock: clock ? {aware_at: clock.aware_at, deadline: clock.deadline, remaining_seconds: clock.remaining_seconds, status: clock.status, remaining_text: formatDuration(clock.remaining_seconds), late} : null,
    delay_reason: delayReason,
    controller: {name: inc?.controller_name ?? null, contact: inc?.controller_contact ?? null, processor: inc?.processor_name ?? null, internal_reference: inc?.internal_reference ?? null},
    contact_point: {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null},
    timeline: {
      detected_at: inc?.detected_at ?? null,
      investigation_started_at: inc?.investigation_started_at ?? null,
      aware_at: inc?.aware_at ?? null,
      awareness_basis: inc?.awareness_basis ?? null,
      awareness_decided_by: inc?.awareness_decided_by ?? null,
      awareness_amendments: facts.amendments.length,
      breach_started_at: inc?.breach_started_at ?? scope?.first_seen ?? null,
      breach_ended_at: inc?.breach_ended_at ?? null,
      first_seen: scope?.first_seen ?? null,
      last_seen: scope?.last_seen ?? null,
      dates_estimated: !inc?.breach_started_at,
      discovery: inc?.discovery ?? null,
    },
    nature: {
      summary,
      types,
      incident_category: 'Personal data displayed to wrong recipient; technical malfunction (shared cache of an LLM serving system)',
      cause: 'Internal, non-malicious (software fault)',
      systems: inc?.systems ?? null,
      nodes: scope?.by_node ?? [],
    },
    data_subjects: {
      categories: ["End users of the affected customers' applications (users / customers)", 'People named in the text of prompts and completions'],
      approximate: scope?.data_subjects ?? null,
    },
    records: {approximate: scope?.records ?? null},
    data_categories: scope?.categories ?? [],
    scope: scope
      ? {
          contaminated_responses: scope.contaminated_responses,
          cross_tenant_responses: scope.cross_tenant_responses,
          cross_session_responses: scope.cross_session_responses,
          exposed_sessions: scope.exposed_sessions,
          exposed_tenants: scope.exposed_tenants,
          recipient_tenants: scope.recipient_tenants,
          first_seen: scope.first_seen,
          last_seen: scope.last_seen,
          at_risk_responses: scope.at_risk_responses,
          records_examined: facts.totals.records,
          method: scope.method,
          flows: scope.flows,
          by_hour: scope.by_hour,
        }
      : null,
    consequences,
    measures_taken: measuresTaken,
    measures_proposed: measuresProposed,
    risk: a
      ? {
          outcome: a.decision,
          suggested: a.suggested,
          method: `ENISA 2013 severity SE = DPC x EI + CB = ${a.dpc} x ${a.ei} + ${a.cb} = ${a.se} (${a.band}); advisory, weighed against the EDPB 9/2022 risk factors`,
          se: a.se,
          band: a.band,
          rationale: a.rationale,
          decided_by: a.decided_by,
          at: a.at,
        }
      : null,
    article34: {status: article34},
    cross_border: {lead_authority: inc?.lead_authority ?? null, countries: inc?.countries ?? null},
    notifications: facts.notifications.map((n) => ({phase: n.phase, at: n.at, reference: n.reference, recipient: n.recipient, file_sha256: n.file_sha256})),
    open_items: open,
    evidence: facts.evidence,
    excerpts: facts.excerpts,
    form_fields: [],
  }
  draft.form_fields = authorityFields(authority, draft)
  return article33Schema.parse(draft)
}
