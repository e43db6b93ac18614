import type {Article33Result} from './article33-schema.js'
import {formatRange} from './phrases.js'

// The same facts mapped onto each authority's form (reference/sa-forms.md): field ids
// are the draft EDPB common template's row numbers, the ICO form's questions, the CNIL
// téléservice's wording (in French) and the DPC's web form, so a responder can copy
// value by value. Missing facts say so instead of being left blank.

export {AUTHORITIES, AUTHORITY_NAMES, type Authority} from './authorities.js'
import type {Authority} from './authorities.js'

export interface FormField {
  id: string
  label: string
  value: string
}

type Draft = Omit<Article33Result, 'form_fields'>

function facts(d: Draft, fr: boolean) {
  const unknown = fr ? 'non connu à ce stade (complément à suivre)' : 'not yet known (to follow, Art. 33(4))'
  const v = (x: string | null | undefined): string => (x && x.length > 0 ? x : unknown)
  const range = (r: {low: number; high: number | null} | null): string => formatRange(r, fr ? 'fr' : 'en', unknown, true)
  const list = (xs: string[]): string => (xs.length > 0 ? xs.join('; ') : unknown)
  const categories = d.data_categories.map((c) => `${c.label}${c.kind === 'free_text' ? '' : ` (${c.count})`}`)
  return {unknown, v, range, list, categories}
}

