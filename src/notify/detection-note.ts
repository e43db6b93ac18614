import {describeGap, type DetectionCoverage, nothingSearched} from '../detect/coverage.js'
import {z} from 'zod'
import {staleFindings} from '../scope/unscanned.js'
import {compte, frSingular as un} from '../util/plural.js'

// What every report says about detection coverage: nothing when it is complete, a plain
// warning when the responder chose to report over an incomplete scan (--allow-incomplete).

export const detectionSchema = z.object({
  complete: z.boolean(),
  files_not_scanned: z.number().int(),
  records_not_scanned: z.number().int(),
  registry_changed: z.boolean(),
  provenance: z.enum(['current', 'stale', 'never']),
  last_scan_at: z.string().nullable(),
  note: z.string().nullable().describe('why detection is incomplete, null when complete'),
})

export type DetectionSummary = z.infer<typeof detectionSchema>

/** The gap in French, for French documents (the same facts as describeGap). */
function describeGapFr(c: DetectionCoverage): string {
  const unfinished = c.files_unfinished > 0 ? `${compte(c.files_unfinished, 'fichier')} de journaux dont le chargement n'a pas abouti (relancer la même commande : elle reprend)` : null
  if (nothingSearched(c)) {
    const never =
      c.files_not_scanned > 0 && !c.no_log_records
        ? `le dossier n'a jamais été analysé (${compte(c.files_not_scanned, 'fichier')} de journaux, ${compte(c.records_not_scanned, 'enregistrement')})`
        : c.no_log_records && c.last_scan_at !== null
          ? "le dossier ne contient aucun enregistrement de journal : l'analyse n'a rien examiné"
          : 'le dossier ne contient aucun journal analysé'
    return unfinished === null ? never : `${never} ; ${unfinished}`
  }
  const parts: string[] = []
  if (unfinished !== null) parts.push(unfinished)
  const grown = c.files_grown ?? 0
  if (grown > 0) parts.push(`${compte(grown, 'fichier')} de journaux dont l'original contient maintenant des octets au-delà de ceux chargés, jamais jugés (ajoutés depuis ; crosstalk status ${un(grown) ? 'le nomme : le charger' : 'les nomme : les charger'} à nouveau)`)
  if (c.unfinished_scan_started_at !== null) parts.push(`l'analyse commencée le ${c.unfinished_scan_started_at} n'a pas abouti (interrompue, arrêtée ou en échec, ou encore en cours) : les résultats peuvent être pour partie les siens, pour partie ceux de la dernière analyse terminée`)
  if (c.files_not_scanned > 0) parts.push(`${compte(c.files_not_scanned, 'fichier')} de journaux (${compte(c.records_not_scanned, 'enregistrement')}) ${un(c.files_not_scanned) ? 'chargé' : 'chargés'} depuis la dernière analyse`)
  if (c.registry_changed) parts.push('le registre des canaris a changé depuis la dernière analyse')
  if (c.sighting_rules_changed) parts.push("la dernière analyse a classé les observations selon des règles antérieures (avant les règles 2, les seuls chiffres hexadécimaux d'un marqueur dans une requête en faisaient un écho ; avant les règles 3, un jeton tronqué d'un marqueur enregistré qui prolongeait aussi un marqueur plus court était lu comme le plus court ; avant les règles 4, un marqueur enregistré trouvé à l'intérieur d'un plus long, ou une requête contenant un marqueur plus long qui commence par lui, était lu comme son observation ou son écho ; avant les règles 5, un jeton tronqué de plusieurs marqueurs enregistrés était orphelin même quand une seule session les possédait tous)")
  if (c.files_extracted_earlier > 0) parts.push(`${compte(c.files_extracted_earlier, 'fichier')} de journaux ${un(c.files_extracted_earlier) ? 'extrait' : 'extraits'} par une version antérieure de crosstalk, dont la lecture diffère de celle-ci (avant x3, elle lisait moins de parties des requêtes et séparait les blocs de texte d'une réponse en flux ; avant x4, elle lisait une ligne qui donne deux fois une clé par la dernière valeur de la clé ; avant x5, elle ne lisait pas certains textes d'une réponse : appels de fonction, outils, messages d'erreur ; avant x6, elle ne lisait pas les éléments des outils intégrés, les résultats d'un outil serveur ou d'un serveur MCP, les citations et les transcriptions audio, certains textes qu'une requête renvoie (raisonnements, appels et résultats d'outils, refus, sortie prédite), et passait sans le dire sur un élément ou un bloc d'un type qu'elle ne connaît pas ; avant x7, elle passait sans le dire sur une partie d'une réponse de chat d'un type qu'elle ne connaît pas, ne lisait pas ses parties de refus, prenait la capture d'écran d'un appel d'ordinateur pour une forme non lue, comptait une réponse d'embeddings comme une réponse sans texte décodé, et ne cherchait un événement coupé en cours de route que dans son texte brut, à part du texte de la réponse qui le précède ; avant x8, elle ne lisait pas les flux de Gemini, Bedrock ConverseStream, Cohere et Assistants ni les blocs de raisonnement de LiteLLM, passait sans le dire sur certaines parties des messages GenAI et sur les données d'un flux après [DONE], et lisait moins de textes d'une requête : formes de requête d'autres fournisseurs, définitions d'outils et schémas de sortie, si bien qu'un marqueur que le modèle en répétait était pris pour celui d'une autre session ; avant x9, elle prenait un marqueur enregistré trouvé à l'intérieur d'un plus long pour une occurrence de celui-ci, joignait sans séparation les parties de texte d'une requête, et lisait un numéro de téléphone écrit de deux façons comme deux valeurs et un IBAN en minuscules comme aucun ; avant x10, elle enregistrait un identifiant contenant un demi-caractère de substitution isolé comme un autre, lisait des heures hors de 2000-2100 ou dans une mauvaise unité d'époque et une heure 0 comme 1970, lisait comme texte simple une réponse gardée en texte SSE dans un export Langfuse ou OTel et une réponse vide comme du texte, joignait le raisonnement et le contenu d'un flux de chat, ne cherchait les arguments d'appels d'outils que tels qu'écrits, et mettait en quarantaine une ligne ouverte par une marque d'ordre des octets ; avant x11, elle lisait comme texte simple un flux gardé en texte dans un message Langfuse ou OTel, ou en chaîne NDJSON, passait sur les lignes d'un flux hors de tout champ SSE, enregistrait un nœud contenant un demi-caractère de substitution isolé comme un autre, et ne trouvait pas un marqueur écrit avec un trait d'union d'apparence semblable, des caractères invisibles ou en pleine chasse ; avant x12, elle ne trouvait pas un marqueur contenant d'autres caractères invisibles (marques bidirectionnelles, sélecteurs de variante, caractères d'étiquette), coupé par un retour à la ligne dans ses chiffres, ou dont le trait d'union ou les chiffres étaient écrits en échappements JSON, références HTML ou encodage pour cent, lisait une ligne d'erreur OpenAI Batch sans sa requête, et gardait comme enregistrement un identifiant fait seulement de caractères invisibles ; avant x13, elle refusait une heure d'enregistrement écrite dans la forme minuscule de la RFC 3339, suivie de « UTC » ou d'une [zone] RFC 9557) : une analyse ${un(c.files_extracted_earlier) ? "l'extrait" : 'les extrait'} à nouveau`)
  if (c.provenance === 'stale') parts.push("la provenance sans canari n'a pas été recalculée depuis l'ajout d'enregistrements")
  return parts.join(' ; ')
}

