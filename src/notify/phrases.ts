import type {ReplayFacts, ScopeFacts} from './facts.js'

// The fixed sentences of the Article 33 draft in English and French (--authority cnil).
// Numbers are filled in; log-derived values (tenant ids, node names) never appear here.
// Wording a DPO wants to change for good belongs in templates/; these are the generated
// parts (categories, consequences, measures, methods).

export {CATEGORY_LABELS, categoryLabel, type Language} from './labels.js'
import {CATEGORY_LABELS, type Language} from './labels.js'

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`
const t = (iso: string | null, unknown: string): string => iso ?? unknown

export interface Phrases {
  unknown: string
  summary(s: ScopeFacts): string
  summaryNoScope: string
  incidentCategory: string
  cause: string
  subjectCategories: string[]
  consequences: {confidentiality: string; control: string; integrity: string; financial: string}
  logSearch(records: number, files: number): string
  replay(r: ReplayFacts): string
  noReplay: string
  provenance(n: number): string
  customersNotified: string
  defaultProposed: string
  article34: {subjects: string; no: string; undecided: string}
  scopeMethod: string
  subjectsMethod(r: {high: number | null}): string
  recordsMethod(r: {high: number | null}): string
}

function replaySentence(r: ReplayFacts, fr: boolean): string {
  const interval = `${pct(r.wilson_low)}–${pct(r.wilson_high)}`
  return fr
    ? `Rejeu des requêtes concernées sur un banc d'essai isolé (${r.runs} campagne(s), ${r.results} requêtes) : ${r.confirmed} confirmées (défaut reproduit), ${r.not_reproduced} non reproduites, ${r.rejected} rejetées par la cible ; ${r.reproduced} reproductions sur ${r.trials} essais, soit ${pct(r.rate)} (intervalle de Wilson à 95 % : ${interval}).${r.original_prompt ? ' Les requêtes d’origine ont été renvoyées (option explicite, journalisée).' : ' Requêtes d’origine non renvoyées (textes de substitution de même longueur).'}`
    : `Affected requests replayed on an isolated testbed (${r.runs} run(s), ${r.results} requests): ${r.confirmed} confirmed (fault reproduced), ${r.not_reproduced} not reproduced, ${r.rejected} rejected by the target; ${r.reproduced} of ${r.trials} trials reproduced the leak, ${pct(r.rate)} (95 % Wilson interval ${interval}).${r.original_prompt ? ' The original prompts were re-sent (explicit, audited opt-in).' : ' The original prompts were not re-sent (same-length stand-ins).'}`
}

