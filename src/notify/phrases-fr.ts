import type {AssessmentRecord} from './assessment-store.js'
import type {ReplayTargetFacts} from './facts.js'
import {boundedCount, namedFew, replayTargetPlace, scopeAfterSent, type ExposureSide, type NotifiedOf, type NotScanned, type Phrases} from './phrases-en.js'
import type {Exposure} from '../scope/exposure.js'
import type {MarkersStaleCause} from '../scope/unscanned.js'
import {compte, frSingular as un} from '../util/plural.js'
import {asSentence} from './statements.js'
import {minuteDown, minuteUp} from './time.js'
import type {NotificationScope} from '../store/notifications.js'

/**
 * Ce sur quoi reposait une notification enregistrée (le périmètre gardé à son enregistrement, migration 023) ; '' pour une
 * notification construite à la main. `oneController` : un document pour un seul responsable de traitement, qui ne donne
 * jamais les chiffres gardés (ceux de tout le dossier, d'autres clients compris).
 */
function notifiedScope(nt: NotifiedOf, oneController = false): string {
  const scope = nt.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return " Le périmètre sur lequel elle reposait n'a pas été enregistré (elle l'a été avant que crosstalk garde le périmètre de chaque notification) : ce qu'elle indiquait n'est pas connu ici, et les chiffres de ce document sont ceux connus aujourd'hui, non ceux notifiés."
  if (!scope.known) return ` Aucun périmètre n'était connu lors de son enregistrement (${scope.scan === null ? "le dossier n'avait pas été analysé" : "les résultats de l'analyse ne couvraient pas le dossier"}).`
  const after = scopeAfterSent(nt)
  const scanOf = (sc: NonNullable<NotificationScope['scan']>): string => `analyse terminée le ${sc.finished_at}, règles d'observation ${sc.sighting_rules ?? 'antérieures à 2'}, schéma d'extraction ${sc.extract_scheme}`
  if (oneController) {
    return after
      ? ` Elle a été enregistrée dans ce dossier le ${nt.recorded_at ?? 'une date ultérieure'}, alors que la dernière analyse s'était terminée après son envoi (${scanOf(scope.scan!)}) : ce sur quoi elle reposait et les chiffres qu'elle donnait ne sont pas enregistrés ici ; les chiffres de ce document sont ceux connus aujourd'hui.`
      : ` ${scope.scan ? `Elle reposait sur les résultats de l'${scanOf(scope.scan)} ; les` : 'Les'} chiffres qu'elle donnait à ce responsable de traitement ne sont pas enregistrés dans ce dossier : les chiffres de ce document sont ceux connus aujourd'hui.`
  }
  const n = (x: number | null): string => (x === null ? 'un nombre inconnu de' : scope.detection_complete ? String(x) : `au moins ${x}`)
  const range = (r: {low: number; high: number | null} | null): string => (r === null ? 'non connu' : r.high === null ? `au moins ${r.low}` : r.high === r.low ? String(r.low) : `${r.low} à ${r.high}`)
  const window = scope.first_seen && scope.last_seen ? `, entre le ${scope.first_seen} et le ${scope.last_seen}` : ''
  const sessions = boundedCount(scope.sessions, scope.sessions_low)
  const clients = boundedCount(scope.source_tenants, scope.source_tenants_low)
  const figures = `${n(scope.responses)} réponse(s) portant les données d'une autre session, issues ${sessions.low ? `d'au moins ${sessions.n}` : `de ${n(sessions.n)}`} session(s) ${clients.low ? `d'au moins ${clients.n}` : `de ${n(clients.n)}`} client(s), reçues par ${n(scope.recipient_tenants)} client(s) ; ${n(scope.controllers)} client(s) (responsables de traitement) concerné(s) ; personnes concernées : ${range(scope.data_subjects)} ; enregistrements : ${range(scope.records)}${window}.${scope.detection_complete ? '' : " L'analyse ne couvrait pas alors tout le dossier : chaque chiffre était un minimum."}`
  if (after) return ` Ce sur quoi elle reposait n'est pas enregistré : elle a été enregistrée dans ce dossier le ${nt.recorded_at ?? 'une date ultérieure'}, avec le périmètre de l'analyse alors en vigueur (${scanOf(scope.scan!)}), terminée après son envoi : ${figures}`
  return ` Elle reposait sur le périmètre connu alors${scope.scan ? ` (${scanOf(scope.scan)})` : ''} : ${figures}`
}

function notifiedScan(nt: NotifiedOf): string {
  const scope = nt.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return " Ce sur quoi reposait cette notification n'a pas été enregistré (elle l'a été avant que crosstalk le garde) : les chiffres ci-dessous sont ceux connus aujourd'hui, pas nécessairement ceux qu'elle donnait."
  if (scope.scan === null) return " Aucune analyse n'était terminée lors de l'enregistrement de cette notification : les chiffres ci-dessous sont ceux connus aujourd'hui."
  return scopeAfterSent(nt)
    ? ` Cette notification a été enregistrée ici le ${nt.recorded_at ?? 'une date ultérieure'}, alors que la dernière analyse s'était terminée après son envoi (le ${scope.scan.finished_at}) : ce sur quoi elle reposait n'est pas enregistré, et les chiffres ci-dessous sont ceux connus aujourd'hui, pas nécessairement ceux qu'elle donnait.`
    : ` Cette notification reposait sur les résultats de l'analyse terminée le ${scope.scan.finished_at} : les chiffres ci-dessous sont ceux connus aujourd'hui, pas nécessairement ceux qu'elle donnait.`
}

function notifiedScopeShort(nt: NotifiedOf): string {
  const scope = nt.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return ' (périmètre alors : non enregistré)'
  if (!scope.known) return ' (périmètre alors : non connu)'
  const n = (x: number | null): string => (x === null ? '?' : scope.detection_complete ? String(x) : `au moins ${x}`)
  const sessions = boundedCount(scope.sessions, scope.sessions_low)
  const figures = `${n(scope.responses)} réponses, ${sessions.low ? `au moins ${sessions.n}` : n(sessions.n)} sessions, ${n(scope.controllers)} clients concernés${scope.first_seen && scope.last_seen ? `, du ${scope.first_seen} au ${scope.last_seen}` : ''}`
  return scopeAfterSent(nt) ? ` (périmètre alors : non enregistré ; enregistré le ${nt.recorded_at ?? 'une date ultérieure'} d'après une analyse terminée après son envoi : ${figures})` : ` (périmètre alors : ${figures})`
}

/** L'échéance d'une notification à l'autorité faite par un sous-traitant pour un responsable de traitement : 72 heures à compter de la connaissance de celui-ci (art. 33.1). */
function controllerDeadline(nt: {controller?: string | null; controller_aware_at?: string | null}): string {
  if (nt.controller_aware_at === undefined) return ''
  if (nt.controller_aware_at === null) {
    return (nt.controller ?? null) === null
      ? "non connu : elle ne nomme aucun responsable de traitement, et l'art. 33.1 compte ses 72 heures à partir de la connaissance de celui pour lequel elle est faite"
      : "non connu : l'art. 33.1 compte ses 72 heures à partir de la connaissance du responsable de traitement, et aucune notification du sous-traitant à celui-ci (qui l'en a informé) n'est enregistrée"
  }
  return `72 heures à compter de la connaissance du responsable de traitement au titre de l'art. 33.1, prise comme la notification initiale du sous-traitant à celui-ci le ${nt.controller_aware_at}`
}
import {quoteIfReserved, recipientKind, type RecipientOf} from './recipients.js'

// Les phrases des projets, notifications et entrées de registre, en français : exactement les
// clés de la table anglaise (le type l'impose), pour qu'aucun document ne retombe sur l'anglais.

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`

/** 75600 -> "21 h 00 min 00 s" ; négatif : "dépassé de ...". */
function duration(seconds: number): string {
  const abs = Math.abs(Math.trunc(seconds))
  const h = Math.floor(abs / 3600)
  const m = Math.floor((abs % 3600) / 60)
  const s = abs % 60
  const text = `${h} h ${String(m).padStart(2, '0')} min ${String(s).padStart(2, '0')} s`
  return seconds < 0 ? `délai dépassé de ${text}` : text
}

function range(r: {low: number; high: number | null} | null, approx = false): string {
  if (!r) return 'non connu à ce stade'
  if (r.high === null) return `au moins ${r.low} (borne haute non connue)`
  if (r.low === r.high) return `${r.low}`
  return `entre ${r.low} et ${r.high}${approx ? ' (approximatif)' : ''}`
}

/** Comment les textes de substitution ont été dimensionnés, d'après le dimensionnement enregistré : « de même longueur » seulement pour ceux envoyés à la taille enregistrée. */
const STAND_IN_SIZES: Record<string, string> = {
  as_recorded: 'textes de substitution de même longueur',
  scaled_to_pool: "textes de substitution mis à l'échelle du pool KV de la cible d'essai, dans le rapport de la taille enregistrée au pool de la chaîne d'origine",
  clamped_to_gap: "textes de substitution ramenés à une taille entre le pool de la cible d'essai et sa fenêtre, la taille enregistrée dépassant sa fenêtre",
  clamped_to_window: "textes de substitution ramenés à la fenêtre de la cible d'essai, la taille enregistrée la dépassant",
  unrecorded_window_max: "textes de substitution de la plus grande taille qu'accepte la fenêtre de la cible d'essai, le journal n'enregistrant aucune taille",
}

function standInSizes(sizes: ReplayTargetFacts['stand_in_sizes']): string {
  if (sizes === undefined || sizes.length === 0) return "textes de substitution ; leur dimensionnement n'est pas enregistré ici"
  const label = (scaling: string): string => STAND_IN_SIZES[scaling] ?? `textes de substitution dimensionnés ainsi : ${scaling}`
  if (sizes.length === 1) return label(sizes[0]!.scaling)
  return sizes.map((s) => `${compte(s.records, 'requête')} : ${label(s.scaling)}`).join(' ; ')
}

function replayGroup(g: ReplayTargetFacts): string {
  const where =
    g.target_kind === 'simulator'
      ? `sur le banc d'essai intégré de crosstalk (version ${g.target_version ?? 'inconnue'}), un simulateur conçu pour reproduire ce défaut : il montre le mécanisme, non que la chaîne de production en est atteinte`
      : g.target_kind === 'external'
        ? `sur la chaîne de service ${replayTargetPlace(g.target)}, modèle ${g.model}${g.target_version ? `, version ${g.target_version}` : ''}`
        : `sur ${replayTargetPlace(g.target)}, modèle ${g.model} (il n'a pas été enregistré s'il s'agissait du simulateur intégré)`
  const purpose = g.purpose === 'negative-control' ? 'Comme témoin négatif, ' : g.purpose === 'confirmation' ? 'Pour confirmer le défaut, ' : ''
  const when = g.first_at === g.last_at ? `le ${g.first_at}` : `entre le ${g.first_at} et le ${g.last_at}`
  const stats = g.trials > 0 ? ` ; ${compte(g.reproduced, 'essai')} sur ${g.trials} ${un(g.reproduced) ? 'a' : 'ont'} reproduit la fuite, soit ${pct(g.rate!)} (intervalle de Wilson à 95 % : ${pct(g.wilson_low)}–${pct(g.wilson_high)})` : ''
  const originals = g.original_prompt_records ?? (g.original_prompt ? g.records : 0)
  const standIns = standInSizes(g.stand_in_sizes)
  const prompts =
    originals === 0
      ? ` Les requêtes d’origine n’ont pas été renvoyées (${standIns}).`
      : originals >= g.records
        ? ' Les requêtes d’origine ont été renvoyées (option explicite, journalisée).'
        : ` Les requêtes d’origine de ${originals} de ces ${g.records} requêtes ont été renvoyées (option explicite, journalisée) ; les autres non (${standIns} : le journal ne contenait pas le texte de la requête).`
  const primerLeaks =
    g.primer_leaks === null
      ? " ; il n'a pas été enregistré pour ces campagnes si les réponses aux requêtes d'amorçage portaient le marqueur d'un autre locataire synthétique"
      : (g.primer_leaks ?? 0) > 0
        ? ` ; ${compte(g.primer_leaks!, 'réponse')} aux requêtes d'amorçage ${un(g.primer_leaks!) ? 'portait' : 'portaient'} le marqueur d'un autre locataire synthétique : la cible a laissé fuir des données pendant la reproduction`
        : ''
  const others =
    (g.other_markers ?? 0) > 0
      ? ` ; ${compte(g.other_markers!, 'réponse')} (à des déclencheurs ou à des requêtes d'amorçage) ${un(g.other_markers!) ? 'portait' : 'portaient'} un marqueur que la reproduction n'avait donné à aucun locataire synthétique, ou un marqueur tronqué dont on ne peut dire à qui il appartient (non ${un(g.other_markers!) ? 'jugée' : 'jugées'}, et rien ne montre que la cible est saine)${(g.other_owner_sessions ?? 0) > 0 ? `, le registre des marqueurs du dossier attribue de tels marqueurs à ${compte(g.other_owner_sessions!, 'session')} de clients` : ''}`
      : ''
  const inconclusive = (g.inconclusive ?? 0) > 0 ? `, ${g.inconclusive} ${un(g.inconclusive!) ? "n'a pas pu être jugée" : "n'ont pas pu être jugées"} (aucun essai jugé)` : ''
  const unjudged = g.unjudged_trials === null ? " ; il n'a pas été enregistré pour ces campagnes si des essais n'ont pas pu être jugés (réponse incomplète / sans texte)" : (g.unjudged_trials ?? 0) > 0 ? ` ; ${compte(g.unjudged_trials!, 'essai')} n'${un(g.unjudged_trials!) ? 'a' : 'ont'} pas pu être ${un(g.unjudged_trials!) ? 'jugé' : 'jugés'} (réponse incomplète / sans texte) et ${un(g.unjudged_trials!) ? "n'entre" : "n'entrent"} dans aucun de ces chiffres` : ''
  // Les déclencheurs restés sans réponse ou en erreur n'ont rien testé : dit, comme la console le dit.
  const n = g.hung_or_errored_trials ?? 0
  const failed = n > 0 ? ` ; ${compte(n, 'essai')} ${un(n) ? 'est resté' : 'sont restés'} sans réponse ou en erreur et n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'jugé' : 'jugés'} (${un(n) ? "il n'entre" : "ils n'entrent"} dans aucun de ces chiffres)` : ''
  return `${purpose}${g.records} ${un(g.records) ? 'requête concernée distincte a été rejouée' : 'requêtes concernées distinctes ont été rejouées'} ${where}, ${when} (campagne ${g.run_ids.join(', ')}) : ${compte(g.confirmed, 'confirmée')} (défaut reproduit), ${g.not_reproduced} non ${un(g.not_reproduced) ? 'reproduite' : 'reproduites'}, ${compte(g.rejected, 'rejetée')} par la cible${inconclusive}${stats}${primerLeaks}${others}${unjudged}${failed}.${g.interrupted ? ' La campagne a été interrompue ; ses résultats sont partiels.' : ''}${prompts}`
}

