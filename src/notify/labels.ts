// The labels of data categories in every language of the drafts: facts carry kinds
// ('email', 'free_text', ...), and the words are chosen only when a report is rendered.

import {NO_REGISTRY_VERBATIM_LABEL} from '../scope/unscanned.js'

export type Language = 'en' | 'fr'

export const CATEGORY_LABELS: Record<Language, Record<string, string>> = {
  en: {
    email: 'contact details (e-mail addresses)',
    phone: 'contact details (phone numbers)',
    iban: 'financial data (IBANs / bank accounts)',
    card: 'financial data (payment card numbers)',
    // Two kinds, two labels: a list that reads "IP addresses (3); IP addresses (2)" looks like a slip.
    ipv4: 'online identifiers (IPv4 addresses)',
    ipv6: 'online identifiers (IPv6 addresses)',
    conversation_content_cross_tenant: "another customer's end-user conversation content (canary-marked prompts)",
    conversation_content_cross_session: "another end user's conversation content, same customer (canary-marked prompts)",
    conversation_content_attributed: "another session's prompt or answer, reproduced verbatim without a canary marker",
    conversation_content_attributed_no_registry: NO_REGISTRY_VERBATIM_LABEL,
    free_text: 'free text of prompts and completions (content not classified: may include any category, incl. Art. 9 data)',
  },
  fr: {
    email: 'coordonnées (adresses électroniques)',
    phone: 'coordonnées (numéros de téléphone)',
    iban: 'données financières (IBAN / comptes bancaires)',
    card: 'données financières (numéros de carte de paiement)',
    ipv4: 'identifiants en ligne (adresses IPv4)',
    ipv6: 'identifiants en ligne (adresses IPv6)',
    conversation_content_cross_tenant: "contenu de conversations d'utilisateurs finaux d'un autre client (requêtes marquées par un canari)",
    conversation_content_cross_session: "contenu de conversation d'un autre utilisateur du même client (requêtes marquées par un canari)",
    conversation_content_attributed: "requête ou réponse d'une autre session, reproduite mot pour mot sans marqueur canari",
    conversation_content_attributed_no_registry: "requête ou réponse d'une autre session, reproduite mot pour mot (avec ou sans marqueur canari, on ne sait pas : aucun registre de canaris)",
    free_text: "texte libre des requêtes et réponses (contenu non classé : peut comprendre toute catégorie, y compris des données de l'art. 9)",
  },
}

/** `canaries` false: the case holds no canary registry, so text "without a canary marker" is not known to be so. */
export function categoryLabel(kind: string, fallback: string, lang: Language, canaries = true): string {
  if (!canaries && kind === 'conversation_content_attributed') return CATEGORY_LABELS[lang].conversation_content_attributed_no_registry!
  return CATEGORY_LABELS[lang][kind] ?? fallback
}
