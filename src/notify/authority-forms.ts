import {PER_COUNTRY_BELOW, WINDOW_END_CONTRADICTED, WINDOW_START_CONTRADICTED} from './recorded-vs-logs.js'
import type {Article33Result} from './article33-schema.js'
import {AWARE_BEFORE_DETECTION, AWARE_BEFORE_START, DETECTED_BEFORE_START, INVESTIGATION_BEFORE_DETECTION} from './timeline-order.js'
import type {Phrases} from './phrases-en.js'
import {joinItems} from './statements.js'
import {rangeText} from './phrases.js'
import {exposureKnown} from '../scope/unscanned.js'
import {isNotExaminedRemedy} from './facts.js'
import {PROTECTION_CONTRADICTED} from './protection.js'
import {CROSS_BORDER_CONTRADICTED} from './cross-border.js'
import {BAD_LINES_REMEDY, DUPLICATE_LEAKS_REMEDY, GROWN_REMEDY, DUPLICATES_NOT_EXAMINED_REMEDY, NO_REGISTRY_REMEDY, NO_REQUEST_TEXT_REMEDY, NOT_COMPARABLE_REMEDY, NOT_READ_WHOLE_REMEDY, PII_ATTRIBUTED_REMEDY, UNREAD_SOURCES_REMEDY} from './facts.js'

// The same draft mapped onto each authority's form (reference: sa-forms.md): field ids are
// the draft EDPB common template's row numbers, the ICO form's questions, the CNIL
// téléservice's steps and the DPC's web form, so a responder can copy value by value. Every
// item of those forms is either answered from the case (a recorded fact or a statement of
// the draft) or shown as "to be completed: ..."; never left blank, never a default. Labels
// are given in both languages of the drafts.

export {AUTHORITIES, AUTHORITY_NAMES, type Authority} from './authorities.js'
import type {Authority} from './authorities.js'
import {compte, count, frSingular as un} from '../util/plural.js'

export interface FormField {
  id: string
  label: string
  value: string
  /** true when the case does not answer it yet (the value says what is to be completed) */
  open: boolean
}

/** The ref of a controller's draft's open item for its own DPO or contact point (fields 29-36 repeat it). */
export const ON_BEHALF_CONTACT = 'Art. 33(3)(b); template 29-36'
/** The ref of the draft's open item for the breach start (fields 44-46 repeat its text). */
export const BREACH_START_REF = 'EDPB template 44-46'

type Draft = Omit<Article33Result, 'form_fields' | 'finalised_with_open_items'>
export type Answer = {value: string; open: boolean}
type Field = [id: string, en: string, fr: string, answer: Answer]

/**
 * What a draft says where it states no affected response (a form field, the draft's own "none"
 * cells): "none" over every log only where detection examined everything; the first thing it did
 * not examine, as the item to complete, while one is open; "none found in what was searched"
 * beside a source dismissed unread (`whole`: everything was examined). The one decision every
 * "none" of an Article 33 draft reads.
 */
export function noLeakAnswer(d: Draft, P: Phrases): Answer & {whole?: true} {
  const o = P.open
  // Empty after a whole scan means none was found: a finding. Empty without a scan, or after a
  // partial one, is not known: an open item.
  const scanned = d.scope !== null && d.scope !== undefined
  // Answers with no text were never examined: "none found" cannot speak for them.
  const withoutText = d.scope?.responses_without_text ?? 0
  // A case whose logs gave no record at all (a convention ingest does not read) examined nothing.
  const noRecords = scanned && d.scope!.records_examined === 0 && d.scope!.records_not_examined === 0
  // A log source not read, the part of a file not read whole, or quarantined lines were never searched: "none found over every log" is not said (its open item is).
  // Nor where a retry under a counted request id carried another session's marker (a response served, in no figure).
  // Nor where such a retry could not be read again (whose data it carries is not known).
  const notExamined = d.open_items.find((o) => isNotExaminedRemedy(o.record_with))
  return !scanned
    ? {value: P.toComplete(o.noScan), open: true}
    : noRecords
      ? {value: P.toComplete(o.noRecords), open: true}
    : withoutText > 0
      ? {value: P.toComplete(o.responsesWithoutText(withoutText)), open: true}
      : (d.scope?.provenance_boilerplate_responses ?? 0) > 0 && d.scope?.provenance_boilerplate_tenants != null
        ? {value: P.toComplete(o.boilerplateResponses(d.scope.provenance_boilerplate_responses!, d.scope.provenance_boilerplate_tenants)), open: true}
      : notExamined !== undefined
        ? {value: P.toComplete(notExamined.item), open: true}
      : d.detection.complete
      ? // A source dismissed unread was never searched: "none" is said of what was, beside it and its reason (none-found.ts).
        (d.scope?.log_sources_dismissed ?? []).length > 0
        ? {value: `${P.noneFoundInSearched} ${P.dismissedSources(d.scope!.log_sources_dismissed)}`, open: false}
        : {value: P.noneFound, open: false, whole: true}
      : {value: P.toComplete(o.detectionIncomplete(d.detection.files_not_scanned)), open: true}
}