const outcome: Record<string, string> = {
  document: 'documenter seulement (pas de notification)',
  notify: "notifier l'autorité de contrôle",
  'notify-subjects': "notifier l'autorité de contrôle et informer les personnes concernées",
}
const band: Record<string, string> = {low: 'faible', medium: 'moyenne', high: 'élevée', 'very high': 'très élevée'}
const recipient = (n: RecipientOf): string => ({authority: "l'autorité de contrôle", 'data-subjects': 'les personnes concernées', controller: `le responsable de traitement (client) ${quoteIfReserved(n.recipient)}`})[recipientKind(n)]
const status: Record<'open' | 'due_soon' | 'overdue' | 'notified', string> = {open: 'en cours', due_soon: 'ÉCHÉANCE PROCHE', overdue: 'DÉLAI DÉPASSÉ', notified: 'notifié'}

/** L'autre côté d'une exposition : les autres sessions du client lui-même (« vos », ou « ses » dans un projet pour un responsable de traitement), puis celles des autres clients. */
/** « 1563 réponses dans 8 autres fichiers ... n'ont pas été examinées », ou rien quand tout a été analysé. */
function nonAnalyses(n: NotScanned): string {
  if (n.files === 0) return ''
  return ` ${compte(n.records, 'réponse')} dans ${compte(n.files, 'autre fichier', 'autres fichiers')} de journaux ${un(n.files) ? 'chargé' : 'chargés'} mais non ${un(n.files) ? 'analysé' : 'analysés'} ${un(n.records) ? "n'a" : "n'ont"} pas été ${un(n.records) ? 'examinée' : 'examinées'} : on ne sait pas encore ce qu'${un(n.files) ? 'il contient' : 'ils contiennent'}.`
}

function cotes(sessionsPropres: number, sessionsAutres: number, clients: number, possessif = 'vos', clientsAuMoins = false): string[] {
  const out: string[] = []
  if (sessionsPropres > 0) out.push(compte(sessionsPropres, `autre de ${possessif} sessions`, `autres de ${possessif} sessions`))
  if (sessionsAutres > 0 || sessionsPropres === 0) out.push(clientsAuMoins ? `au moins ${compte(sessionsAutres, 'session')} d'au moins ${compte(clients, 'autre client', 'autres clients')}` : `${compte(sessionsAutres, 'session')} de ${compte(clients, 'autre client', 'autres clients')}`)
  return out
}

/** Un côté de l'exposition, par type de preuve : sans registre de canaris, aucun marqueur n'a pu être attribué, et il n'y a pas de nombre de marqueurs à donner. */
/** Ce qu'une notification au responsable de traitement doit encore établir, et comment cela suivra (art. 33.4). */
function resteOuvert(n: number, propres = 0): string {
  const nos = propres > 0 ? `${compte(propres, 'point')} de nos propres enregistrements ${un(propres) ? 'reste' : 'restent'} à compléter (${un(propres) ? 'listé' : 'listés'} sous « À consigner avant l'envoi »).` : ''
  if (n === 0) return propres === 0 ? "Aucun point enregistré pour cette notification ne reste ouvert." : nos
  const echelonnes = `${compte(n, 'point')} ${un(n) ? 'reste' : 'restent'} à établir (${un(n) ? 'listé' : 'listés'} sous « Encore à compléter ») ; nous vous ${un(n) ? 'le' : 'les'} transmettrons dans une notification complémentaire dès ${un(n) ? "qu'il sera établi" : "que chacun sera établi"}.`
  return nos ? `${echelonnes} ${nos}` : echelonnes
}

/** « , provenant de 3 sessions de 2 autres clients » : les sources désignées seulement ; rien quand aucune réponse n'a de source désignée. */
function deCotes(n: ExposureSide, possessif: string): string {
  return n.responses - (n.notNamed ?? 0) > 0 ? `, provenant ${cotes(n.ownSessions, n.otherSessions, n.others, possessif, !n.atLeast && (n.customerNotNamed ?? 0) > 0).map((c) => (n.atLeast ? `d'au moins ${c}` : c.startsWith('au moins ') ? `d'${c}` : `de ${c}`)).join(' et ')}` : ''
}

/** Les réponses reçues dont le client source n'a pu être désigné (un marqueur tronqué, préfixe des marqueurs de sessions de plusieurs autres clients). */
function clientNonDesigne(n: ExposureSide): string {
  const k = n.customerNotNamed ?? 0
  if (k === 0) return ''
  return ` ${un(k) ? "Le client source d'une réponse n'a pu être désigné : elle contenait" : `Le client source de ${k} réponses n'a pu être désigné : chacune contenait`} un marqueur canari tronqué, préfixe des marqueurs de sessions de plusieurs autres clients.`
}

/** Les réponses reçues dont la source n'est pas établie : peut-être les données d'un autre client, peut-être les siennes, attribuées à personne. */
function sourceNonEtablie(n: ExposureSide, propres: string): string {
  const k = n.notNamed ?? 0
  if (k === 0) return ''
  const qui = k === n.responses ? (un(k) ? 'Elle contenait' : 'Toutes contenaient') : `${k} d'entre elles ${un(k) ? 'contenait' : 'contenaient'}`
  return ` ${qui} un texte mot pour mot dont la source n'est pas établie (le même texte dans les prompts de plusieurs clients, ou seulement dans des réponses dont les prompts n'ont pas été journalisés) : il peut s'agir des données d'un autre client ou ${propres}, et aucun client n'est désigné comme ${un(k) ? 'sa' : 'leur'} source.`
}

function parPreuve(n: ExposureSide, marqueur: string): string {
  return n.canaries
    ? `${n.by_canary} avec ${marqueur}, ${n.by_text_only} par texte reproduit seulement`
    : 'toutes par texte reproduit : aucun registre de canaris, marqueurs non vérifiés'
}

/** Why the markers' classes are stale (scope/unscanned.ts markersStaleReason, in French). */
function markersStaleReasonFr(cause: MarkersStaleCause): string {
  const registry = 'le registre des canaris a changé depuis la dernière analyse, les marqueurs trouvés ont donc été classés selon un autre registre'
  const rules = "la dernière analyse a classé les marqueurs trouvés selon des règles d'observation antérieures à celles de cette version, leurs classes peuvent donc différer aujourd'hui"
  return cause === 'registry' ? registry : cause === 'rules' ? rules : `${registry} ; ${rules}`
}

/** A notification's lateness where it has no fixed deadline (as clock says it). */
const FR_LATE_NOT_KNOWN = "non connu, pas d'échéance fixe (« dans les meilleurs délais » s'apprécie, ne se compte pas)"