export const PHRASES: Record<Language, Phrases> = {
  en: {
    unknown: 'unknown',
    summary: (s) =>
      `A fault in the shared LLM serving system (prompt/KV cache reuse) caused responses to be generated from another user's cached context. ${s.contaminated_responses} responses carried data belonging to another session (${s.cross_tenant_responses} of them to a different customer organisation), exposing data of ${s.exposed_sessions} sessions of ${s.exposed_tenants} customers to ${s.recipient_tenants} receiving customers between ${t(s.first_seen, 'unknown')} and ${t(s.last_seen, 'unknown')} (UTC).` +
      (s.provenance_only_responses > 0 ? ` A further ${s.provenance_only_responses} responses reproduced another session's text verbatim without a canary marker.` : ''),
    summaryNoScope: "A fault in the shared LLM serving system is suspected of serving one customer's data to another. Detection over the logs has not run yet; the scope is not known.",
    incidentCategory: 'Personal data displayed to wrong recipient; technical malfunction (shared cache of an LLM serving system)',
    cause: 'Internal, non-malicious (software fault)',
    subjectCategories: ["End users of the affected customers' applications (users / customers)", 'People named in the text of prompts and completions'],
    consequences: {
      confidentiality: 'Loss of confidentiality: personal data in prompts and completions of affected users was shown to other users, including users of other organisations.',
      control: 'Loss of control over personal data; depending on content, risk of identity theft or fraud (identifiers and financial data), phishing using the disclosed contact details, and reputational damage or distress.',
      integrity: "Integrity: receiving users got responses built from someone else's context and may have acted on wrong information.",
      financial: 'Financial data (IBAN / payment card numbers) was disclosed: risk of fraud and financial loss.',
    },
    logSearch: (records, files) =>
      `Logs of ${records} responses from ${files} files were searched for canary markers; every affected response, session and customer is identified (evidence annex, SHA-256).`,
    replay: (r) => replaySentence(r, false),
    noReplay: 'No replay of the affected requests and no probe of the serving stack is recorded in the case yet: the root cause is not yet confirmed by reproduction.',
    provenance: (n) => `${n} contaminated responses were attributed to the source request by verbatim text overlap.`,
    customersNotified: 'Affected customers (controllers) were notified (Art. 33(2)); see notifications.',
    defaultProposed: 'Keep cache isolation per tenant; add a gate (crosstalk probe --fail-on-leak) to deployment; ask receiving customers to delete the affected responses.',
    article34: {
      subjects: 'Data subjects will be informed (high risk, Art. 34(1)).',
      no: 'Not informed: the assessment did not find a likely high risk (Art. 34(1)); under review as facts emerge.',
      undecided: 'Not decided yet: investigation ongoing.',
    },
    scopeMethod:
      'canary sightings: responses holding a marker registered to another session (cross_session) or another tenant (cross_tenant), in completely loaded log files; verbatim-overlap provenance and personal-data findings are reported beside them',
    subjectsMethod: () => '',
    recordsMethod: () => '',
  },
  fr: {
    unknown: 'inconnu',
    summary: (s) =>
      `Un défaut du système partagé de service du modèle de langage (réutilisation du cache de contexte, « KV cache ») a conduit à générer des réponses à partir du contexte d'un autre utilisateur. ${s.contaminated_responses} réponses contenaient des données d'une autre session (dont ${s.cross_tenant_responses} adressées à un autre client), exposant les données de ${s.exposed_sessions} sessions de ${s.exposed_tenants} clients à ${s.recipient_tenants} clients destinataires entre ${t(s.first_seen, 'date inconnue')} et ${t(s.last_seen, 'date inconnue')} (UTC).` +
      (s.provenance_only_responses > 0 ? ` ${s.provenance_only_responses} autres réponses reproduisaient mot pour mot le texte d'une autre session, sans marqueur canari.` : ''),
    summaryNoScope: "Un défaut du système partagé de service du modèle de langage aurait transmis les données d'un client à un autre. L'analyse des journaux n'a pas encore été effectuée ; le périmètre n'est pas connu.",
    incidentCategory: 'Données personnelles communiquées à un mauvais destinataire ; dysfonctionnement technique (cache partagé du service LLM)',
    cause: 'Interne, non malveillante (défaut logiciel)',
    subjectCategories: ['Utilisateurs finaux des applications des clients concernés', 'Personnes citées dans le texte des requêtes et des réponses'],
    consequences: {
      confidentiality: "Perte de confidentialité : des données personnelles contenues dans les requêtes et réponses des utilisateurs concernés ont été montrées à d'autres utilisateurs, y compris d'autres organismes.",
      control: "Perte de maîtrise des données ; selon le contenu, risque d'usurpation d'identité ou de fraude (identifiants, données financières), d'hameçonnage à partir des coordonnées divulguées, d'atteinte à la réputation ou de détresse.",
      integrity: "Intégrité : les utilisateurs destinataires ont reçu des réponses construites à partir du contexte d'autrui et ont pu agir sur la base d'informations erronées.",
      financial: 'Des données financières (IBAN / numéros de carte) ont été divulguées : risque de fraude et de perte financière.',
    },
    logSearch: (records, files) =>
      `Les journaux de ${records} réponses (${files} fichiers) ont été analysés à la recherche des marqueurs canaris ; chaque réponse, session et client concerné est identifié (annexe des preuves, SHA-256).`,
    replay: (r) => replaySentence(r, true),
    noReplay: "Aucun rejeu des requêtes concernées ni aucun test de la chaîne de service n'est encore enregistré : la cause n'est pas encore confirmée par reproduction.",
    provenance: (n) => `${n} réponses contaminées ont été rattachées à la requête d'origine par recouvrement textuel mot pour mot.`,
    customersNotified: 'Les clients concernés (responsables de traitement) ont été informés (art. 33.2) ; voir les notifications.',
    defaultProposed: "Maintenir l'isolation du cache par client ; ajouter un contrôle bloquant au déploiement (crosstalk probe --fail-on-leak) ; demander aux clients destinataires de supprimer les réponses concernées.",
    article34: {
      subjects: 'Les personnes concernées seront informées (risque élevé, art. 34.1).',
      no: "Pas d'information : l'évaluation n'a pas établi de risque élevé probable (art. 34.1) ; réexaminé au fil des constatations.",
      undecided: "Non décidé : l'analyse est en cours.",
    },
    scopeMethod:
      "observations de canaris : réponses contenant un marqueur enregistré pour une autre session (cross_session) ou un autre client (cross_tenant), dans des fichiers de journaux entièrement chargés ; la provenance par recouvrement textuel et les données personnelles détectées sont présentées à part",
    subjectsMethod: (r) =>
      "Une session compte pour une personne concernée (l'utilisateur final de la conversation ; les personnes citées dans le texte ne sont pas comptées). Borne basse : sessions distinctes dont le marqueur canari ou le texte (provenance) a atteint une autre session. " +
      (r.high === null
        ? 'Borne haute : non déterminée (taille du pool KV inconnue, --pool-tokens).'
        : "Borne haute : sessions distinctes dont les requêtes ont été servies par un nœud de décodage présentant des réponses à risque ou contaminées, entre la première et la dernière d'entre elles, plus les sessions confirmées."),
    recordsMethod: (r) =>
      "Un enregistrement concerné est une réponse ayant divulgué les données d'une autre session. Borne basse : réponses avec une observation cross_session/cross_tenant ou une attribution de provenance. " +
      (r.high === null
        ? 'Borne haute : non déterminée (taille du pool KV inconnue, --pool-tokens).'
        : "Borne haute : toutes les réponses de statut 200 dont la requête atteignait le pool (chacune pouvait porter des pages périmées), plus les fuites confirmées hors de cet ensemble."),
  },
}

/** "7 to 19", "7", or "at least 7 (upper bound not yet known)"; `approx` adds the word. */
export function formatRange(r: {low: number; high: number | null} | null, lang: Language, unknown: string, approx = false): string {
  if (!r) return unknown
  const fr = lang === 'fr'
  if (r.high === null) return fr ? `au moins ${r.low} (borne haute non connue)` : `at least ${r.low} (upper bound not yet known)`
  if (r.low === r.high) return `${r.low}`
  return fr ? `entre ${r.low} et ${r.high}${approx ? ' (approximatif)' : ''}` : `${r.low} to ${r.high}${approx ? ' (approximate)' : ''}`
}