// Field 44 names which end of the window rests on the logs: a start not recorded is the first affected
// response in the logs; a recorded end is the recorded fact (the logs' last affected response is another
// time), and an end not recorded is not estimated at all ("end not confirmed").
export function windowLabel(startedAt: string | null, endedAt: string | null, fr: boolean): string {
  if (startedAt) return ''
  if (endedAt) return fr ? ' (début estimé : première réponse concernée dans les journaux ; fin telle qu’enregistrée)' : ' (start estimated: first affected response in the logs; end as recorded)'
  return fr ? ' (début estimé : première réponse concernée dans les journaux)' : ' (start estimated: first affected response in the logs)'
}

function answers(d: Draft, P: Phrases) {
  const fr = P.lang === 'fr'
  const known = (value: string | null | undefined, missing: string): Answer => (value && value.trim() ? {value, open: false} : {value: P.toComplete(missing), open: true})
  const list = (items: readonly string[], missing: string): Answer => known(items.length > 0 ? joinItems(items, P.join) : null, missing)
  const o = P.open
  // A recorded answer the logs contradict is given with the draft's open item beside it, never alone.
  const flagged = (a: Answer, ...refs: string[]): Answer => {
    const item = d.open_items.find((x) => refs.includes(x.ref))
    return item && !a.open ? {value: `${a.value} (${P.toComplete(item.item)})`, open: true} : a
  }
  const nothingKnown = noLeakAnswer(d, P)
  const found = (items: readonly string[]): Answer => (items.length > 0 ? {value: joinItems(items, P.join), open: false} : nothingKnown)
  // Whole sentences (the nature of the breach, its consequences) read as prose, each ending in its
  // stop; joined as list items they ran on with "; " before a capital.
  const prose = (items: readonly string[]): string | null => {
    const text = items.map((s) => s.trim().replace(/;+$/, '')).filter(Boolean).map((s) => (/[.!?]$/.test(s) ? s : `${s}.`)).join(' ')
    return text || null
  }
  const categories = d.data_categories.map((c) => `${c.label}${c.kind === 'free_text' ? '' : ` (${c.count})`}`)
  const window = d.timeline.first_seen
    ? `${d.timeline.breach_started_at ?? d.timeline.first_seen} – ${d.timeline.breach_ended_at ?? (fr ? 'fin non confirmée' : 'end not confirmed')}${windowLabel(d.timeline.breach_started_at, d.timeline.breach_ended_at, fr)}`
    : d.timeline.breach_started_at
      ? `${d.timeline.breach_started_at} – ${d.timeline.breach_ended_at ?? (fr ? 'fin non confirmée' : 'end not confirmed')}`
      : null
  const controller = [d.controller.name, d.controller.contact].filter(Boolean).join(', ')
  const contact = [d.contact_point.name, d.contact_point.contact].filter(Boolean).join(', ')
  const reporter = [d.reporting_person.name, d.reporting_person.role].filter(Boolean).join(', ')
  const clock = d.clock
  const late: Answer = !clock
    ? {value: P.toComplete(d.prepared_on_behalf_of ? o.controllerAwareness : o.noIncident), open: true}
    : clock.late
      ? known(d.delay_reason, o.delayReason)
      : clock.deadline
        ? // In time only once notified in time: before it, the draft cannot know when it will be sent.
          {value: clock.status === 'notified' ? P.notApplicableInTime(clock.deadline) : P.notApplicableIfSentBy(clock.deadline), open: false}
        : {value: P.toComplete(o.delayReason), open: true}
  const exposed = d.scope?.exposure ?? null
  const severity = d.risk ? ({low: fr ? 'mineure' : 'Minor', medium: fr ? 'modérée' : 'Moderate', high: fr ? 'grave' : 'Severe', 'very high': fr ? 'grave' : 'Severe'} as Record<string, string>)[d.risk.band] ?? d.risk.band : null
  const riskOutcome = d.risk
    ? ({
        document: fr ? 'peu susceptible d’engendrer un risque' : 'unlikely to result in a risk',
        notify: fr ? 'risque (non élevé)' : 'risk (not high)',
        'notify-subjects': fr ? 'risque élevé' : 'high risk',
      } as Record<string, string>)[d.risk.outcome]!
    : null
  // A draft for a controller: the controller's contact point is open, as its open item says (the draft knows whether the processor's is recorded).
  const onBehalfContact: Answer = {value: P.toComplete(d.open_items.find((x) => x.ref === ON_BEHALF_CONTACT)?.item ?? o.onBehalfContact(d.prepared_on_behalf_of ?? '', false)), open: true}
  // The breach start as the draft's open item words it (with no affected response in the logs, it says so).
  const startItem = d.open_items.find((x) => x.ref === BREACH_START_REF)?.item ?? o.breachStart
  const authorityInitial = d.notifications.find((n) => n.recipient_kind === 'authority' && n.phase === 'initial')
  const informed = d.notifications.find((n) => n.recipient_kind === 'data-subjects' && n.phase === 'initial')
  return {
    phase: {value: d.phase === 'initial' ? (fr ? 'Nouvelle notification' : 'New') : fr ? 'Notification complémentaire' : 'Follow-up', open: false},
    subType: {value: d.open_items.length > 0 ? (fr ? 'Incomplète' : 'Incomplete') : fr ? 'Complète' : 'Complete', open: false},
    previous:
      d.phase === 'initial'
        ? {value: fr ? 'sans objet (notification initiale)' : 'not applicable (initial notification)', open: false}
        : known(authorityInitial?.reference, o.notifications),
    reference: known(d.controller.internal_reference, fr ? 'référence interne du responsable de traitement' : "controller's internal reference"),
    identifier: {value: P.toComplete(fr ? "identifiant de l'organisme (SIREN, numéro d'immatriculation)" : 'organisation identifier (company registration number)'), open: true},
    controller: known(controller, d.prepared_on_behalf_of ? o.onBehalfController(d.prepared_on_behalf_of) : o.controller),
    sector: known([d.controller.sector, d.controller.organisation_size, d.controller.economic_activity].filter(Boolean).join(', ') || null, o.sectorSize),
    eea: known(d.controller.eea_representative, o.eeaRepresentative),
    reporter: known(reporter, o.reportingPerson),
    dpoDesignated: d.prepared_on_behalf_of ? onBehalfContact : d.contact_point.name ? {value: P.yes, open: false} : {value: P.toComplete(d.contact_point.contact ? o.dpoDesignated : o.contact), open: true},
    contact: d.prepared_on_behalf_of ? onBehalfContact : known(contact, o.contact),
    processor: known(d.controller.processor, o.processor),
    window: flagged(known(window, startItem), WINDOW_START_CONTRADICTED, WINDOW_END_CONTRADICTED, AWARE_BEFORE_START, DETECTED_BEFORE_START),
    // Estimated only where the logs gave the dates; with neither a recorded start nor an affected response, not known.
    // "Only estimated: no" says the recorded dates are established: not while the logs contradict one of them.
    estimated: d.timeline.breach_started_at
      ? flagged({value: P.no, open: false}, WINDOW_START_CONTRADICTED, WINDOW_END_CONTRADICTED)
      : d.timeline.first_seen
        ? d.timeline.breach_ended_at
          ? {value: fr ? 'oui pour le début (première réponse concernée dans les journaux) ; la fin est enregistrée' : 'yes for the start (first affected response in the logs); the end is recorded', open: false}
          : {value: fr ? 'oui (première réponse concernée dans les journaux ; fin non confirmée)' : 'yes (first affected response in the logs; end not confirmed)', open: false}
        : {value: P.toComplete(startItem), open: true},
    start: flagged(known(d.timeline.breach_started_at, startItem), WINDOW_START_CONTRADICTED, AWARE_BEFORE_START, DETECTED_BEFORE_START),
    end: flagged(known(d.timeline.breach_ended_at, o.breachEnd), WINDOW_END_CONTRADICTED),
    aware: flagged(known(d.timeline.aware_at, d.prepared_on_behalf_of ? o.controllerAwareness : o.noIncident), AWARE_BEFORE_START, AWARE_BEFORE_DETECTION),
    // The ICO asks when the breach was discovered: the recorded first detection, which may come well
    // before awareness (the 72 hours of Art. 33(1) run from awareness); awareness is given beside it,
    // labelled, never in its place.
    discovered: discoveredAnswer(d, P, known(d.timeline.aware_at, d.prepared_on_behalf_of ? o.controllerAwareness : o.noIncident)),
    late,
    discovery: known(d.timeline.discovery, o.discovery),
    informed: known(d.timeline.informed_by ? `${d.timeline.informed_by}${d.timeline.informed_at ? ` (${d.timeline.informed_at})` : ''}` : null, o.informedBy),
    comments: flagged(known(
      [
        d.timeline.detected_at ? `${fr ? 'Détection' : 'Detected'} ${d.timeline.detected_at}` : null,
        d.timeline.investigation_started_at ? `${fr ? 'Début de l’analyse' : 'Investigation started'} ${d.timeline.investigation_started_at}` : null,
        d.timeline.awareness_basis ? `${fr ? 'Fondement de la prise de connaissance' : 'Awareness basis'}: ${d.timeline.awareness_basis}` : null,
      ]
        .filter(Boolean)
        .join(P.join) || null,
      o.awarenessBasis,
    ), DETECTED_BEFORE_START, AWARE_BEFORE_DETECTION, INVESTIGATION_BEFORE_DETECTION),
    types: found(d.nature.types.map((t) => P.breachType[t])),
    confidentiality: exposed && exposed.responses > 0 ? {value: fr ? `divulguées (${compte(exposed.responses, 'réponse')} ${un(exposed.responses) ? 'contenait' : 'contenaient'} des données d'une autre session)` : `disclosed (${count(exposed.responses, 'response')} carried another session's data)`, open: false} : nothingKnown,
    // Recorded as intact while the scan read personal data in clear: given with the contradiction beside it (protection.ts).
    unintelligible: flagged(known(d.data_unintelligible ? P.unintelligible[d.data_unintelligible] : null, o.unintelligible), PROTECTION_CONTRADICTED),
    integrity: {value: P.toComplete(fr ? 'si les données altérées ont été utilisées' : 'whether the altered data was misused'), open: true},
    availability: {value: P.toComplete(fr ? 'si la disponibilité des données a été atteinte' : 'whether the availability of data was affected'), open: true},
    category: d.nature.incident_category ? {value: d.nature.incident_category, open: false} : nothingKnown,
    causeCategory: known(d.nature.cause.length > 0 ? d.nature.cause[0]! : null, o.cause),
    description: known(prose([...d.nature.summary, ...d.nature.cause]), o.cause),
    systems: known(d.nature.systems, o.systems),
    subjectCategories: found(d.data_subjects.categories),
    subjects: known(d.data_subjects.approximate ? rangeText(P, d.data_subjects.approximate, exposureKnownIn(d), true) : null, o.noScan),
    data: found(categories),
    records: known(d.records.approximate ? rangeText(P, d.records.approximate, exposureKnownIn(d), true) : null, o.noScan),
    measuresBefore: known(d.measures_before, o.measuresBefore),
    consequences: d.consequences.length > 0 ? flagged({value: prose(d.consequences)!, open: false}, PROTECTION_CONTRADICTED) : nothingKnown,
    severity: known(severity, o.risk),
    riskOutcome: known(riskOutcome, o.risk),
    method: known(d.risk?.method, o.risk),
    measuresTaken: list(d.measures_taken, o.measuresTaken),
    measuresProposed: list(d.measures_proposed, o.measuresProposed),
    actions: list([...d.measures_taken, ...d.measures_proposed], o.measuresTaken),
    article34: known(d.article34.status, o.article34),
    informedAt: known(informed?.at, o.article34),
    article34Ground: {value: P.toComplete(fr ? "motif de l'art. 34.3 invoqué, le cas échéant" : 'the Art. 34(3) ground relied on, if any'), open: true},
    allInformed: {value: P.toComplete(fr ? 'si toutes les personnes concernées ont été informées, et par quel moyen' : 'whether the communication reached every data subject, and by what means'), open: true},
    message: {value: P.toComplete(fr ? 'contenu du message aux personnes (projet : crosstalk report article34)' : 'content of the message to data subjects (draft: crosstalk report article34)'), open: true},
    police: known(d.other_authorities.police, o.police),
    otherAuthorities: known(d.other_authorities.others, o.otherAuthorities),
    // Whether processing is cross-border (Art. 4(23)) is a fact of its own (incident set --cross-border): a lead authority does not say it, so unrecorded it stays open, the lead authority shown beside it.
    crossBorder: d.cross_border.processing
      ? flagged({value: (d.cross_border.processing === 'yes' ? P.yes : P.no) + (d.cross_border.lead_authority ? ` (${fr ? 'autorité chef de file :' : 'lead authority:'} ${d.cross_border.lead_authority})` : ''), open: false}, CROSS_BORDER_CONTRADICTED)
      : {value: P.toComplete(o.crossBorder) + (d.cross_border.lead_authority ? ` (${fr ? 'autorité chef de file enregistrée :' : 'lead authority recorded:'} ${d.cross_border.lead_authority})` : ''), open: true},
    leadAuthority: known(d.cross_border.lead_authority, o.leadAuthority),
    establishment: known(d.cross_border.establishment_countries, o.establishment),
    countries: known(d.cross_border.countries, o.countries),
    perCountry: flagged(known(d.cross_border.subjects_per_country, o.countries), PER_COUNTRY_BELOW),
    authoritiesNotified: known(d.cross_border.authorities_notified, o.authoritiesNotified),
    attachments: d.evidence.length > 0 ? {value: fr ? `inventaire des preuves : ${compte(d.evidence.length, 'fichier')} avec ${un(d.evidence.length) ? 'son' : 'leur'} SHA-256 (annexe)` : `evidence manifest: ${count(d.evidence.length, 'file')} with ${d.evidence.length === 1 ? 'its' : 'their'} SHA-256 (annex)`, open: false} : {value: P.toComplete(o.noScan), open: true},
    training: {value: P.toComplete(fr ? 'personnel impliqué et sa formation à la protection des données' : 'staff involved and their data protection training'), open: true},
  }
}