export function authorityFields(authority: Authority, d: Draft): FormField[] {
  const fr = authority === 'cnil'
  const {v, range, list, categories} = facts(d, fr)
  const phase = d.phase === 'initial' ? (fr ? 'Notification initiale' : 'Initial') : fr ? 'Notification complémentaire' : 'Follow-up'
  const contact = [d.contact_point.name, d.contact_point.contact].filter(Boolean).join(', ')
  const controller = [d.controller.name, d.controller.contact].filter(Boolean).join(', ')
  const window = d.timeline.first_seen ? `${d.timeline.breach_started_at ?? d.timeline.first_seen} – ${d.timeline.breach_ended_at ?? (fr ? 'en cours / non confirmé' : 'ongoing / end not confirmed')}` : null
  const risk = d.risk ? `${d.risk.outcome} (${d.risk.method})` : null
  const late = d.delay_reason ?? (d.clock?.late ? null : fr ? 'sans objet (dans les 72 heures)' : 'not applicable (within 72 hours)')
  switch (authority) {
    case 'edpb':
      return [
        {id: '3', label: 'Type of notification', value: d.phase === 'initial' ? 'New' : 'Follow-up'},
        {id: '4', label: 'Sub-type', value: d.open_items.length > 0 ? 'Incomplete' : 'Complete'},
        {id: '7', label: "Controller's internal reference", value: v(d.controller.internal_reference)},
        {id: '12-13', label: 'Organisation name and contact details', value: v(controller)},
        {id: '30-31', label: 'DPO / contact point (Art. 33(3)(b))', value: v(contact)},
        {id: '38-41', label: 'Other parties involved (processors)', value: v(d.controller.processor)},
        {id: '44-47', label: 'When the breach occurred', value: v(window)},
        {id: '45', label: 'Only estimated dates are possible', value: d.timeline.dates_estimated ? 'Yes (from first/last contaminated response in logs)' : 'No'},
        {id: '48', label: 'Date and time the controller became aware', value: v(d.timeline.aware_at)},
        {id: '49', label: 'Reasons for late notification', value: v(late)},
        {id: '50-51', label: 'How the breach was discovered', value: v(d.timeline.discovery)},
        {id: '53', label: 'Timeline comments', value: `Detected ${v(d.timeline.detected_at)}; investigation started ${v(d.timeline.investigation_started_at)}; awareness basis: ${v(d.timeline.awareness_basis)}`},
        {id: '55', label: 'Type of breach', value: d.nature.types.join(', ')},
        {id: '56', label: 'Confidentiality', value: d.scope ? 'Data disclosed (evidence in logs)' : 'To be determined'},
        {id: '60', label: 'Nature of incident', value: d.nature.incident_category},
        {id: '61', label: 'Cause', value: d.nature.cause},
        {id: '62', label: 'Description', value: d.nature.summary},
        {id: '63', label: 'Systems involved', value: v(d.nature.systems ?? (d.nature.nodes.length ? d.nature.nodes.map((n) => `${n.node} (decode)`).join(', ') : null))},
        {id: '65', label: 'Categories of data subjects', value: list(d.data_subjects.categories)},
        {id: '67-68', label: 'Number of data subjects', value: range(d.data_subjects.approximate)},
        {id: '70', label: 'Type of breached data', value: list(categories)},
        {id: '72-73', label: 'Number of records (one record = one misdirected response)', value: range(d.records.approximate)},
        {id: '85', label: 'Nature of potential impact', value: list(d.consequences)},
        {id: '89-90', label: 'Risk assessment outcome and methodology', value: v(risk)},
        {id: '92', label: 'Measures taken to address and mitigate', value: list(d.measures_taken)},
        {id: '94-95', label: 'Preventive measures', value: list(d.measures_proposed)},
        {id: '97', label: 'Communication to data subjects', value: d.article34.status},
        {id: '114', label: 'Lead supervisory authority', value: v(d.cross_border.lead_authority)},
        {id: '116', label: 'Countries of affected data subjects', value: v(d.cross_border.countries)},
      ]
    case 'ico':
      return [
        {id: 'type', label: 'Report type', value: phase},
        {id: 'what', label: 'What happened', value: d.nature.summary},
        {id: 'cyber', label: 'Was the breach caused by a cyber incident?', value: 'No: a software fault in the serving system (not an attack)'},
        {id: 'found', label: 'How did you find out about the breach?', value: v(d.timeline.discovery)},
        {id: 'discovered', label: 'When did you discover the breach?', value: v(d.timeline.aware_at)},
        {id: 'happened', label: 'When did the breach happen?', value: v(window)},
        {id: 'data', label: 'Categories of personal data included', value: list(categories)},
        {id: 'records', label: 'Approximately how many personal data records are concerned?', value: range(d.records.approximate)},
        {id: 'subjects', label: 'How many data subjects could be affected?', value: range(d.data_subjects.approximate)},
        {id: 'subject-cats', label: 'Categories of data subjects', value: list(d.data_subjects.categories)},
        {id: 'consequences', label: 'Potential consequences for data subjects', value: list(d.consequences)},
        {id: 'actions', label: 'Actions taken or proposed', value: list([...d.measures_taken, ...d.measures_proposed])},
        {id: 'told', label: 'Have you told data subjects?', value: d.article34.status},
        {id: 'late', label: 'Reasons for reporting later than 72 hours', value: v(late)},
        {id: 'dpo', label: 'Data protection officer / contact', value: v(contact)},
        {id: 'org', label: 'Organisation (controller)', value: v(controller)},
      ]
    case 'cnil':
      return [
        {id: 'type', label: 'Type de notification', value: phase},
        {id: 'organisme', label: 'Organisme responsable du traitement', value: v(controller)},
        {id: 'contact', label: 'Délégué à la protection des données ou autre point de contact (art. 33.3.b)', value: v(contact)},
        {id: 'connaissance', label: 'Date et heure de prise de connaissance de la violation', value: v(d.timeline.aware_at)},
        {id: 'periode', label: 'Période de la violation', value: v(window)},
        {id: 'retard', label: 'Motifs du retard (notification au-delà de 72 heures)', value: v(late)},
        {id: 'nature', label: 'Nature de la violation', value: `${d.nature.types.map((t) => ({confidentiality: 'confidentialité', integrity: 'intégrité', availability: 'disponibilité'})[t]).join(', ')} — dysfonctionnement technique : données personnelles affichées à un mauvais destinataire (cache partagé du service LLM)`},
        {id: 'personnes', label: 'Catégories et nombre approximatif de personnes concernées', value: `${range(d.data_subjects.approximate)} — utilisateurs finaux des clients concernés ; personnes citées dans les textes`},
        {id: 'donnees', label: 'Catégories de données concernées', value: list(categories)},
        {id: 'enregistrements', label: "Nombre approximatif d'enregistrements concernés (une réponse mal dirigée = un enregistrement)", value: range(d.records.approximate)},
        {id: 'consequences', label: 'Conséquences probables pour les personnes', value: list(d.consequences)},
        {id: 'mesures', label: 'Mesures prises ou envisagées pour remédier à la violation et en atténuer les effets', value: list([...d.measures_taken, ...d.measures_proposed])},
        {id: 'information', label: 'Information des personnes concernées (art. 34)', value: d.risk?.outcome === 'notify-subjects' ? 'Oui, risque élevé : les personnes seront informées.' : 'Non décidé / pas de risque élevé établi à ce stade.'},
        {id: 'risque', label: "Évaluation du risque et méthode", value: v(risk)},
      ]
    case 'dpc':
      return [
        {id: 'type', label: 'Notification type', value: phase},
        {id: 'cross-border', label: 'Cross-border breach notification (one-stop shop)', value: d.cross_border.lead_authority ? `Yes; lead authority ${d.cross_border.lead_authority}` : 'To be determined'},
        {id: 'controller', label: 'Data controller name and contact', value: v(controller)},
        {id: 'dpo', label: 'DPO / contact point', value: v(contact)},
        {id: 'aware', label: 'Date and time the controller became aware', value: v(d.timeline.aware_at)},
        {id: 'occurred', label: 'Date(s) the breach occurred', value: v(window)},
        {id: 'late', label: 'Reason for delay (if outside 72 hours)', value: v(late)},
        {id: 'description', label: 'Description of the breach', value: d.nature.summary},
        {id: 'subjects', label: 'Approximate number of data subjects', value: range(d.data_subjects.approximate)},
        {id: 'records', label: 'Approximate number of records', value: range(d.records.approximate)},
        {id: 'data', label: 'Categories of personal data', value: list(categories)},
        {id: 'consequences', label: 'Likely consequences', value: list(d.consequences)},
        {id: 'measures', label: 'Measures taken or proposed', value: list([...d.measures_taken, ...d.measures_proposed])},
        {id: 'subjects-informed', label: 'Data subjects informed?', value: d.article34.status},
        {id: 'countries', label: 'Member States where data subjects reside', value: v(d.cross_border.countries)},
      ]
  }
}
