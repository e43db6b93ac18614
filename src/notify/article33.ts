import {InputError} from '../errors.js'
import {formatDuration} from './time.js'
import type {CaseFacts} from './facts.js'
import {categoryLabel, PHRASES} from './phrases.js'
import {article33Schema, type Article33Result} from './article33-schema.js'
import type {Authority} from './authorities.js'
import {authorityFields} from './authority-forms.js'
import {detectionSummary} from './detection-note.js'

// The Article 33 notification as a plain object: built from CaseFacts only, validated by
// this zod schema (published as schemas/article33.schema.json), then rendered to Markdown,
// JSON or PDF at the edge. Whatever the case cannot answer becomes an open item for a
// follow-up phase (Art. 33(4)) instead of a refusal.

export {article33Schema, type Article33Result} from './article33-schema.js'

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
  const language = authority === 'cnil' ? 'fr' : 'en'
  const P = PHRASES[language]
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
  const need = (cond: boolean, item: [string, string], ref: string): void => {
    if (cond) open.push({item: language === 'fr' ? item[1] : item[0], ref})
  }
  need(!inc, ['No incident record: awareness time, role and title (crosstalk incident open)', 'Aucun incident enregistré : heure de prise de connaissance, rôle et intitulé (crosstalk incident open)'], 'Art. 33(1)')
  need(!inc?.controller_name, ['Controller name and contact details', 'Nom et coordonnées du responsable de traitement'], 'EDPB template 12-13')
  need(!inc?.dpo_name && !inc?.dpo_contact, ['Name and contact details of the DPO or other contact point', 'Nom et coordonnées du DPO ou d’un autre point de contact'], 'Art. 33(3)(b)')
  need(!inc?.awareness_basis, ['Basis for the awareness time (why there was reasonable certainty then) and who decided it', 'Fondement de l\'heure de prise de connaissance (pourquoi il y avait alors une certitude raisonnable) et qui l\'a décidée'], 'EDPB 9/2022; template 48')
  need(!inc?.detected_at, ['Time of first detection (alert or report)', 'Heure de la première détection (alerte ou signalement)'], 'EDPB template 50-53')
  need(!inc?.lead_authority, ['Lead supervisory authority (one-stop shop) or the authorities of every Member State concerned', 'Autorité de contrôle chef de file (guichet unique) ou autorités de chaque État membre concerné'], 'Art. 55-56; template 114')
  need(!inc?.countries, ['Countries of the affected data subjects and numbers per country', 'Pays des personnes concernées et nombre par pays'], 'EDPB template 116-117')
  need(Boolean(scope) && !facts.detection.complete, [`Detection is incomplete (${facts.detection.files_not_scanned} log file(s) not scanned${facts.detection.registry_changed ? ', canary registry changed since the last scan' : ''}${facts.detection.provenance === 'stale' ? ', provenance not current' : ''}): every number here covers only what was scanned (crosstalk scan)`, `Analyse incomplète (${facts.detection.files_not_scanned} fichier(s) de journaux non analysé(s)) : les chiffres ne couvrent que ce qui a été analysé (crosstalk scan)`], 'Art. 33(3)(a), 33(4)')
  need(!scope, ['Detection has not run: numbers of responses, sessions and tenants affected (crosstalk scan)', 'L\'analyse n\'a pas été effectuée : nombre de réponses, sessions et clients touchés (crosstalk scan)'], 'Art. 33(3)(a)')
  need(Boolean(scope) && scope!.data_subjects.high === null, ['Upper bound of the number of data subjects and records (the KV pool size is not known: crosstalk scan --pool-tokens N)', 'Borne haute du nombre de personnes et d\'enregistrements (taille du pool KV inconnue : crosstalk scan --pool-tokens N)'], 'Art. 33(3)(a), 33(4)')
  need(Boolean(scope) && scope!.data_subjects.low !== scope!.data_subjects.high, ['Exact number of data subjects (only a range is known so far)', 'Nombre exact de personnes concernées (seule une fourchette est connue à ce stade)'], 'Art. 33(3)(a), 33(4)')
  need(true, ['What the leaked prompts and completions contained beyond the detected identifiers (special categories? children?)', 'Contenu des requêtes et réponses divulguées au-delà des identifiants détectés (catégories particulières ? mineurs ?)'], 'Art. 33(3)(a); template 70')
  need(!inc?.breach_ended_at, ['Confirmation that the breach has ended (end time)', 'Confirmation de la fin de la violation (heure de fin)'], 'EDPB template 44-47')
  need(!facts.assessment, ['Risk assessment and the decision on it (crosstalk assess --decide ...)', 'Évaluation du risque et décision prise (crosstalk assess --decide ...)'], 'Art. 33(1), 34(1); template 89-90')
  need(!facts.replay, ['Reproduction of the fault on a test system (crosstalk replay) to confirm the root cause', 'Reproduction du défaut sur un système de test (crosstalk replay) pour confirmer la cause'], 'Art. 33(3)(d)')
  need(!inc?.measures_proposed, ['Preventive measures proposed', 'Mesures préventives envisagées'], 'Art. 33(3)(d); template 94-95')

  const types: Array<'confidentiality' | 'integrity' | 'availability'> = ['confidentiality']
  if ((scope?.cross_tenant_responses ?? 0) > 0 || (scope?.cross_session_responses ?? 0) > 0) types.push('integrity')

  const summary = scope ? P.summary(scope) : P.summaryNoScope

  const consequences = [P.consequences.confidentiality, P.consequences.control]
  if (types.includes('integrity')) consequences.push(P.consequences.integrity)
  if ((scope?.categories ?? []).some((c) => (c.kind === 'iban' || c.kind === 'card') && c.count > 0)) consequences.push(P.consequences.financial)

  const measuresTaken = splitList(inc?.measures_taken)
  if (scope) measuresTaken.push(P.logSearch(facts.totals.records, facts.totals.files))
  measuresTaken.push(facts.replay ? P.replay(facts.replay) : P.noReplay)
  if (facts.provenance && facts.provenance.attributed_responses > 0) measuresTaken.push(P.provenance(facts.provenance.attributed_responses))
  if ((facts.notifications ?? []).some((n) => n.recipient !== 'authority')) measuresTaken.push(P.customersNotified)
  const measuresProposed = splitList(inc?.measures_proposed)
  if (measuresProposed.length === 0) measuresProposed.push(P.defaultProposed)

  const a = facts.assessment
  const article34 = a
    ? a.decision === 'notify-subjects'
      ? P.article34.subjects
      : P.article34.no
    : P.article34.undecided

  const draft: Article33Result = {
    kind: 'article33',
    authority,
    language,
    phase: options.phase ?? 'initial',
    final: options.final ?? false,
    generated_at: facts.generated_at,
    title: inc?.title ?? 'Personal data breach (untitled)',
    detection: detectionSummary(facts.detection),
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
      incident_category: P.incidentCategory,
      cause: P.cause,
      systems: inc?.systems ?? null,
      nodes: scope?.by_node ?? [],
    },
    data_subjects: {
      categories: P.subjectCategories,
      approximate: scope ? {...scope.data_subjects, method: language === 'fr' ? P.subjectsMethod(scope.data_subjects) : scope.data_subjects.method} : null,
    },
    records: {approximate: scope ? {...scope.records, method: language === 'fr' ? P.recordsMethod(scope.records) : scope.records.method} : null},
    data_categories: (scope?.categories ?? []).map((c) => ({...c, label: categoryLabel(c.kind, c.label, language)})),
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
          pool_tokens: scope.pool_tokens,
          provenance_responses: scope.provenance_responses,
          provenance_only_responses: scope.provenance_only_responses,
          orphan_sightings: scope.orphan_sightings,
          bug_window: scope.bug_window,
          records_examined: facts.totals.records,
          method: language === 'fr' ? P.scopeMethod : scope.method,
          flows: scope.flows,
          by_hour: scope.by_hour,
        }
      : null,
    consequences,
    measures_taken: measuresTaken,
    measures_proposed: measuresProposed,
    replay: facts.replay
      ? (({items: _items, targets: _targets, original_prompt: _op, ...r}) => r)(facts.replay)
      : null,
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