/** When the breach was discovered: the recorded detection, with awareness labelled beside it; without a detection time, that is to be completed. */
function discoveredAnswer(d: Draft, P: Phrases, aware: Answer): Answer {
  const fr = P.lang === 'fr'
  const awareText = aware.open ? '' : fr ? ` ; prise de connaissance : ${aware.value}` : `; became aware: ${aware.value}`
  const detected = d.timeline.detected_at
  if (!detected) return {value: `${P.toComplete(P.open.detectedAt)}${awareText}`, open: true}
  const item = d.open_items.find((x) => x.ref === DETECTED_BEFORE_START || x.ref === AWARE_BEFORE_DETECTION)
  const value = `${detected} (${fr ? 'première détection' : 'first detected'}${awareText})`
  return item ? {value: `${value} (${P.toComplete(item.item)})`, open: true} : {value, open: false}
}

/** Whether the draft's exposure is known (exposureKnown): not where answers hold markers and the case no canary registry. */
const exposureKnownIn = (d: Pick<Article33Result, 'scope'>): boolean => d.scope === null || exposureKnown(d.scope.registry_files > 0, d.scope.orphan_sightings)

export function authorityFields(authority: Authority, d: Draft, P: Phrases): FormField[] {
  const a = answers(d, P)
  const fields: Record<Authority, Field[]> = {
    edpb: [
      ['3', 'Type of notification', 'Type de notification', a.phase],
      ['4', 'Sub-type', 'Sous-type', a.subType],
      ['6', 'Previous breach ID', 'Identifiant de la notification précédente', a.previous],
      ['7', "Controller's internal reference", 'Référence interne du responsable de traitement', a.reference],
      ['10-11', 'Identifier type and value', "Type et valeur de l'identifiant", a.identifier],
      ['12-13', 'Organisation name and contact details', "Nom et coordonnées de l'organisme", a.controller],
      ['14-17', 'Sector, organisation type and economic activity', "Secteur, type d'organisme et activité économique", a.sector],
      ['18-19', 'EEA representative (controller not established in the EEA)', "Représentant dans l'EEE (responsable établi hors de l'EEE)", a.eea],
      ['21-24', 'Reporting person: name, contact and function', 'Personne qui notifie : nom, coordonnées et fonction', a.reporter],
      ['29', 'Is a DPO designated?', 'Un DPO est-il désigné ?', a.dpoDesignated],
      ['30-36', 'DPO / contact point where more information can be obtained (Art. 33(3)(b))', "DPO / point de contact auprès duquel obtenir des informations (art. 33.3.b)", a.contact],
      ['38-41', 'Other parties involved (processors)', 'Autres parties impliquées (sous-traitants)', a.processor],
      ['44', 'When the breach occurred', 'Quand la violation a eu lieu', a.window],
      ['45', 'Only estimated dates are possible', 'Seules des dates estimées sont possibles', a.estimated],
      ['46', 'Start date and time', 'Date et heure de début', a.start],
      ['47', 'End date and time', 'Date et heure de fin', a.end],
      ['48', 'Date and time the controller became aware', 'Date et heure de prise de connaissance par le responsable de traitement', a.aware],
      ['49', 'Reasons for late notification', 'Motifs du retard de notification', a.late],
      ['50-51', 'How the breach was discovered', 'Comment la violation a été découverte', a.discovery],
      ['52', 'Date another party informed the controller', 'Date à laquelle un tiers a informé le responsable de traitement', a.informed],
      ['53', 'Timeline comments', 'Commentaires sur la chronologie', a.comments],
      ['55', 'Type of breach (confidentiality, integrity, availability)', 'Type de violation (confidentialité, intégrité, disponibilité)', a.types],
      ['56', 'Confidentiality', 'Confidentialité', a.confidentiality],
      ['57', 'Data unintelligible or not identifiable?', 'Données inintelligibles ou non identifiantes ?', a.unintelligible],
      ['58', 'Integrity', 'Intégrité', a.integrity],
      ['59', 'Availability', 'Disponibilité', a.availability],
      ['60', 'Nature of incident', "Nature de l'incident", a.category],
      ['61', 'Cause', 'Cause', a.causeCategory],
      ['62', 'Description and root cause', 'Description et cause première', a.description],
      ['63', 'Systems, software, services and infrastructure involved, and their location', 'Systèmes, logiciels, services et infrastructures concernés, et leur localisation', a.systems],
      ['65-66', 'Categories of data subjects', 'Catégories de personnes concernées', a.subjectCategories],
      ['67-68', 'Number of data subjects', 'Nombre de personnes concernées', a.subjects],
      ['70-71', 'Type of breached data', 'Types de données concernées', a.data],
      ['72-73', 'Number of records (one record = one response that carried another session\'s data)', "Nombre d'enregistrements (un enregistrement = une réponse contenant des données d'une autre session)", a.records],
      ['75-76', 'Measures in place before the breach', 'Mesures en place avant la violation', a.measuresBefore],
      ['79-85', 'Consequences and nature of the potential impact', "Conséquences et nature de l'impact potentiel", a.consequences],
      ['87', 'Severity', 'Gravité', a.severity],
      ['89', 'Risk assessment outcome', "Résultat de l'évaluation du risque", a.riskOutcome],
      ['90', 'Methodology and factors used', 'Méthode et facteurs utilisés', a.method],
      ['92', 'Measures taken to address and mitigate', 'Mesures prises pour remédier et atténuer', a.measuresTaken],
      ['94-95', 'Preventive measures', 'Mesures préventives', a.measuresProposed],
      ['97', 'Communication to data subjects', 'Communication aux personnes concernées', a.article34],
      ['98', 'Date the communication started', 'Date de début de la communication', a.informedAt],
      ['100-101', 'Art. 34(3) ground and explanation', "Motif de l'art. 34.3 et explication", a.article34Ground],
      ['102-105', 'All data subjects informed? By what means?', 'Toutes les personnes informées ? Par quel moyen ?', a.allInformed],
      ['106', 'Content of the message', 'Contenu du message', a.message],
      ['109', 'Reported to police or judicial authorities?', 'Signalement à la police ou aux autorités judiciaires ?', a.police],
      ['110-111', 'Notified to other authorities (e.g. CSIRT)?', 'Notifiée à d’autres autorités (p. ex. CSIRT) ?', a.otherAuthorities],
      ['113', 'Cross-border processing?', 'Traitement transfrontalier ?', a.crossBorder],
      ['114', 'Lead supervisory authority', 'Autorité de contrôle chef de file', a.leadAuthority],
      ['115', 'Countries where the controller is established', "Pays d'établissement du responsable de traitement", a.establishment],
      ['116', 'Countries of affected data subjects', 'Pays des personnes concernées', a.countries],
      ['117', 'Number of data subjects per country', 'Nombre de personnes concernées par pays', a.perCountry],
      ['118', 'Supervisory authorities notified', 'Autorités de contrôle notifiées', a.authoritiesNotified],
      ['125-126', 'Attachments', 'Pièces jointes', a.attachments],
    ],
    ico: [
      ['type', 'Report type', 'Type de rapport', a.phase],
      ['org', 'Organisation (controller) name and registered address', 'Organisme (responsable de traitement) et adresse', a.controller],
      ['reporter', 'Person reporting', 'Personne qui notifie', a.reporter],
      ['dpo', 'Data protection officer / contact', 'Délégué à la protection des données / contact', a.contact],
      ['what', 'What happened', "Ce qui s'est passé", a.description],
      ['cyber', 'Was the breach caused by a cyber incident?', "La violation résulte-t-elle d'un incident de cybersécurité ?", a.causeCategory],
      ['found', 'How did you find out about the breach?', 'Comment avez-vous appris la violation ?', a.discovery],
      ['discovered', 'When did you discover the breach?', 'Quand avez-vous découvert la violation ?', a.discovered],
      ['happened', 'When did the breach happen?', 'Quand la violation a-t-elle eu lieu ?', a.window],
      ['late', 'Reasons for reporting later than 72 hours', 'Motifs de la notification au-delà de 72 heures', a.late],
      ['data', 'Categories of personal data included', 'Catégories de données personnelles concernées', a.data],
      ['records', 'Approximately how many personal data records are concerned?', "Nombre approximatif d'enregistrements concernés", a.records],
      ['subjects', 'How many data subjects could be affected?', 'Nombre de personnes pouvant être concernées', a.subjects],
      ['subject-cats', 'Categories of data subjects', 'Catégories de personnes concernées', a.subjectCategories],
      ['consequences', 'Potential consequences for data subjects', 'Conséquences potentielles pour les personnes', a.consequences],
      ['training', 'Staff involved and their data protection training', 'Personnel impliqué et sa formation', a.training],
      ['before', 'Preventive measures in place before the breach', 'Mesures préventives en place avant la violation', a.measuresBefore],
      ['actions', 'Actions taken or proposed', 'Mesures prises ou envisagées', a.actions],
      ['told', 'Have you told data subjects?', 'Avez-vous informé les personnes ?', a.article34],
      ['others', 'Other organisations told', 'Autres organismes informés', a.otherAuthorities],
    ],
    cnil: [
      ['type', 'Type of notification', 'Type de notification', a.phase],
      ['siren', 'SIREN number', 'Numéro SIREN', a.identifier],
      ['organisme', 'Organisation (controller)', 'Organisme responsable du traitement', a.controller],
      ['declarant', 'Contact person and legal representative', 'Personne à contacter et représentant légal', a.reporter],
      ['contact', 'DPO or other contact point (Art. 33(3)(b))', 'Délégué à la protection des données ou autre point de contact (art. 33.3.b)', a.contact],
      ['connaissance', 'Date and time of awareness of the breach', 'Date et heure de prise de connaissance de la violation', a.aware],
      ['periode', 'Period of the breach', 'Période de la violation', a.window],
      ['retard', 'Reasons for the delay (notification after 72 hours)', 'Motifs du retard (notification au-delà de 72 heures)', a.late],
      ['decouverte', 'How the breach was discovered', 'Circonstances de la découverte', a.discovery],
      ['nature', 'Nature of the breach', 'Nature de la violation', a.types],
      ['categorie', 'Type of incident', "Type d'incident", a.category],
      ['cause', 'Cause of the breach', 'Origine de la violation', a.causeCategory],
      ['description', 'Description of the breach', 'Description de la violation', a.description],
      ['personnes', 'Categories and approximate number of data subjects', 'Catégories et nombre approximatif de personnes concernées', a.subjects],
      ['categories-personnes', 'Categories of data subjects', 'Catégories de personnes concernées', a.subjectCategories],
      ['donnees', 'Categories of data concerned', 'Catégories de données concernées', a.data],
      ['enregistrements', 'Approximate number of records concerned', "Nombre approximatif d'enregistrements concernés (une réponse contenant des données d'une autre session = un enregistrement)", a.records],
      ['avant', 'Measures in place before the breach', 'Mesures en place avant la violation', a.measuresBefore],
      ['consequences', 'Likely consequences for the data subjects', 'Conséquences probables pour les personnes', a.consequences],
      ['risque', 'Risk assessment and method', 'Évaluation du risque et méthode', a.method],
      ['mesures', 'Measures taken or planned to remedy and mitigate', 'Mesures prises ou envisagées pour remédier à la violation et en atténuer les effets', a.actions],
      ['information', 'Information of the data subjects (Art. 34)', 'Information des personnes concernées (art. 34)', a.article34],
      ['autorites', 'Other authorities informed', 'Autres autorités informées', a.otherAuthorities],
      ['police', 'Complaint or report to the police', 'Plainte ou signalement aux services de police', a.police],
      ['transfrontalier', 'Cross-border processing and lead authority', 'Traitement transfrontalier et autorité chef de file', a.crossBorder],
    ],
    dpc: [
      ['type', 'Notification type', 'Type de notification', a.phase],
      ['cross-border', 'Cross-border breach notification (one-stop shop)', 'Notification transfrontalière (guichet unique)', a.crossBorder],
      ['controller', 'Data controller name and contact', 'Nom et coordonnées du responsable de traitement', a.controller],
      ['reporter', 'Person reporting', 'Personne qui notifie', a.reporter],
      ['dpo', 'DPO / contact point', 'DPO / point de contact', a.contact],
      ['aware', 'Date and time the controller became aware', 'Date et heure de prise de connaissance par le responsable de traitement', a.aware],
      ['occurred', 'Date(s) the breach occurred', 'Date(s) de la violation', a.window],
      ['late', 'Reason for delay (if outside 72 hours)', 'Motif du retard (au-delà de 72 heures)', a.late],
      ['description', 'Description of the breach', 'Description de la violation', a.description],
      ['cause', 'Cause', 'Cause', a.causeCategory],
      ['subjects', 'Approximate number of data subjects', 'Nombre approximatif de personnes concernées', a.subjects],
      ['records', 'Approximate number of records', "Nombre approximatif d'enregistrements", a.records],
      ['data', 'Categories of personal data', 'Catégories de données personnelles', a.data],
      ['before', 'Measures in place before the breach', 'Mesures en place avant la violation', a.measuresBefore],
      ['consequences', 'Likely consequences', 'Conséquences probables', a.consequences],
      ['measures', 'Measures taken or proposed', 'Mesures prises ou envisagées', a.actions],
      ['subjects-informed', 'Data subjects informed?', 'Personnes concernées informées ?', a.article34],
      ['countries', 'Member States where data subjects reside', 'États membres de résidence des personnes concernées', a.countries],
      ['police', 'Reported to An Garda Síochána or other authorities?', 'Signalée à la police ou à d’autres autorités ?', a.police],
    ],
  }
  return fields[authority].map(([id, en, fr, ans]) => ({id, label: P.lang === 'fr' ? fr : en, value: ans.value, open: ans.open}))
}