/**
 * What the gap does to the figures below it, said as it is: the findings a scan made that no
 * longer cover the case are not given at all (staleFindings: every output leaves them out); the
 * at-risk counts and upper bounds read every record ingested, scanned or not; what was found
 * counts only the records scanned, so it is at least that. Never "every number covers only what
 * was scanned": every record ingested is counted by the at-risk test.
 */
function gapEffect(c: DetectionCoverage, fr: boolean): string {
  const stale = staleFindings(c)
  const out: string[] = []
  if (stale.markers || stale.provenance) {
    const what = fr
      ? stale.markers && stale.provenance ? 'les marqueurs canaris et le texte reproduit' : stale.markers ? 'les marqueurs canaris' : 'le texte reproduit mot pour mot'
      : stale.markers && stale.provenance ? 'canary markers and verbatim text' : stale.markers ? 'canary markers' : 'verbatim text'
    out.push(fr
      ? `Les chiffres fondés sur ${what} (l'exposition, les estimations, les catégories de données) ne sont pas connus avant une nouvelle analyse et ne sont pas donnés.`
      : `The figures that rest on ${what} (the exposure, the estimates, the data categories) are not known until a scan, and are not given.`)
  }
  if (nothingSearched(c)) out.push(fr ? "Aucun marqueur ni texte n'a encore été recherché." : 'No marker or text has been searched for yet.')
  else if (c.files_not_scanned > 0 || c.files_unfinished > 0 || (c.files_grown ?? 0) > 0)
    out.push(fr
      ? "Les réponses à risque et les bornes hautes couvrent tous les enregistrements chargés, analysés ou non ; les marqueurs et le texte reproduit n'ont été recherchés que dans les enregistrements analysés : ce qui a été trouvé est un minimum."
      : 'The at-risk counts and upper bounds cover every record ingested, scanned or not; markers and verbatim text were searched only in the records scanned, so what was found is at least what is shown.')
  else if (!stale.markers && !stale.provenance)
    out.push(fr ? 'Ce qui a été trouvé est celui de la dernière analyse terminée ; une analyse peut le changer.' : 'What was found is the last finished scan\'s; a scan may change it.')
  return out.join(' ')
}

export function detectionSummary(c: DetectionCoverage, language: 'en' | 'fr' = 'en'): DetectionSummary {
  const note = c.complete
    ? null
    : language === 'fr'
      ? `Analyse incomplète : ${describeGapFr(c)}. ${gapEffect(c, true)}`
      : `Detection is incomplete: ${describeGap(c)}. ${gapEffect(c, false)}`
  return {
    complete: c.complete,
    files_not_scanned: c.files_not_scanned,
    records_not_scanned: c.records_not_scanned,
    registry_changed: c.registry_changed,
    provenance: c.provenance,
    last_scan_at: c.last_scan_at,
    note,
  }
}