export const FR: Phrases = {
  lang: 'fr',
  draft: 'PROJET',
  final: 'VERSION FINALE',
  finalisedWithOpenItems: (n, by, at) =>
    `Version finalisée le ${at} par ${by} avec ${compte(n, 'point')} encore ${un(n) ? 'ouvert' : 'ouverts'} (chacun indiqué « pas encore connu » ci-dessous) : les informations complémentaires suivront dès qu'elles seront établies.`,
  toComplete: (item) => `à compléter : ${item}`,
  notYetKnown: (item) => `pas encore connu : ${item}`,
  toFollow: (item) => `pas encore connu : ${item} ; cette information sera transmise dès qu'elle sera établie`,
  unknown: 'non connu à ce stade',
  // « aucun » s'accorde avec le nom qu'il remplace : masculin (marqueur, client), féminin (session, réponse, catégorie, période).
  none: 'aucun',
  noneFeminine: 'aucune',
  yes: 'oui',
  no: 'non',
  duration,
  range,
  exposureUnknown: {
    notKnown: "non connu : des jetons en forme de marqueur trouvés dans des réponses n'ont pu être attribués à aucune session (le dossier ne contient aucun registre de canaris)",
    atLeast: (n) => (n === 0 ? "non connu : des jetons en forme de marqueur trouvés dans des réponses n'ont pu être attribués à aucune session (le dossier ne contient aucun registre de canaris)" : `au moins ${n} (par texte reproduit ; ce que portent les marqueurs non attribués n'est pas connu : aucun registre de canaris)`),
    time: (at) => `${at} par texte reproduit ; non connu pour les marqueurs non attribués (aucun registre de canaris)`,
    flows: "Flux par texte reproduit seulement : de qui proviennent les données portées par les jetons en forme de marqueur trouvés dans des réponses, et qui les a reçues, n'est pas connu (le dossier ne contient aucun registre de canaris ; crosstalk ingest canaries FICHIER, puis crosstalk scan).",
  },
  join: ' ; ',
  status,
  role: {controller: 'responsable de traitement', processor: 'sous-traitant'},
  phase: {initial: 'notification initiale', 'follow-up': 'notification complémentaire'},
  breachType: {confidentiality: 'confidentialité', integrity: 'intégrité', availability: 'disponibilité'},
  causeCategory: {
    'internal-non-malicious': 'interne, non malveillante',
    'internal-malicious': 'interne, malveillante',
    'external-non-malicious': 'externe, non malveillante',
    'external-malicious': 'externe, malveillante',
    unknown: 'inconnue',
  },
  sector: {private: 'secteur privé', public: 'secteur public'},
  size: {micro: 'microentreprise', sme: 'petite ou moyenne entreprise', large: 'grande entreprise', other: 'autre'},
  outcome,
  band,
  recipient,
  clockBasis: {
    'art33(1)': '72 heures après la prise de connaissance (art. 33.1)',
    'art33(2)-contract': 'le délai contractuel envers chaque responsable de traitement (art. 33.2, art. 28.3.f)',
    'art33(2)-without-undue-delay': 'dans les meilleurs délais envers chaque responsable de traitement (art. 33.2) ; aucun délai contractuel enregistré',
  },

  exposure: (e: Exposure, first, last, canaries = true, atLeast = false) => {
    // `atLeast` (exposureKnown false): chaque compte est ce que montre le texte reproduit, un minimum.
    const n = (x: number, mot: string, pluriel?: string): string => (atLeast ? 'au moins ' : '') + compte(x, mot, pluriel)
    const de = (x: number, mot: string): string => (atLeast ? `d'au moins ${compte(x, mot)}` : `de ${compte(x, mot)}`)
    const lead = `${atLeast ? `Au moins ${compte(e.responses, 'réponse')}` : compte(e.responses, 'réponse')} ${un(e.responses) ? 'contenait' : 'contenaient'} des données d'une autre session${
      !canaries
        ? `, dont ${un(e.responses) ? 'elle reproduisait' : 'elles reproduisaient'} le texte mot pour mot (on ne sait pas ${un(e.responses) ? 'si elle portait' : 'si certaines portaient'} aussi un marqueur canari : aucun registre de canaris dans le dossier).`
        : e.by_canary === 0
        ? `, dont ${un(e.responses) ? 'elle reproduisait' : 'elles reproduisaient'} le texte mot pour mot sans marqueur canari.`
        : ` : ${e.by_canary} ${un(e.by_canary) ? 'portait' : 'portaient'} le marqueur canari de cette session et ${e.by_text_only} en ${un(e.by_text_only) ? 'reproduisait' : 'reproduisaient'} le texte mot pour mot sans marqueur.`
    }`
    const k = e.source_not_named ?? 0
    // Une preuve qui ne nomme pas la session source est tout de même la session de quelqu'un : les minima, dits comme tels, jamais « 0 session ».
    const bas = (e.session_not_named ?? 0) > 0
    const sessionsDe = bas ? `d'au moins ${compte(e.sessions_low ?? e.sessions, 'session')}` : de(e.sessions, 'session')
    const clientsDe = bas && (e.source_tenants_low ?? e.source_tenants) > e.source_tenants ? `d'au moins ${compte(e.source_tenants_low!, 'client')}` : de(e.source_tenants, 'client')
    const marqueurs = e.marker_session_not_named ?? 0
    const tronque = marqueurs > 0
      ? ` La session source ${un(marqueurs) ? "d'une réponse n'a pu être nommée : elle contenait" : `de ${marqueurs} réponses n'a pu être nommée : chacune contenait`} un marqueur canari tronqué, préfixe des marqueurs de plusieurs sessions (le dossier liste les sources possibles).`
      : ''
    if (k === 0) return `${lead} Les données ${sessionsDe} ${clientsDe} ont atteint ${n(e.recipient_tenants, 'client destinataire', 'clients destinataires')}${first ? ` entre le ${first} et le ${last} (UTC)` : ''}${atLeast ? " par texte reproduit ; ce que portent les jetons en forme de marqueur trouvés dans des réponses, et quand, n'est pas connu" : ''}.${tronque}`
    const destinataires = new Set(e.flows.map((f) => f.recipient_tenant)).size
    // La phrase compte chaque client destinataire, comme le tableau : celui dont aucune réponse ne nomme de source n'est dans aucun flux, et il est compté à part.
    const sansSource = Math.max(0, e.recipient_tenants - destinataires)
    const elles = un(e.responses) ? 'Elle a' : 'Elles ont'
    const nommees = e.sessions > 0
      ? sansSource > 0
        ? ` ${elles} atteint ${n(e.recipient_tenants, 'client destinataire', 'clients destinataires')} : les données ${de(e.sessions, 'session')} ${de(e.source_tenants, 'client')} ont atteint ${destinataires} d'entre eux, et ${un(sansSource) ? "1 autre n'a reçu" : `${sansSource} autres n'ont reçu`} que des réponses dont la source n'est pas nommée.`
        : ` Les données ${de(e.sessions, 'session')} ${de(e.source_tenants, 'client')} ont atteint ${n(destinataires, 'client destinataire', 'clients destinataires')}.`
      : e.recipient_tenants > 0 ? ` ${elles} atteint ${n(e.recipient_tenants, 'client destinataire', 'clients destinataires')}.` : ''
    // Un marqueur tronqué, préfixe des marqueurs de sessions de plusieurs clients, ne nomme aucun client non plus : ce n'est pas un texte reproduit.
    const parMarqueur = Math.min(e.marker_source_not_named ?? 0, k)
    const parTexte = k - parMarqueur
    const qui = (j: number): string => (j === e.responses ? (un(j) ? 'Elle' : 'Toutes') : `${j} d'entre elles`)
    const texte = parTexte > 0 ? ` ${qui(parTexte)} ${un(parTexte) ? 'contenait' : 'contenaient'} un texte mot pour mot dont la source n'est pas établie (le même texte dans les prompts de plusieurs clients, ou seulement dans des réponses dont les prompts n'ont pas été journalisés) : aucun client n'est désigné comme ${un(parTexte) ? 'sa' : 'leur'} source.` : ''
    const marqueur = parMarqueur > 0 ? ` ${qui(parMarqueur)} ${un(parMarqueur) ? 'contenait' : 'contenaient'} un marqueur canari tronqué, préfixe des marqueurs de sessions de plusieurs clients (le dossier liste les sources possibles) : aucun client n'est désigné comme ${un(parMarqueur) ? 'sa' : 'leur'} source.` : ''
    const auMoins = bas && e.sessions === 0 ? ` Les données ${sessionsDe} ${clientsDe} les ont atteintes.` : ''
    // Le compte de tous les clients destinataires vient après les phrases sur les réponses (« N d'entre elles » porte sur les réponses).
    const [avant, apres] = e.sessions > 0 && sansSource === 0 ? [nommees, ''] : ['', nommees]
    return `${lead}${avant}${texte}${marqueur}${apres}${auMoins}${
      first ? ` ${un(e.responses) ? 'Elle a été servie' : 'Elles ont été servies'} entre le ${first} et le ${last} (UTC).` : ''
    }`
  },
  controllerExposure: {
    leaked: (n) =>
      `${n.atLeast ? 'Au moins ' : ''}${compte(n.responses, 'réponse adressée', 'réponses adressées')} à d'autres sessions ${un(n.responses) ? 'contenait' : 'contenaient'} des données ${n.atLeast || (n.sessionsNotNamed ?? 0) > 0 ? "d'au moins" : 'de'} ${compte(n.sessions, 'session')} des utilisateurs finaux de ce responsable de traitement (${parPreuve(n, 'son marqueur canari')}), ${un(n.responses) ? 'reçue' : 'reçues'} dans ${cotes(n.ownSessions, n.otherSessions, n.others, 'ses').map((x) => (n.atLeast ? 'au moins ' : '') + x).join(' et dans ')}${n.first ? ` entre le ${n.first} et le ${n.last} (UTC)` : ''}.`,
    received: (n) =>
      `${n.atLeast ? 'Au moins ' : ''}${compte(n.responses, 'réponse servie', 'réponses servies')} aux utilisateurs finaux de ce responsable de traitement ${un(n.responses) ? 'contenait' : 'contenaient'} des données d'une autre session (${parPreuve(n, 'un marqueur canari')}), dans ${n.atLeast ? 'au moins ' : ''}${compte(n.sessions, 'de ses sessions', 'de ses sessions')}${deCotes(n, 'ses')}${n.first ? ` entre le ${n.first} et le ${n.last} (UTC)` : ''}.${clientNonDesigne(n)}${sourceNonEtablie(n, 'des siennes')}`,
    nothingLeaked: "Aucune réponse adressée à une autre session ne contenait les données de ce responsable de traitement.",
    nothingReceived: "Aucune réponse servie aux utilisateurs finaux de ce responsable de traitement ne contenait de données d'une autre session.",
  },
  exposureCrossTenant: (n) => `${n} de ces réponses ${un(n) ? 'a été servie' : 'ont été servies'} à un autre client.`,
  noExposure: "L'analyse des journaux n'a trouvé aucune réponse contenant des données d'une autre session.",
  noVerbatimExposure: "L'analyse des journaux n'a trouvé aucune réponse reproduisant mot pour mot le texte d'une autre session.",
  noMarkerOrTextExposure: "L'analyse des journaux n'a trouvé aucune réponse contenant le marqueur canari ou le texte mot pour mot d'une autre session.",
  noScan: "L'analyse des journaux n'a pas encore été effectuée ; le périmètre n'est pas connu.",
  noneFound: "aucune : l'analyse de tous les journaux n'a trouvé aucune réponse contenant des données d'une autre session",
  noneFoundInSearched: "aucune dans ce qui a été analysé : l'analyse n'y a trouvé aucune réponse contenant des données d'une autre session.",
  dismissedSources: (sources) =>
    `${compte(sources.length, 'source')} de journaux (${sources.slice(0, 3).map((s) => `${s.name} : écartée sans lecture, « ${s.reason} »`).join(' ; ')}${sources.length > 3 ? ` ; et ${sources.length - 3} autres` : ''}) n'${un(sources.length) ? 'a' : 'ont'} pas été ${un(sources.length) ? 'analysée' : 'analysées'} : on ne sait pas si ${un(sources.length) ? 'elle contenait' : 'elles contenaient'} des données d'une autre session.`,
  integrity: "Les utilisateurs destinataires ont reçu des réponses contenant des données d'une autre session : l'intégrité de leurs réponses est aussi atteinte.",
  observedCategory: "Données personnelles communiquées à un mauvais destinataire (réponses contenant des données d'une autre session)",
  causeRecorded: (text) => `Description et cause, telles qu'établies : ${text}`,
  unintelligibleRecorded: (answer) => `Caractère inintelligible des données exposées pour leurs destinataires, tel qu'enregistré : ${answer}.`,
  unintelligible: {
    'protection-intact': 'oui, leur protection (chiffrement ou pseudonymisation) est intacte',
    'protection-likely-subvertible': 'leur protection risque d’être contournée',
    no: 'non, elles étaient intelligibles',
    'cannot-assess': 'cela ne peut pas être évalué',
  },
  crossBorderRecorded: (yes) => (yes ? "Traitement transfrontalier (art. 4.23), tel qu'enregistré : oui." : "Traitement transfrontalier (art. 4.23), tel qu'enregistré : non."),
  causeCategoryRecorded: (label) => `Cause : ${label}.`,
  investigation: (records, logFiles, registryFiles, notScanned = {records: 0, files: 0}, versions = logFiles, affected = true, sourcesNotNamed = 0) =>
    `Les journaux de ${compte(records, 'réponse')} (${compte(logFiles, 'fichier')} de journaux${versions > logFiles ? `, ${compte(versions, 'version')}` : ''}) ont été analysés à la recherche ${registryFiles === 0 ? "du texte d'autres sessions reproduit mot pour mot (aucun registre de canaris : voir ci-dessous)" : `des marqueurs canaris (${compte(registryFiles, 'fichier')} de registre) et du texte d'autres sessions reproduit mot pour mot`} ; ${!affected ? 'les journaux analysés sont listés dans l’annexe des preuves (SHA-256)' : sourcesNotNamed > 0 ? `chaque réponse concernée est identifiée dans le dossier (annexe des preuves, SHA-256), ainsi que chaque session et client dont elle portait les données, sauf la session source ${sourcesNotNamed === 1 ? "d'une réponse, qui n'a pu être nommée (le dossier liste ses sources possibles)" : `de ${sourcesNotNamed} réponses, qui n'ont pu être nommées (le dossier liste leurs sources possibles)`}` : 'chaque réponse, session et client concerné est identifié dans le dossier (annexe des preuves, SHA-256)'}.${nonAnalyses(notScanned)}`,
  unreadSources: (names) =>
    `${compte(names.length, 'autre source', 'autres sources')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) n'${un(names.length) ? 'a' : 'ont'} pas pu être ${un(names.length) ? 'lue' : 'lues'} et n'${un(names.length) ? 'a' : 'ont'} pas été ${un(names.length) ? 'examinée' : 'examinées'} : on ne sait pas si ${un(names.length) ? 'elle contient' : 'elles contiennent'} des données d'une autre session.`,
  notAllExamined: "non connu : tout n'a pas été examiné (voir les points à compléter)",
  ofWhatWasExamined: (figure) => `${figure}, dans ce qui a été examiné (tout ne l'a pas été : voir les points à compléter)`,
  retriesNotCounted: (n) => `non compté : ${compte(n, 'nouvelle tentative', 'nouvelles tentatives')} ${un(n) ? 'journalisée' : 'journalisées'} sous un identifiant de requête déjà compté ${un(n) ? 'portait' : 'portaient'} le marqueur d'une autre session (voir les points à compléter)`,
  noneInSearched: (n) => `aucune dans ce qui a été analysé (${compte(n, 'source de journaux écartée', 'sources de journaux écartées')} sans lecture ${un(n) ? "n'a pas été analysée" : "n'ont pas été analysées"})`,
  notCountingRetries: (figure, n) => `${figure} (sans compter ${compte(n, 'nouvelle tentative', 'nouvelles tentatives')} ${un(n) ? 'journalisée' : 'journalisées'} sous un identifiant de requête déjà compté et portant le marqueur d'une autre session : voir les points ouverts)`,
  duplicatesNotExamined: (n) =>
    `${compte(n, 'autre réponse', 'autres réponses')} ${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée (une nouvelle tentative) ${un(n) ? 'diffère' : 'diffèrent'} de celle-ci et n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'relue' : 'relues'} : on ne sait pas si ${un(n) ? 'elle contient' : 'elles contiennent'} des données d'une autre session, ni de laquelle.`,
  duplicateLeaks: (lines) =>
    `${compte(lines.length, 'autre réponse', 'autres réponses')} (${namedFew(lines).replace(/ and (\d+) more$/, ' et $1 autres')}), ${un(lines.length) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée (une nouvelle tentative), ${un(lines.length) ? 'contenait' : 'contenaient'} le marqueur canari d'une autre session et ${un(lines.length) ? "n'est pas comptée" : 'ne sont pas comptées'} dans ces chiffres.`,
  grownOriginals: (names) =>
    `${compte(names.length, 'fichier')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) ${un(names.length) ? 'a' : 'ont'} grandi après le chargement et les octets ajoutés n'ont pas été examinés : on ne sait pas s'ils contiennent des données d'une autre session.`,
  notReadWhole: (names) =>
    `${compte(names.length, 'fichier')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) n'${un(names.length) ? 'a' : 'ont'} pas été ${un(names.length) ? 'lu' : 'lus'} en entier (une partie n'a pas pu être lue comme textes d'un appel de modèle) et cette partie n'a pas été examinée : on ne sait pas si elle contient des données d'une autre session.`,
  evidenceDropped: (d, notifiedAt, reference) =>
    d.kind === 'canaries'
      ? `Preuve retirée depuis la notification du ${notifiedAt} (référence ${reference}) : le registre de canaris ${d.name} (sha256 ${d.sha256}, ${d.records <= 1 ? `${d.records} entrée` : `${d.records} entrées`}), qui disait à qui appartenait chaque marqueur, a été retiré du dossier le ${d.at} ; motif enregistré : ${d.reason || 'aucun'}. Chaque réponse est classée sans lui : qui a reçu les données de qui peut différer de ce qui a été notifié alors.`
      : `Preuve retirée depuis la notification du ${notifiedAt} (référence ${reference}) : le fichier de journaux ${d.name} (sha256 ${d.sha256}, ${d.records <= 1 ? `${d.records} enregistrement` : `${d.records} enregistrements`}) a été retiré du dossier le ${d.at} ; motif enregistré : ${d.reason || 'aucun'}. Chaque chiffre de ce projet est compté sans lui : un chiffre notifié alors peut différer pour cette raison.`,
  unreadLines: (n) =>
    `${compte(n, 'ligne de journal', 'lignes de journal')} n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'lue' : 'lues'} (${un(n) ? 'malformée, tronquée ou trop longue' : 'malformées, tronquées ou trop longues'}) et n'${un(n) ? 'a' : 'ont'} pas été ${un(n) ? 'examinée' : 'examinées'} : les chiffres portent sur les lignes lisibles ; ${un(n) ? 'elle est conservée' : 'elles sont conservées'} comme preuve pour examen.`,
  badLines: (n) =>
    `${compte(n, 'ligne de journal mise en quarantaine', 'lignes de journal mises en quarantaine')} n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'lue' : 'lues'} et n'${un(n) ? 'a' : 'ont'} jamais été ${un(n) ? 'examinée' : 'examinées'} (crosstalk status --bad-lines) : on ne sait pas si ${un(n) ? 'elle contient' : 'elles contiennent'} des données d'une autre session.`,
  noResponseText: (n) =>
    `${compte(n, 'réponse')} ${un(n) ? "n'avait" : "n'avaient"} pas de texte de réponse dans les journaux (le champ lu n'en contenait pas, ou la réponse n'a pas été journalisée) et n'${un(n) ? 'a' : 'ont'} été ${un(n) ? 'examinée' : 'examinées'} ni pour les marqueurs canaris ni pour le texte mot pour mot : tous les chiffres ne portent que sur les réponses qui avaient un texte.`,
  piiAttributedOnly: (n) =>
    `${compte(n, 'réponse')} ${un(n) ? 'contenait' : 'contenaient'} des données personnelles (une adresse e-mail, un numéro de téléphone ou autre) qu'une autre session avait envoyées auparavant et que la session destinataire n'a jamais envoyées, rapprochées par leur valeur sans marqueur canari ni texte mot pour mot de cette session (crosstalk pii) : ${un(n) ? 'elle a' : 'elles ont'} pu divulguer des données d'une autre session, et les chiffres fondés sur les marqueurs et le texte mot pour mot sont un minimum.`,
  noRequestText: (n, records) =>
    n >= records
      ? `Aucun prompt n'a été journalisé (aucun des ${compte(records, 'enregistrement')} n'a de texte de requête) : la recherche de texte mot pour mot n'avait aucun prompt auquel comparer les réponses, on n'a donc pas pu chercher si une réponse contenait le prompt d'une autre session.`
      : `${compte(n, 'enregistrement')} sur ${records} ${un(n) ? "n'avait" : "n'avaient"} pas de texte de requête dans les journaux (le prompt n'a pas été journalisé) : on n'a pas pu chercher si la réponse d'une autre session ${un(n) ? 'contenait ce prompt' : 'contenait ces prompts'}.`,
  notComparable: (n) =>
    `${compte(n, 'réponse')} ${un(n) ? 'contient' : 'contiennent'} un texte dans une écriture sans espaces entre les mots (chinois, japonais, thaï, etc.), que la recherche de texte mot pour mot (suites de mots séparés par des espaces) ne peut comparer : on n'a pas examiné si ${un(n) ? 'elle contenait' : 'elles contenaient'} le texte d'une autre session.`,
  noExposureOfExamined: (examined, unexamined) =>
    `L'analyse des ${compte(examined, 'réponse')} qui avaient un texte n'en a trouvé aucune contenant des données d'une autre session ; ${compte(unexamined, 'réponse')} sans texte n'${un(unexamined) ? 'a' : 'ont'} pas été ${un(unexamined) ? 'examinée' : 'examinées'} : on ne sait pas si ${un(unexamined) ? 'elle contenait' : 'elles contenaient'} des données d'une autre session.`,
  boilerplateSetAside: (n, tenants) =>
    `${compte(n, 'réponse')} ${un(n) ? 'reprend' : 'reprennent'} un texte présent dans les sessions de ${tenants} clients ou plus, ${un(n) ? 'écartée' : 'écartées'} comme texte standard et non ${un(n) ? 'comptée' : 'comptées'} ci-dessus : on ne sait pas si ${un(n) ? 'elle contient' : 'elles contiennent'} des données d'une autre session.`,
  noResponsesInLogs: "Aucune réponse n'a pu être examinée : les journaux chargés n'ont donné aucun enregistrement de réponse, on ne sait donc pas si une réponse contenait des données d'une autre session.",
  nothingExamined: (n) =>
    `Aucune réponse n'a pu être examinée : aucune des ${compte(n, 'réponse')} des journaux n'avait de texte de réponse, on ne sait donc pas si l'une d'elles contenait des données d'une autre session.`,
  atRiskNotKnown: (undecided) =>
    `non connu : les journaux ne donnent pas le statut HTTP ou la taille de la requête de ${compte(undecided, 'enregistrement')}, on ne sait donc pas ${un(undecided) ? "s'il était" : "s'ils étaient"} à risque`,
  atRiskWithUndecided: (atRisk, undecided) =>
    `${atRisk} (et ${compte(undecided, 'enregistrement')} dont les journaux ne donnent pas le statut HTTP ou la taille de la requête : ${un(undecided) ? "on ne sait pas s'il était" : "on ne sait pas s'ils étaient"} à risque)`,
  noPromptLogged: (n) =>
    `Pour ${compte(n, 'réponse')} contenant le marqueur canari d'une autre session, les journaux ne contiennent pas le texte de la requête : il n'a pas pu être vérifié si l'utilisateur avait lui-même envoyé ce marqueur (un écho) ; ${un(n) ? 'elle est comptée comme reçue' : 'elles sont comptées comme reçues'} de l'autre session.`,
  promptReadInPart: (n, members) =>
    `Pour ${compte(n, 'réponse')} contenant le marqueur canari d'une autre session, le corps de la requête contient ce que cette version ne lit pas (${members.slice(0, 5).join(', ')}${members.length > 5 ? `, et ${members.length - 5} autres` : ''}) : la requête n'a été lue qu'en partie et il n'a pas pu être vérifié si l'utilisateur y avait lui-même envoyé ce marqueur (un écho) ; ${un(n) ? 'elle est comptée comme reçue' : 'elles sont comptées comme reçues'} de l'autre session.`,
  excerptsMarkersOnly: (textOnly) =>
    `Les extraits ne sont donnés qu'autour des marqueurs canaris trouvés ; ${textOnly === null ? "le nombre de réponses trouvées par le seul texte reproduit, donc sans extrait, n'est pas connu (l'analyse ne couvre pas le dossier)" : textOnly === 0 ? "aucune réponse n'a été trouvée par le seul texte reproduit" : `${compte(textOnly, 'réponse')} ${un(textOnly) ? 'trouvée' : 'trouvées'} par le seul texte reproduit n'en ${un(textOnly) ? 'a' : 'ont'} pas (crosstalk provenance --show-text en donne le texte)`}. Les données personnelles que le détecteur trouve (adresses e-mail, numéros de téléphone, IBAN, numéros de carte, adresses IP) sont remplacées par leur type, par exemple [email] : les catégories ci-dessus les comptent par empreinte.`,
  originalsNotIntact: (files) =>
    `${compte(files.length, 'fichier')} de journaux ${un(files.length) ? 'conservé' : 'conservés'} par référence ${un(files.length) ? "n'est plus" : 'ne sont plus'} tel${un(files.length) ? '' : 's'} que chargé${un(files.length) ? '' : 's'} (${files.slice(0, 5).map((f) => `${f.name} : ${f.state === 'missing' ? 'absent' : 'modifié'}`).join(' ; ')}${files.length > 5 ? ` ; et ${files.length - 5} autres` : ''}) : le dossier n'en contient aucune copie, ce qu'${un(files.length) ? 'il contenait' : 'ils contenaient'} ne peut donc plus en être montré tant que l'original n'est pas remis en place.`,
  orphansWithoutRegistry: (n) =>
    `${compte(n, 'jeton')} en forme de marqueur ${un(n) ? 'trouvé' : 'trouvés'} dans des réponses n'${un(n) ? 'a' : 'ont'} pu être ${un(n) ? 'attribué' : 'attribués'} à aucune session (le dossier ne contient aucun registre de canaris) : on ne sait pas ${un(n) ? "s'il contient" : "s'ils contiennent"} des données d'une autre session.`,
  noRegistry:
    "Le dossier ne contient aucun registre de canaris : aucun marqueur n'a pu être attribué à une session, et les réponses n'ont été rapprochées que par le texte reproduit mot pour mot des requêtes et réponses antérieures d'autres sessions ; une réponse contenant les données d'une autre session sans en reproduire le texte ne serait pas trouvée.",
  controllerShareMethod:
    " ; dans ce projet pour un seul responsable du traitement, les réponses comptées sont celles adressées à ses utilisateurs finaux ou contenant leurs données, et les sessions et clients comptés sont les sources et destinataires de ces réponses, y compris ceux d'autres clients ; les réponses examinées, les fichiers de journaux et les marqueurs orphelins sont ceux de tout le dossier",
  replayGroup,
  measureRecorded: (text) => text,
  controllersNotified: (done, total) => `Clients concernés (responsables de traitement) informés au titre de l'art. 33.2 : ${done} sur ${total}.`,
  controllerNotified: (tenant, at, reference) => `Le sous-traitant a informé ce responsable de traitement (${quoteIfReserved(tenant)}) au titre de l'art. 33.2 le ${at} (référence ${reference}).`,
  lateNotKnown: FR_LATE_NOT_KNOWN,
  notificationStated: (n, incidentDelayReason, oneController = false) => {
    const reason = n.delay_reason ?? incidentDelayReason
    return (
      `${n.phase === 'initial' ? 'Notification initiale' : 'Notification complémentaire'} à ${recipient(n)} le ${n.at} (référence ${n.reference})` +
      (n.late === true ? (reason ? `, après l'échéance ; motifs du retard : ${reason}.` : ", après l'échéance ; aucun motif du retard n'est enregistré.") : n.late === null ? ` ; retard : ${controllerDeadline(n) || FR_LATE_NOT_KNOWN}.` : '.') +
      (n.late !== null && n.phase === 'initial' && n.controller_aware_at ? ` Son échéance : ${controllerDeadline(n)}.` : '') +
      notifiedScope(n, oneController)
    )
  },
  notifiedScope,
  notifiedScan,
  decisionStated: (a: AssessmentRecord) => `Décision enregistrée le ${a.at}${a.decided_by ? ` par ${a.decided_by}` : ''} : ${outcome[a.decision] ?? a.decision}. Justification : ${a.rationale}`,
  enisaMethod: (a) =>
    `Gravité ENISA 2013 SE = DPC x EI + CB = ${a.dpc} x ${a.ei} + ${a.cb} = ${a.se} (${band[a.band] ?? a.band}) ; suggestion : ${outcome[a.suggested] ?? a.suggested}. Indicatif seulement, mis en regard des facteurs de risque des lignes directrices 9/2022 du CEPD.`,
  article34: {
    informed: (at, ref) => `Les personnes concernées ont été informées le ${at} (référence ${ref}).`,
    informedBefore: (at, ref, scans, scannedAt) =>
      `Les personnes concernées connues le ${at} ont été informées à cette date (référence ${ref}). Depuis l'enregistrement de cette communication, ${scans === 1 ? 'une analyse' : `${scans} analyses`} (la dernière le ${scannedAt}) ${scans === 1 ? 'a ajouté' : 'ont ajouté'} ou réanalysé des enregistrements : les personnes concernées trouvées depuis peuvent ne pas avoir été informées.`,
    toInform: (a) => `Les personnes concernées seront informées : la décision enregistrée (${a.at}) retient un risque élevé probable (art. 34.1).`,
    notInformed: (a) =>
      `Les personnes concernées ne seront pas informées selon la décision enregistrée (${a.at} : ${outcome[a.decision] ?? a.decision})` +
      (a.suggested === 'notify-subjects'
        ? `, bien que la méthode ENISA suggère de les informer (SE ${a.se}, ${band[a.band] ?? a.band}) ; justification enregistrée de cet écart : ${a.rationale}`
        : ` ; justification : ${a.rationale}`) +
      '.',
  },
  consequences: {
    confidentiality: "Perte de confidentialité : des données personnelles contenues dans les requêtes et réponses des utilisateurs concernés ont été montrées à d'autres utilisateurs, y compris d'autres organismes.",
    confidentialitySameCustomer: "Perte de confidentialité : des données personnelles contenues dans les requêtes et réponses des utilisateurs concernés ont été montrées à d'autres utilisateurs du même organisme.",
    confidentialitySourceUnknown: (why: 'text' | 'marker' | 'both') =>
      `Perte de confidentialité : des données personnelles contenues dans les requêtes et réponses des utilisateurs concernés ont été montrées à d'autres utilisateurs ; s'il s'agit d'utilisateurs d'autres organismes n'est pas établi (${why === 'text' ? "la source du texte que certaines réponses reproduisaient n'est pas connue" : why === 'marker' ? "un marqueur canari tronqué est le préfixe des marqueurs de sessions de plusieurs clients : on ne sait pas à qui il appartient" : "la source du texte que certaines réponses reproduisaient n'est pas connue, et un marqueur canari tronqué est le préfixe des marqueurs de sessions de plusieurs clients"}).`,
    control: "Perte de maîtrise des données ; selon le contenu, risque d'usurpation d'identité ou de fraude, d'hameçonnage à partir des coordonnées divulguées (la recherche de données personnelles a trouvé des adresses électroniques ou des numéros de téléphone dans les réponses divulguées), d'atteinte à la réputation ou de détresse.",
    controlNoContact: "Perte de maîtrise des données ; selon le contenu, risque d'usurpation d'identité ou de fraude, d'atteinte à la réputation ou de détresse. La recherche de données personnelles n'a trouvé aucune coordonnée (adresse électronique, numéro de téléphone) dans les réponses divulguées : un hameçonnage à partir de coordonnées divulguées n'est pas établi.",
    integrity: "Intégrité : les utilisateurs destinataires ont reçu des réponses construites à partir des données d'autrui et ont pu agir sur la base d'informations erronées.",
    financial: 'Des données financières (IBAN / numéros de carte) ont été divulguées : risque de fraude et de perte financière.',
    protectedIntact: (measures) =>
      `Confidentialité : des réponses contenant des données d'une autre session ont été montrées à d'autres utilisateurs, mais ces données étaient, selon le dossier, sous une forme protégée par ${measures ? `les mesures en place (${measures.trim().replace(/[.;]+$/, '')})` : 'chiffrement ou pseudonymisation'} dont la protection est intacte, donc inintelligibles pour eux : le risque pour les personnes en est réduit d'autant (art. 34.3.a).`,
  },
  subjectCategories: {
    endUsers: 'Utilisateurs finaux des applications des clients concernés (une session de conversation chacun)',
    endUsersOfController: "Utilisateurs finaux de l'application de ce responsable de traitement dont les données ont atteint une autre session, ou qui ont reçu les données d'une autre session (une session de conversation chacun)",
    named: 'Personnes citées dans le texte des requêtes et réponses divulguées (non comptées)',
  },
  notApplicableInTime: (deadline) => `sans objet : dans le délai de 72 heures (échéance ${deadline})`,
  notApplicableIfSentBy: (deadline) => `sans objet si cette notification est faite au plus tard le ${deadline} (72 heures) ; faite plus tard, elle doit indiquer les motifs du retard (art. 33, paragraphe 1)`,
  onBehalfToComplete: (tenant, processorRecorded) =>
    `à compléter par le responsable de traitement (client ${tenant})${processorRecorded ? " : celui enregistré dans ce dossier est celui du sous-traitant, non celui du responsable de traitement" : ''}`,
  onBehalfRisk: (tenant, processorRecorded) =>
    `à évaluer et décider par le responsable de traitement (client ${tenant})${processorRecorded ? " : l'évaluation enregistrée dans ce dossier (crosstalk assess) est celle du sous-traitant, pour l'ensemble de ses clients" : ''}`,
  theProcessor: (processor) => (processor ? `${processor} (le sous-traitant)` : 'le sous-traitant'),
  preparedOnBehalf: (processor, tenant) =>
    `Préparé par le sous-traitant${processor ? ` (${processor})` : ''} pour le compte du responsable de traitement (client ${tenant}), comme projet à relire par celui-ci : la notification à l'autorité reste une obligation du responsable de traitement (art. 33.1 ; lignes directrices 9/2022 du CEPD).`,
  statusLine: (word, c, onBehalfOf = null) =>
    c === null
      ? onBehalfOf !== null
        ? `${word}. Échéance du responsable de traitement non connue à ce stade : ses 72 heures courent à réception de notre notification, qui n'est pas enregistrée.`
        : `${word}. Aucun incident ouvert : échéance inconnue.`
      : c.deadline === null
        ? `${word}. Aucune échéance fixe : dans les meilleurs délais (art. 33.2).`
        : `${word}. Échéance : ${c.deadline} (${status[c.status as keyof typeof status] ?? c.status}${c.status === 'notified' ? (c.late ? ", EN RETARD : après l'échéance" : ', dans le délai') : `, ${duration(c.remaining_seconds ?? 0)}`}).`,
  notifiedMargin: (seconds) => (seconds >= 0 ? `${duration(seconds)} avant l'échéance` : `${duration(-seconds)} après l'échéance`),
  evidenceKind: {log: 'journal', canaries: 'registre de canaris'},
  evidenceName: (e) => {
    const parts = [
      ...(e.same_name ? [`fichier ${e.same_name.number} sur ${e.same_name.of} de ce nom`] : []),
      ...(e.version ? [`version ${e.version.number} sur ${e.version.of} : ${e.version.number === 1 ? 'telle que lue la première fois' : `version ${e.version.number - 1} complétée, dont elle reprend les octets au début`}`] : []),
      ...(e.version && e.version.number < e.version.of ? ["suivie d'une version plus longue"] : []),
    ]
    return parts.length > 0 ? `${e.name} (${parts.join(' ; ')})` : e.name
  },
  evidenceRecords: (e) => (e.version && e.version.number > 1 ? `${e.records} ajoutés (${e.version.records_held} au total)` : String(e.records)),
  unknownNode: '(nœud inconnu)',
  lateFlag: 'EN RETARD',
  lateCell: (late, nt = {}) =>
    nt.controller_aware_at === undefined
      ? late === true ? 'OUI' : late === false ? 'non' : "non connu (pas d'échéance fixe : dans les meilleurs délais)"
      : `${late === true ? 'OUI' : late === false ? 'non' : 'non connu'} (${late === null ? controllerDeadline(nt).replace(/^non connu : /, '') : controllerDeadline(nt)})`,
  lateUnknown: 'retard : non connu',
  inTime: 'dans le délai',

  a34: {
    notYetKnown: (item) => `Pas encore connu : ${item}. Nous vous en informerons dès que nous le saurons.`,
    dpoLine: (name, contact) => `Notre délégué à la protection des données : ${contact ? `${name}, ${contact}` : name}.`,
    contactPointLine: (contact) => `Vous pouvez nous contacter à l'adresse suivante : ${contact}.`,
    nothingFound: "Nous avons analysé les journaux du service d'IA et n'avons trouvé aucune réponse montrant le texte de la conversation d'une autre personne.",
    nothingInvolved: "Aucune que nous ayons trouvée : aucune réponse examinée n'a montré votre conversation à quelqu'un d'autre.",
    nothingConsequence: "Nous n'avons trouvé aucun signe que vos informations aient atteint quelqu'un d'autre. Si nous en apprenons davantage, nous vous le dirons.",
    whatDataOpen: "les informations concernées : pas encore établies (voir « Ce qui s'est passé »)",
    consequencesOpen: "ce que cela peut signifier pour les personnes destinataires : cela dépend des informations concernées, pas encore établies",
    title: 'Informations importantes sur vos données personnelles',
    whatHappened: (_e, low) =>
      `Certaines réponses données par un service d'intelligence artificielle à d'autres utilisateurs contenaient du texte issu des conversations d'autres personnes. Une partie de votre conversation (ce que vous avez écrit, ou les réponses que vous avez reçues) a pu être montrée à quelqu'un d'autre (au moins ${low} ${un(low) ? 'conversation est concernée' : 'conversations sont concernées'} : celles que montrent les journaux ; il peut y en avoir d'autres).`,
    whatHappenedController: (c) =>
      `Certaines réponses données par un service d'intelligence artificielle à ses utilisateurs contenaient du texte issu des conversations d'autres personnes. Une partie de votre conversation (ce que vous avez écrit, ou les réponses que vous avez reçues) a pu être montrée à quelqu'un d'autre, ou une partie de la conversation de quelqu'un d'autre a pu vous être montrée. Au moins ${c.total} ${un(c.total) ? 'conversation des utilisateurs de ce service est concernée' : 'conversations des utilisateurs de ce service sont concernées'} (une conversation compte pour une personne ; celles que montrent les journaux, il peut y en avoir d'autres) : ${c.reached_others} dont le contenu a atteint quelqu'un d'autre, ${c.served_others} ${un(c.served_others) ? "qui s'est vu montrer" : "qui se sont vu montrer"} le contenu de quelqu'un d'autre${c.reached_others + c.served_others > c.total ? ' (une conversation des deux côtés est comptée une fois)' : ''}.`,
    cause: (category, text) =>
      category.includes('non-malicious') || category.includes('malicious') || !text
        ? `${category.includes('non-malicious') ? "Il s'agit d'un défaut, non d'une attaque." : category.includes('malicious') ? "Quelqu'un l'a provoqué délibérément." : "La cause n'est pas encore connue."}${text ? ` ${asSentence(text)}` : ''}`
        : `${asSentence(text)} On ne sait pas encore s'il s'agit d'un défaut ou d'une attaque.`,
    when: (first, last) => `Les réponses concernées trouvées dans nos journaux ont été données entre le ${minuteDown(first)} et le ${minuteUp(last)} (UTC).`,
    whenRecorded: (start, end) =>
      end
        ? `Cela s'est produit entre le ${minuteDown(start)} et le ${minuteUp(end)} (UTC), selon notre enquête.`
        : `Cela a commencé le ${minuteDown(start)} (UTC), selon notre enquête ; la date de fin n'est pas encore confirmée.`,
    conversation: 'des parties de votre conversation avec l’assistant : ce que vous avez écrit, ou les réponses qu’il vous a données',
    kindsNote: 'Toutes les conversations ne contenaient pas chacune de ces informations : les données personnelles citées après le premier point n’ont été trouvées que dans certaines des conversations concernées.',
    plain: {email: 'des adresses électroniques', phone: 'des numéros de téléphone', iban: 'des numéros de compte bancaire (IBAN)', card: 'des numéros de carte de paiement', ipv4: 'des adresses IP', ipv6: 'des adresses IP'},
    seen: "Une personne que vous ne connaissez pas a pu voir une partie de votre conversation.",
    seenProtected: "Une partie de votre conversation a été montrée à une autre personne, mais sous une forme protégée (chiffrée ou pseudonymisée) qu'elle ne peut pas lire : le risque pour vous est donc faible.",
    servedOnlyData: "Aucune partie de votre propre conversation n'a été trouvée montrée à quelqu'un d'autre ; des réponses qui vous ont été données contenaient des parties de la conversation d'une autre personne.",
    servedOnlyConsequence: "Certaines réponses que vous avez reçues ont pu être construites à partir de la conversation de quelqu'un d'autre et contenir des informations erronées pour vous : n'agissez pas sur la base d'une telle réponse, et ne partagez ni ne conservez les informations de l'autre personne qu'elle contenait.",
    phishing: 'Vous pourriez recevoir de faux courriels ou appels utilisant ces informations pour paraître authentiques (hameçonnage).',
    financial: "Quelqu'un pourrait tenter d'utiliser frauduleusement des coordonnées bancaires ou de carte figurant dans la conversation.",
    furtherCommunication: (at, ref, scans) =>
      `Les personnes concernées ont déjà été informées le ${at} (référence ${ref}) : cette lettre est une communication complémentaire${scans > 0 ? `, pour celles trouvées depuis (le dossier a reçu des enregistrements ou a été réanalysé ${scans === 1 ? 'une fois' : `${scans} fois`} après l'enregistrement de cette communication) ; lesquelles des personnes comptées ici elle a déjà atteintes n'est pas enregistré` : ''}. L'enregistrer avec notify record --recipient data-subjects --phase follow-up.`,
    authorityTold: (at) => `Nous avons notifié l'autorité de protection des données le ${at}.`,
    careful: "Méfiez-vous des courriels, messages ou appels inattendus qui mentionnent votre conversation ; ne cliquez sur aucun lien et ne communiquez aucun mot de passe.",
    checkBank: 'Vérifiez vos relevés bancaires et de carte et signalez à votre banque toute opération que vous ne reconnaissez pas.',
    secrets: 'Si vous avez communiqué un mot de passe ou un autre secret dans la conversation, changez-le dès maintenant.',
    contactUs: 'Contactez-nous pour toute question (coordonnées ci-dessous).',
    notRequired: (a) => `Note pour l'expéditeur : la décision enregistrée (${a.at}) est « ${outcome[a.decision] ?? a.decision} » : elle n'impose pas cette communication.`,
    processorMeasure: (processor, m) => `Notre prestataire${processor ? ` (${processor})` : ''} indique avoir pris cette mesure : ${m}`,
    proposedMeasure: (m) => `Prévu, pas encore fait : ${m}`,
    processorProposedMeasure: (processor, m) => `Prévu par notre prestataire${processor ? ` (${processor})` : ''}, pas encore fait : ${m}`,
    controllerMeasures: "les mesures que le responsable de traitement a lui-même prises ou envisage : aucune n'est enregistrée pour lui dans ce dossier (celles indiquées sont celles de son sous-traitant)",
    controllerName: "nom du responsable de traitement tel que ses personnes concernées le connaissent, et ses coordonnées : aucun n'est enregistré pour ce responsable de traitement dans ce dossier",
    controllerContact: (processorRecorded) => `DPO ou autre point de contact du responsable de traitement : aucun n'est enregistré pour lui${processorRecorded ? ' (le DPO enregistré dans ce dossier est celui du sous-traitant)' : ''}`,
    onBehalf: (tenant) => `Préparé par le sous-traitant pour le responsable de traitement (client ${tenant}), qui le relit et l'envoie : informer les personnes concernées est une obligation du responsable de traitement (art. 34).`,
    dedicated: "Ce message concerne uniquement cet incident ; il ne s'agit ni d'une lettre d'information ni d'une publicité.",
  },

  notice: {
    withdrawn: (at, ref) =>
      `Rectification : notre notification du ${at} (référence ${ref}) décrivait une exposition de vos données que le dossier ne montre plus (les preuves sur lesquelles elle reposait ont été retirées ou relues ; voir ci-dessous) : en l'état du dossier, aucune réponse trouvée n'a porté vos données vers une autre session ni les données d'une autre session vers vos utilisateurs.`,
    intro:
      "En tant que sous-traitant, nous vous informons d'une violation de données à caractère personnel touchant des données que nous traitons pour votre compte (RGPD, art. 33.2). Cette notification ne décrit que votre propre exposition : aucun contenu de conversation, aucun marqueur canari complet, aucune valeur de donnée personnelle, seulement des nombres et des catégories.",
    leaked: (n) =>
      `${n.atLeast ? 'Au moins ' : ''}${compte(n.responses, 'réponse adressée', 'réponses adressées')} à d'autres sessions ${un(n.responses) ? 'contenait' : 'contenaient'} des données ${n.atLeast || (n.sessionsNotNamed ?? 0) > 0 ? "d'au moins" : 'de'} ${n.sessions} de vos sessions (${parPreuve(n, 'votre marqueur canari')}), ${un(n.responses) ? 'reçue' : 'reçues'} dans ${cotes(n.ownSessions, n.otherSessions, n.others).map((x) => (n.atLeast ? 'au moins ' : '') + x).join(' et dans ')}${n.first ? ` entre le ${n.first} et le ${n.last} (UTC)` : ''}.`,
    received: (n) =>
      `${n.atLeast ? 'Au moins ' : ''}${compte(n.responses, 'réponse reçue', 'réponses reçues')} par vos utilisateurs ${un(n.responses) ? 'contenait' : 'contenaient'} des données d'une autre session (${parPreuve(n, 'un marqueur canari')}), dans ${n.atLeast ? 'au moins ' : ''}${n.sessions} de vos sessions${deCotes(n, 'vos')}${n.first ? ` entre le ${n.first} et le ${n.last} (UTC)` : ''}.${clientNonDesigne(n)}${sourceNonEtablie(n, 'des vôtres')}`,
    nothingLeaked: "Aucune réponse adressée à une autre session ne contenait vos données.",
    nothingReceived: "Aucune réponse reçue par vos utilisateurs ne contenait de données d'une autre session.",
    retriesReachedOthers: (n) =>
      `En outre, ${compte(n, 'nouvelle tentative', 'nouvelles tentatives')} d'une requête (${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée) ${un(n) ? 'servie' : 'servies'} à une autre session ${un(n) ? 'contenait' : 'contenaient'} vos données (votre marqueur canari) et ${un(n) ? "n'est pas comptée" : 'ne sont pas comptées'} dans les chiffres de cette notification.`,
    retriesReceived: (n) =>
      `En outre, ${compte(n, 'nouvelle tentative', 'nouvelles tentatives')} d'une requête (${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée) ${un(n) ? 'servie' : 'servies'} à vos utilisateurs ${un(n) ? 'contenait' : 'contenaient'} des données d'une autre session (un marqueur canari) et ${un(n) ? "n'est pas comptée" : 'ne sont pas comptées'} dans les chiffres de cette notification.`,
    identified: (responses, logFiles, byReference = 0, canaries = true, notScanned = {records: 0, files: 0}) =>
      `Les réponses concernées ont été identifiées dans les journaux de service (${compte(responses, 'réponse')} dans ${compte(logFiles, 'fichier')} de journaux) par ${canaries ? 'les marqueurs canaris et le texte reproduit' : 'le texte reproduit (aucun registre de canaris)'} ; ${byReference === 0 ? 'les preuves sont conservées avec leur empreinte SHA-256.' : `chaque fichier de journaux est identifié par son empreinte SHA-256 (${byReference === logFiles ? (un(logFiles) ? 'il est conservé' : 'tous sont conservés') : `${byReference} d'entre eux ${un(byReference) ? 'est conservé' : 'sont conservés'}`} par référence : le dossier n'en contient aucune copie).`}${nonAnalyses(notScanned)}`,
    assess: "En tant que responsable de traitement, évaluez le risque pour vos utilisateurs et décidez de la notification à votre autorité de contrôle : en principe, vos 72 heures courent à réception de cette notification (lignes directrices 9/2022 du CEPD).",
    assessFollowUp: (initial) =>
      initial
        ? `En tant que responsable de traitement, évaluez le risque pour vos utilisateurs et décidez de la notification à votre autorité de contrôle : en principe, vos 72 heures ont couru à compter de notre notification initiale du ${initial.at}, qui vous a informé de cette violation (échéance le ${initial.deadline} ; art. 33.1 ; lignes directrices 9/2022 du CEPD). Ce complément ne les fait pas courir à nouveau.`
        : "En tant que responsable de traitement, évaluez le risque pour vos utilisateurs et décidez de la notification à votre autorité de contrôle : en principe, vos 72 heures ont couru à compter de notre première notification de cette violation, qui vous en a informé, et non de ce complément (art. 33.1 ; lignes directrices 9/2022 du CEPD).",
    quarantine: "Supprimez ou isolez les réponses reçues par vos utilisateurs qui contenaient des données d'un tiers ; ne les traitez pas davantage.",
    piiNoneFound: (side, responses) =>
      responses === 0
        ? `Aucune : aucune réponse ${side === 'leaked' ? "adressée à une autre session ne contenait vos données" : side === 'received' ? "reçue par vos utilisateurs ne contenait de données d'une autre session" : "à l'une de vos sessions ne contenait de données d'une autre de vos sessions"}.`
        : `Aucune trouvée : ${side === 'leaked' ? 'les réponses qui contenaient vos données ont été analysées' : side === 'received' ? 'les réponses reçues par vos utilisateurs ont été analysées' : 'ces réponses ont été analysées'} à la recherche d'adresses e-mail, de numéros de téléphone, d'IBAN, de numéros de carte de paiement et d'adresses IP que la session destinataire n'avait pas envoyés elle-même, et n'en contenaient aucun. Les autres données personnelles du texte des conversations (noms, données de santé ou autres) ne sont pas détectées de cette manière.`,
    contactWanted: "Indiquez-nous le point de contact auquel adresser les informations complémentaires ; nous les transmettrons de manière échelonnée à mesure qu'elles sont confirmées (art. 33.4).",
    due: (deadline, hours, state = 'open') =>
      deadline
        ? `Cette notification ${state === 'open' ? 'est' : 'était'} due au plus tard le ${deadline} (les ${hours} heures prévues par notre contrat à compter de notre prise de connaissance)${state === 'late' ? ' : elle est en retard' : ''}.`
        : 'Cette notification est due dans les meilleurs délais (art. 33.2) ; aucun délai contractuel enregistré.',
    sent: (at, late) => `Cette notification a été envoyée le ${at}${late ? ", après l'échéance contractuelle" : ''}.`,
    phaseInitial: (open, records = 0) => `Il s'agit de notre notification initiale (art. 33.4 : les informations peuvent être communiquées de manière échelonnée). ${resteOuvert(open, records)}`,
    phaseFollowUp: (previous, open, records = 0) =>
      previous
        ? `Cette notification complète notre notification initiale envoyée le ${previous.at} (référence ${previous.reference})${previous.late ? ", après l'échéance contractuelle" : ''}, avec ce qui a été établi depuis (art. 33.4). ${resteOuvert(open, records)}`
        : `Il s'agit d'une notification complémentaire, avec ce qui a été établi depuis (art. 33.4) ; la notification initiale qu'elle complète n'est pas enregistrée ici. ${resteOuvert(open, records)}`,
    labelsMayDiffer: (earlier) =>
      `Les autres clients ne sont désignés dans cette notification que par des libellés (tenant#1, tenant#2, ...). Ces libellés ont été attribués après l'enregistrement de ${earlier.length === 1 ? 'notre notification précédente' : 'nos notifications précédentes'} ${earlier.map((e) => `du ${e.at} (référence ${e.reference})`).join(', ')}, et peuvent différer de ceux ${earlier.length === 1 ? "qu'elle employait" : "qu'elles employaient"} : un libellé peut désigner ici un autre client que le même libellé là-bas, et un même client peut porter un autre libellé.`,
    possibleSource: (responses, sessions, among) =>
      `${compte(responses, 'réponse')} ${un(responses) ? 'servie' : 'servies'} aux utilisateurs d'un autre client ${un(responses) ? 'contenait' : 'contenaient'} un texte mot pour mot que ${compte(sessions, 'session')} des vôtres ${un(sessions) ? 'contenait' : 'contenaient'} aussi : vos données peuvent être la source de ce texte. Vous êtes l'une de ${among.min === among.max ? among.min : `${among.min} à ${among.max}`} sources possibles (les clients dont les sessions contenaient le même texte) ; on ne sait pas encore laquelle en est la source.`,
    possibleMarkerSource: (responses, sessions, among) =>
      `${compte(responses, 'réponse')} ${un(responses) ? 'servie' : 'servies'} aux utilisateurs d'un autre client ${un(responses) ? 'contenait' : 'contenaient'} un marqueur canari tronqué, préfixe des marqueurs de sessions de plusieurs clients, dont ${compte(sessions, 'session')} des vôtres : vos données peuvent avoir atteint ce client. Vous êtes l'une de ${among.min === among.max ? among.min : `${among.min} à ${among.max}`} sources possibles (les clients dont les marqueurs des sessions commencent de même) ; le marqueur ne permet pas de dire laquelle en est la source.`,
    nextUpdate: (at) => `Nous vous enverrons notre prochaine mise à jour au plus tard le ${at} (UTC), avec ce qui aura été établi d'ici là (art. 33.4).`,
    beforeSending: 'À consigner avant l\'envoi (nos propres enregistrements ; hors des points transmis de manière échelonnée)',
  open: {
      previousNotice: "la notification initiale à ce responsable de traitement que celle-ci complète : date d'envoi et référence (aucune notification initiale à ce client n'est enregistrée)",
      duplicatesNotExamined: (n, ofYours) =>
        `${compte(n, 'réponse')} de cet incident, ${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée (une nouvelle tentative), n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'relue' : 'relues'}${ofYours > 0 ? (ofYours === n ? (un(n) ? ' (sous une de vos requêtes)' : ' (toutes sous vos requêtes)') : ` (dont ${ofYours} sous une de vos requêtes)`) : ''} : on ne sait pas encore si ${un(n) ? 'elle contenait' : 'elles contenaient'} vos données${ofYours > 0 ? `, ou des données d'une autre session servies à vos utilisateurs` : ''} ; nous vous le dirons une fois ${un(n) ? 'examinée' : 'examinées'}`,
      retries: (n, received, reachedOthers) =>
        `${compte(n, 'nouvelle tentative', 'nouvelles tentatives')} d'une requête vous concernant (${[...(reachedOthers > 0 ? [`${reachedOthers} avec vos données`] : []), ...(received > 0 ? [`${received} ${un(received) ? 'servie' : 'servies'} à vos utilisateurs`] : [])].join(', ')}), ${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée, ${un(n) ? "n'est pas encore comptée" : 'ne sont pas encore comptées'} dans ces chiffres : ils en seront complétés et suivront`,
      nextUpdate: "la date de notre prochaine mise à jour (art. 33.4) : aucune date n'est fixée",
      nextUpdatePassed: (at) => `la date de notre prochaine mise à jour (art. 33.4) : la date enregistrée, ${at}, est passée`,
      possibleSourceOf: (responses, among) =>
        `si vos données étaient la source du texte mot pour mot servi à un autre client (${compte(responses, 'réponse')} ; vous êtes l'une de ${among.min === among.max ? among.min : `${among.min} à ${among.max}`} sources possibles) n'est pas établi ; nous vous le dirons dès que ce sera le cas`,
      possibleMarkerSourceOf: (responses, among) =>
        `si vos données ont atteint un autre client dans un marqueur canari tronqué (${compte(responses, 'réponse')} ; vous êtes l'une de ${among.min === among.max ? among.min : `${among.min} à ${among.max}`} sources possibles) n'est pas établi ; nous vous le dirons dès que ce sera le cas`,
      possibleSourcesNotRecorded: (n) =>
        `${compte(n, 'réponse')} de cet incident ${un(n) ? 'contenait' : 'contenaient'} un texte mot pour mot présent à l'identique dans les sessions de plusieurs clients, et ses sources possibles n'ont pas été enregistrées lors de l'analyse du dossier (analyse par une version antérieure, ou résultats importés) : il n'est pas établi si vos données en faisaient partie ; nous vous le dirons dès que ce sera le cas`,
    },
  },

  register: {
    subjectsEitherSide: (eitherSide, low) =>
      ` Les projets de notification (art. 33) préparés pour chaque responsable de traitement (et leurs lettres aux personnes concernées) comptent les utilisateurs finaux de ce responsable des deux côtés de l'exposition : ceux dont les données ont atteint une autre session et ceux à qui les données d'une autre session ont été servies. Pour l'ensemble des responsables de traitement, cela fait ${eitherSide} session(s) (une session des deux côtés comptée une fois), là où le chiffre de ${low} ci-dessus compte, comme le projet de notification de tout le dossier, celles dont les données ont atteint une autre session.`,
    endNotConfirmed: 'fin non confirmée',
    windowEstimated: ' (estimé là où rien n\'est enregistré : première et dernière réponse concernée dans les journaux)',
    effects: "Perte de confidentialité du contenu des conversations (et des identifiants qu'il contient) envers d'autres utilisateurs ; atteinte à l'intégrité des réponses reçues par les utilisateurs destinataires.",
    effectsProtected: "Divulgation du contenu des conversations à d'autres utilisateurs sous une forme enregistrée comme protégée (chiffrement ou pseudonymisation intacts, donc inintelligible pour eux : risque réduit, art. 34.3.a) ; atteinte à l'intégrité des réponses reçues par les utilisateurs destinataires.",
    droppedLine: (d, notifiedAt) => `retiré après la notification du ${notifiedAt} : ${d.kind === 'canaries' ? 'registre de canaris ' : ''}${d.name} sha256 ${d.sha256}, retiré le ${d.at} (motif enregistré : ${d.reason || 'aucun'})`,
    notificationLine: (n) =>
      `${n.phase === 'initial' ? 'initiale' : 'complémentaire'} ${n.at} à ${({authority: "l'autorité", 'data-subjects': 'les personnes concernées', controller: `responsable de traitement ${quoteIfReserved(n.recipient)}`})[recipientKind(n)]}${n.controller_aware_at !== undefined && n.controller ? ` pour le responsable de traitement ${quoteIfReserved(n.controller)}` : ''} réf. ${n.reference}${n.file_sha256 ? ` sha256 ${n.file_sha256}` : ''}${
        n.controller_aware_at !== undefined && n.phase === 'initial' ? ` (${n.late === true ? 'EN RETARD : ' : n.late === false ? 'dans le délai : ' : 'retard : '}${controllerDeadline(n)})` : n.late === true ? ' EN RETARD' : n.late === null ? ' (retard : non connu, pas d\'échéance fixe)' : ''
      }${notifiedScopeShort(n)}`,
    severity: (a) => `SE ENISA ${a.se} (${band[a.band] ?? a.band}) ; suggestion : ${outcome[a.suggested] ?? a.suggested}`,
    authorityProcessor: "sans objet : en tant que sous-traitant, nous notifions chaque responsable de traitement (art. 33.2) ; la notification à l'autorité incombe au responsable de traitement (art. 33.1)",
    delayReasonOf: (reference, reason) => `${reason} (avec la notification ${reference})`,
    proposed: (m) => `Proposée, pas encore prise : ${m}`,
    inResponses: (n) => compte(n, 'réponse'),
    distinctValues: (n, responses) => `${compte(n, 'valeur distincte', 'valeurs distinctes')} dans ${compte(responses, 'réponse')}`,
    noInvestigation: 'aucun rejeu enregistré',
    roleChange: (c) =>
      `${c.at} : de ${({controller: 'responsable de traitement', processor: 'sous-traitant'} as Record<string, string>)[c.old_value ?? ''] ?? c.old_value} à ${({controller: 'responsable de traitement', processor: 'sous-traitant'} as Record<string, string>)[c.new_value ?? ''] ?? c.new_value}, motif : ${c.reason ?? 'aucun motif enregistré'}${c.amended_by ? ` (par ${c.amended_by})` : ''}`,
  },

  staleFigures: {
    heading: "Chiffres en l'état du dossier (les résultats de la dernière analyse ne le couvrent pas tous)",
    labels: {
      exposure_responses: "Réponses contenant des données d'une autre session (marqueur ou texte reproduit)",
      data_subjects: 'Nombre approximatif de personnes concernées',
      records_concerned: "Nombre approximatif d'enregistrements concernés",
      data_categories: 'Catégories de données à caractère personnel',
      affected_window: 'Première et dernière réponse concernée dans les journaux',
      contaminated_responses: "Réponses avec le marqueur canari d'une autre session",
      cross_tenant_responses: "dont avec le marqueur d'un autre client",
      cross_session_responses: "dont avec le marqueur d'un autre utilisateur du même client",
      exposed_sessions: 'Sessions dont le marqueur canari a atteint une autre session',
      recipient_tenants: "Clients ayant reçu le marqueur d'un autre client",
      orphan_sightings: 'Chaînes en forme de marqueur enregistrées pour personne (orphelines)',
      provenance_responses: "Réponses reproduisant le texte d'une autre session (avec ou sans marqueur)",
      at_risk_responses: 'Réponses à risque (requête atteignant le pool KV ; parmi toutes les réponses chargées)',
    },
    basis: {
      markers: 'le registre des canaris et la recherche des marqueurs',
      provenance: 'le calcul de provenance sans canari',
      both: 'les marqueurs canaris et le texte reproduit ensemble',
      records: 'le statut HTTP et la taille des requêtes des enregistrements, et la taille du pool KV',
    },
    current: (basis) => `tel que la dernière analyse l'a trouvé : sa base (${basis}) n'a pas changé depuis`,
    currentAtRisk: (basis) => `lu dans les enregistrements tels qu'ils sont (${basis}) : aucun résultat d'analyse n'y entre`,
    stale: (reason) => `non connu avant une nouvelle analyse (crosstalk scan) : ${reason}`,
    noRegistry: "non connu : aucun registre de canaris dans le dossier, aucun marqueur ne peut donc être attribué",
    noPool: "non connu : aucune taille de pool KV n'est enregistrée (crosstalk scan --pool-tokens N)",
    atRiskUnjudgeable: "non connu : aucun enregistrement des journaux ne donne à la fois son statut HTTP et la taille de sa requête",
    undecided: (n) => ` ; on ne sait pas si ${compte(n, 'autre enregistrement')} ${un(n) ? 'était' : 'étaient'} à risque (statut ou taille de requête non enregistrés)`,
    reason: (markers, provenance) =>
      [markers ? markersStaleReasonFr(markers) : null, provenance ? "la provenance sans canari ne couvre pas le dossier tel qu'il est (une analyse l'a omise avec --no-provenance, ou des preuves ont été retirées, depuis son calcul)" : null].filter((x) => x !== null).join(' ; '),
  },
  open: {
    noIncident: "la fiche d'incident : heure de prise de connaissance, rôle et intitulé",
    controller: 'nom et coordonnées du responsable de traitement',
    processor: 'le sous-traitant : nom et coordonnées',
    contact: "nom et coordonnées du DPO ou d'un autre point de contact",
    reportingPerson: 'la personne qui notifie : nom, fonction et coordonnées',
    sectorSize: "secteur et taille du responsable de traitement, et son activité économique",
    eeaRepresentative: "représentant au titre de l'art. 27 (responsable établi hors de l'EEE), ou « sans objet »",
    awarenessBasis: "fondement de l'heure de prise de connaissance (pourquoi il y avait alors une certitude raisonnable) et qui l'a décidée",
    controllerAwareness: 'quand le responsable de traitement a pris connaissance de la violation (réception de la notification du sous-traitant)',
    internalReference: 'notre référence interne pour l’incident',
    detectedAt: 'heure de la première détection (alerte ou signalement)',
    discovery: 'comment la violation a été découverte et par qui',
    informedBy: "si un tiers (sous-traitant, personne concernée, chercheur, presse) a informé le responsable de traitement, et quand",
    breachStart: 'début de la violation (seule la première réponse concernée dans les journaux est connue)',
    breachStartNoLogs: "début de la violation, s'il y en a eu une (aucune réponse concernée trouvée dans les journaux ne le donne)",
    breachEnd: 'confirmation de la fin de la violation (heure de fin)',
    breachStartContradicted: (recorded, logs) =>
      `le début de la violation : le début enregistré, ${recorded}, est postérieur à la première réponse concernée dans les journaux (${logs}), la violation avait donc commencé à cette heure-là ; corriger le début, ou indiquer pourquoi ces réponses ne font pas partie de cette violation`,
    timeBeforeStart: (field, at, start, reference = 'breach_started_at') =>
      `${field === 'aware_at' ? 'la prise de connaissance enregistrée' : field === 'detected_at' ? 'la détection enregistrée (première alerte)' : "le début de l'analyse enregistré"} (${at}) précède ${reference === 'detected_at' ? 'la détection enregistrée (première alerte)' : 'le début enregistré de la violation'} (${start}) : vérifier les deux ; aucun n'est présenté comme établi tant qu'ils ne concordent pas`,
    breachEndContradicted: (recorded, logs) =>
      `la fin de la violation : la fin enregistrée, ${recorded}, est antérieure à la dernière réponse concernée dans les journaux (${logs}), la violation n'avait donc pas pris fin à cette heure-là ; corriger la fin, ou indiquer pourquoi ces réponses ne font pas partie de cette violation`,
    perCountryBelow: (recorded, total, low) =>
      `le nombre de personnes concernées par pays : les chiffres enregistrés (${recorded}) totalisent ${total}, moins que les au moins ${low} personnes concernées que montrent les journaux ; les corriger, ou préciser quelles personnes concernées ils laissent de côté`,
    delayReason: 'motifs du retard : le délai de 72 heures est dépassé (art. 33.1)',
    delayReasonProcessor: "motifs du retard : une notification à un responsable de traitement est postérieure au délai contractuel (l'art. 33.2 demande au sous-traitant de notifier dans les meilleurs délais ; le responsable de traitement a besoin des motifs pour sa propre notification)",
    boilerplateResponses: (n, tenants) =>
      `${compte(n, 'réponse')} ${un(n) ? 'reprend' : 'reprennent'} un texte présent dans les sessions de ${tenants} clients ou plus, ${un(n) ? 'écartée' : 'écartées'} comme texte standard ; ${un(n) ? "l'examiner" : 'les examiner'} (crosstalk provenance --boilerplate-tenants N, N supérieur à ${tenants} : une simulation qui n'enregistre rien) et consigner le résultat`,
    sourceNotNamed: (n) =>
      `${compte(n, 'réponse')} ${un(n) ? 'contenait' : 'contenaient'} un texte mot pour mot dont la source n'est pas établie (le même texte dans les prompts de plusieurs clients, ou seulement dans des réponses dont les prompts n'ont pas été journalisés) : ${un(n) ? 'elle est comptée' : 'elles sont comptées'} comme reçue${un(n) ? '' : 's'}, et ses sources possibles, listées par crosstalk provenance, comme possiblement exposées, non comptées ci-dessus ; établir la source et consigner le résultat`,
    markerSourceNotNamed: (n) =>
      `${compte(n, 'réponse')} ${un(n) ? 'contenait' : 'contenaient'} un marqueur canari tronqué, préfixe des marqueurs de sessions de plusieurs clients, si bien qu'aucun client n'est nommé comme sa source : ${un(n) ? 'elle est comptée' : 'elles sont comptées'} comme reçue${un(n) ? '' : 's'}, et ses sources possibles, listées par crosstalk sightings, comme possiblement exposées, non comptées ci-dessus ; établir la source et consigner le résultat`,
    possibleSource: (n) =>
      `${compte(n, 'réponse')} de cet incident ${un(n) ? 'contenait' : 'contenaient'} un texte mot pour mot dont la source n'est pas établie (le même texte dans les prompts de plusieurs clients, ou seulement dans des réponses dont les prompts n'ont pas été journalisés) : il n'est pas encore établi si vos données en faisaient partie, elles ont donc pu être parmi ses sources possibles ; nous vous le dirons dès que la source sera établie`,
    piiAttributedOnly: (n) =>
      `${compte(n, 'réponse')} ${un(n) ? 'contenait' : 'contenaient'} des données personnelles envoyées d'abord par une autre session (rapprochées par leur valeur, sans marqueur canari ni texte mot pour mot : crosstalk pii les liste) : établir ${un(n) ? "si elle a divulgué" : "si elles ont divulgué"} les données de cette session et consigner le résultat ; jusque-là les chiffres de l'exposition sont un minimum`,
    noRequestText: (n, records) =>
      n >= records
        ? `aucun prompt n'a été journalisé (aucun des ${compte(records, 'enregistrement')} n'a de texte de requête) : on n'a pas pu chercher si une réponse contenait le prompt d'une autre session ; ingérer des journaux qui contiennent les prompts (--map request=CHEMIN) et relancer l'analyse`
        : `${compte(n, 'enregistrement')} sur ${records} ${un(n) ? "n'avait" : "n'avaient"} pas de texte de requête (le prompt n'a pas été journalisé) : on n'a pas pu chercher si la réponse d'une autre session ${un(n) ? 'contenait ce prompt' : 'contenait ces prompts'} ; ingérer des journaux qui contiennent les prompts (--map request=CHEMIN) et relancer l'analyse`,
    notComparable: (n) =>
      `${compte(n, 'réponse')} dans une écriture sans espaces entre les mots (chinois, japonais, thaï, etc.) n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'comparée' : 'comparées'} par la recherche de texte mot pour mot : ${un(n) ? "l'examiner" : 'les examiner'} et consigner le résultat`,
    responsesWithoutText: (n) =>
      `${compte(n, 'réponse')} sans texte de réponse n'${un(n) ? 'a' : 'ont'} été ${un(n) ? 'examinée' : 'examinées'} ni pour les marqueurs canaris ni pour le texte mot pour mot : ingérer des journaux qui contiennent les réponses (ou indiquer le champ qui les contient : --map response=CHEMIN) et relancer l'analyse`,
    duplicatesNotExamined: (n, ofController) =>
      `${compte(n, 'réponse')} ${un(n) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée (une nouvelle tentative) n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'relue' : 'relues'} ni ${un(n) ? 'examinée' : 'examinées'}${ofController ? (ofController === n ? (un(n) ? ' (sous une requête de ce responsable du traitement)' : ' (toutes sous des requêtes de ce responsable du traitement)') : ` (dont ${ofController} sous une requête de ce responsable du traitement)`) : ''} : on ne sait pas si ${un(n) ? 'elle contient' : 'elles contiennent'} des données d'une autre session, ni de laquelle ; ${un(n) ? 'la' : 'les'} relire (crosstalk status nomme chaque ligne) et relancer l'analyse avant de dire ce qu'${un(n) ? 'elle contenait' : 'elles contenaient'}`,
    duplicateLeaks: (lines) =>
      `${compte(lines.length, 'réponse')} (${namedFew(lines).replace(/ and (\d+) more$/, ' et $1 autres')}) ${un(lines.length) ? 'journalisée' : 'journalisées'} sous l'identifiant de requête d'une réponse déjà comptée (une nouvelle tentative journalisée sous le même identifiant) ${un(lines.length) ? 'contient' : 'contiennent'} le marqueur canari d'une autre session et ${un(lines.length) ? "n'est comptée" : 'ne sont comptées'} dans aucun chiffre de ce projet (la première ligne d'une requête en est l'enregistrement) : établir à qui appartiennent ces données et qui les a reçues (crosstalk status nomme chaque ligne), et les ajouter aux chiffres`,
    grownOriginals: (names) =>
      `${compte(names.length, 'fichier')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) ${un(names.length) ? 'a' : 'ont'} grandi après le chargement : les octets ajoutés n'ont pas été examinés (crosstalk status dit combien) ; ${un(names.length) ? 'le' : 'les'} charger à nouveau et analyser avant de dire ce qu'${un(names.length) ? 'il contient' : 'ils contiennent'}`,
    notReadWhole: (names) =>
      `${compte(names.length, 'fichier')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) non ${un(names.length) ? 'lu' : 'lus'} en entier : ce qui n'a pas été lu n'a pas été examiné (crosstalk status dit quoi) ; ingérer avec ${un(names.length) ? 'lui' : 'eux'} les fichiers qui contiennent le reste (crosstalk drop, puis ingérer à nouveau), ou consigner pourquoi ce reste ne contient aucune réponse`,
    originalsNotIntact: (files) =>
      `${compte(files.length, 'fichier')} de journaux ${un(files.length) ? 'conservé' : 'conservés'} par référence ${un(files.length) ? 'est absent ou modifié' : 'sont absents ou modifiés'} depuis le chargement (${files.slice(0, 5).map((f) => f.name).join(', ')}${files.length > 5 ? ` et ${files.length - 5} autres` : ''}) : remettre l'original là où le dossier le lit (crosstalk verify le vérifie), ou consigner où il se trouve (crosstalk relocate)`,
    orphansWithoutRegistry: (n) =>
      `${compte(n, 'jeton')} en forme de marqueur ${un(n) ? 'trouvé' : 'trouvés'} dans des réponses ${un(n) ? "n'est attribué" : "ne sont attribués"} à aucune session, le dossier ne contenant aucun registre de canaris : on ne sait pas ${un(n) ? "s'il contient" : "s'ils contiennent"} des données d'une autre session ; ingérer le registre des canaris et relancer l'analyse`,
    datedAfterIngest: (n) =>
      `${compte(n, 'réponse concernée', 'réponses concernées')} ${un(n) ? 'porte' : 'portent'} une heure postérieure de plus de 5 minutes à l'ingestion de ${un(n) ? 'son' : 'leur'} fichier de journal, heure à laquelle aucune réponse n'a pu être servie : ${un(n) ? 'elle est comptée' : 'elles sont comptées'}, mais ${un(n) ? 'son heure est écartée' : 'leurs heures sont écartées'} de toutes les dates et périodes données ici ; établir quand ${un(n) ? 'elle a été servie' : 'elles ont été servies'} (horloge ou fuseau du journal) et corriger la période`,
    datedBeforeIssued: (n) =>
      `${compte(n, 'réponse concernée', 'réponses concernées')} ${un(n) ? 'est datée' : 'sont datées'} d'avant la date d'émission (issued_at) dans le registre des canaris du marqueur qui s'y trouve, quand aucune réponse ne pouvait le contenir : l'horloge, le fuseau ou l'unité d'époque du journal, ou le registre, est faux ; ${un(n) ? 'elle est comptée' : 'elles sont comptées'}, mais ${un(n) ? 'son heure est écartée' : 'leurs heures sont écartées'} de toutes les dates et périodes données ici ; établir lequel est faux et le corriger (ingérer à nouveau le journal avec le bon --assume-tz ou --map ts=epoch_UNITÉ:CHEMIN, ou le registre)`,
    badLines: (n) =>
      `${compte(n, 'ligne de journal mise en quarantaine', 'lignes de journal mises en quarantaine')} n'${un(n) ? 'a' : 'ont'} pas pu être ${un(n) ? 'lue' : 'lues'} ni ${un(n) ? 'examinée' : 'examinées'} : on ne sait pas si ${un(n) ? 'elle contient' : 'elles contiennent'} des données d'une autre session ; ${un(n) ? 'la' : 'les'} lire (crosstalk status --bad-lines), ${un(n) ? "l'ingérer" : 'les ingérer'} à nouveau sous une forme lisible et relancer l'analyse, ou consigner pourquoi ${un(n) ? 'elle ne contient' : 'elles ne contiennent'} aucune réponse`,
    unreadSources: (names) =>
      `${compte(names.length, 'source')} de journaux (${namedFew(names).replace(/ and (\d+) more$/, ' et $1 autres')}) n'${un(names.length) ? 'a' : 'ont'} pas pu être ${un(names.length) ? 'lue' : 'lues'} ni ${un(names.length) ? 'examinée' : 'examinées'} : ${un(names.length) ? "l'ingérer entière" : 'ingérer chacune entière'} (décompressée, ou gzip) et relancer l'analyse, ou consigner pourquoi ${un(names.length) ? 'elle ne contient' : 'elles ne contiennent'} aucun journal`,
    detectionIncomplete: (files) => `analyse incomplète (${files > 0 ? `${compte(files, 'fichier')} de journaux non ${un(files) ? 'analysé' : 'analysés'} ; ` : ''}la note sur l'analyse et crosstalk status disent ce qui manque) : ce qui a été trouvé ne compte que les enregistrements analysés, c'est donc un minimum ; les réponses à risque et les bornes hautes couvrent tous les enregistrements chargés`,
    atRiskUnknown: (undecided) =>
      `les réponses à risque (servies à partir d'une requête atteignant la taille du pool KV) : les journaux ne donnent pas le statut HTTP ou la taille de la requête de ${compte(undecided, 'enregistrement')}, aucune ne peut donc être jugée (des journaux qui donnent les deux le diraient)`,
    noScan: "le périmètre : réponses, sessions et clients concernés (l'analyse n'a pas été effectuée, ou ses résultats ne couvrent pas le dossier tel qu'il est : la note sur l'analyse dit lequel)",
    findingsStale: (markers, provenance) =>
      `le périmètre : réponses, sessions et clients concernés ne sont pas connus avant une nouvelle analyse (crosstalk scan) : ${[markers ? markersStaleReasonFr(markers) : null, provenance ? "la provenance sans canari ne couvre pas le dossier tel qu'il est (une analyse l'a omise avec --no-provenance, ou des preuves ont été retirées, depuis son calcul)" : null].filter((x) => x !== null).join(' ; ')}`,
    noRecords: "le périmètre : les journaux chargés n'ont donné aucun enregistrement de réponse, rien n'a donc pu être examiné (un format ou une convention de journal non lu ? crosstalk status indique pour chaque fichier ce qui a été lu)",
    upperBound: "borne haute du nombre de personnes et d'enregistrements (taille du pool KV inconnue)",
    upperBoundOneController: "borne haute du nombre de personnes et d'enregistrements de ce responsable de traitement : les bornes (réponses à risque, sessions servies par un nœud de décodage défaillant) sont calculées pour l'ensemble du dossier, non pour la part d'un seul responsable",
    upperBoundUnjudgeable: "borne haute du nombre de personnes et d'enregistrements : aucun enregistrement des journaux ne donne à la fois son statut HTTP et la taille de sa requête, aucune réponse ne peut donc être jugée à risque (des journaux qui les enregistrent la borneraient)",
    exactSubjects: 'nombre exact de personnes concernées (seule une fourchette est connue à ce stade)',
    content: 'contenu des requêtes et réponses divulguées au-delà des identifiants détectés (catégories particulières ? mineurs ?)',
    cause: "la cause de la violation : description et cause première, origine interne ou externe, malveillante ou non",
    systems: 'systèmes, logiciels, services et infrastructures concernés, et leur localisation',
    measuresBefore: 'mesures en place avant la violation (chiffrement, pseudonymisation, contrôle des accès ...)',
    measuresTaken: 'mesures prises pour remédier à la violation et en atténuer les éventuelles conséquences négatives',
    measuresProposed: 'mesures envisagées, y compris préventives',
    containment: 'mesures de confinement prises pour les données de ce client',
    risk: 'évaluation du risque et décision prise',
    assessmentStale: (at, scans, scannedAt) => `l'évaluation du risque et la décision du ${at} ont été faites sur un état antérieur du dossier : ${scans === 1 ? 'une analyse' : `${scans} analyses`} depuis (la dernière le ${scannedAt}) ${scans === 1 ? 'a pu changer' : 'ont pu changer'} les constatations sur lesquelles elles reposent (enregistrements ajoutés ou retirés, nouvelle analyse, autre taille de pool KV) ; la gravité, le niveau de risque et la décision peuvent ne plus découler des constatations : réévaluer avec les constatations actuelles`,
    subjectsFoundSince: (at, ref, scans, scannedAt) =>
      `les personnes concernées trouvées depuis la communication du ${at} (référence ${ref}) : ${scans === 1 ? 'une analyse' : `${scans} analyses`} depuis son enregistrement (la dernière le ${scannedAt}) ${scans === 1 ? 'a pu changer' : 'ont pu changer'} les constatations (enregistrements ajoutés ou retirés, nouvelle analyse) ; le dossier peut donc compter des personnes qu'elle n'a pas atteintes : comparer le périmètre sur lequel elle a été envoyée au périmètre actuel et informer celles qui ne l'ont pas été (communication complémentaire)`,
    assumedInputs: (inputs) => `la gravité repose sur des paramètres supposés par défaut, ni tirés du dossier ni confirmés par l'évaluateur : ${inputs} ; confirmer ou corriger chacun`,
    article34: 'information des personnes concernées (art. 34), avec la décision sur laquelle elle repose',
    notifications: "notification de l'autorité de contrôle (date, référence)",
    controllersUnknownBoilerplate: (n) =>
      `les responsables de traitement (clients) concernés et le nombre de notifications dues (art. 33.2) : inconnus tant que ${n === 1 ? '1 réponse écartée' : `${n} réponses écartées`} comme texte standard ${n === 1 ? "n'est pas réputée exempte" : "ne sont pas réputées exemptes"} des données d'une autre session (dont les données ${n === 1 ? 'elle porte' : 'elles portent'} n'est pas établi) ; ${n === 1 ? "l'examiner" : 'les examiner'} (crosstalk provenance --boilerplate-tenants N) et consigner le résultat`,
    controllersUnknown: "les responsables de traitement (clients) concernés et la notification due à chacun (art. 33.2) : inconnus tant qu'une analyse ne couvre pas le dossier (aucune ne l'a couvert, ou ses résultats ne le couvrent plus)",
    correctionOwed: (tenant, at, ref) =>
      `une notification complémentaire rectificative au responsable de traitement ${tenant} : notifié le ${at} (référence ${ref}) d'une exposition que le dossier ne montre plus, sans notification complémentaire enregistrée depuis (report processor-notice --tenant ${tenant} --phase follow-up)`,
    controllerNotices: (missing) => (un(missing) ? `notification à ${missing} responsable de traitement concerné, non encore enregistrée` : `notifications à ${missing} responsables de traitement concernés, non encore enregistrées`),
    police: 'signalement à la police ou aux autorités judiciaires',
    otherAuthorities: 'autres autorités informées (CSIRT, régulateurs sectoriels), avec leurs références',
    leadAuthority: 'autorité de contrôle chef de file (guichet unique) ou autorités de chaque État membre concerné',
    unintelligible: "caractère inintelligible des données exposées pour leurs destinataires (chiffrement ou pseudonymisation toujours efficaces ; motif de l'art. 34.3.a) : le dossier ne l'enregistre pas, et les mesures en place avant la violation ne disent pas qu'elles ont tenu",
    protectionContradicted: (labels) =>
      `caractère inintelligible des données exposées pour leurs destinataires : leur protection est enregistrée comme intacte, mais la recherche de données personnelles a trouvé ${labels.join(', ')} en clair dans les réponses divulguées ; les conséquences sont indiquées telles que constatées jusqu'à ce que le dossier soit corrigé, ou que soit enregistrée la raison pour laquelle ces données échappaient à la protection`,
    crossBorderContradicted: (states) =>
      `caractère transfrontalier du traitement : il est enregistré comme non transfrontalier, mais des établissements dans ${states.length} États membres sont enregistrés (${states.join(', ')}), ce qui le rend transfrontalier au sens de l'art. 4.23.a ; corriger l'un des deux`,
    crossBorder: "caractère transfrontalier du traitement (art. 4.23 : établissements dans plusieurs États membres, ou personnes sensiblement affectées dans plusieurs) ; le dossier ne l'enregistre pas, et une autorité chef de file ne suffit pas à l'établir",
    countries: 'pays des personnes concernées et nombre par pays',
    establishment: "pays d'établissement du responsable de traitement",
    authoritiesNotified: 'autorités de contrôle notifiées',
    replay: 'reproduction du défaut sur un système de test (crosstalk replay) pour confirmer la cause',
    notificationProblem: (text) => `une notification enregistrée contredit l'incident : ${text}`,
    onBehalfController: (tenant) => `nom et coordonnées du responsable de traitement (client ${tenant})`,
    subjectContact: 'coordonnées à communiquer aux personnes concernées (DPO ou point de contact)',
    dpoDesignated: "désignation d'un délégué à la protection des données (art. 37) : aucun nom de DPO n'est enregistré, seulement des coordonnées",
    contactName: 'nom du DPO ou de l\'autre point de contact (seules ses coordonnées sont enregistrées)',
    contactDetails: 'coordonnées du délégué à la protection des données (seul son nom est enregistré)',
    unattributedAuthority: (tenant, notifications) =>
      `si la notification à l'autorité enregistrée dans ce dossier sans le responsable de traitement pour lequel elle a été faite (${notifications.map((n) => `${n.phase === 'initial' ? 'initiale' : 'complémentaire'} ${n.at}, réf. ${n.reference}`).join(' ; ')}) l'a été pour ce responsable de traitement (client ${tenant}) : ce projet ne la tient pas pour sa notification tant qu'elle n'est pas enregistrée pour lui`,
    onBehalfContact: (tenant, processorRecorded) => `DPO ou autre point de contact du responsable de traitement (client ${tenant}) : aucun n'est enregistré pour lui${processorRecorded ? ' (le DPO enregistré dans ce dossier est celui du sous-traitant)' : ''}`,
    language: "la langue de la communication : aucune n'a été choisie, elle est rédigée en anglais ; confirmer la langue des personnes concernées (--lang)",
  },
}
