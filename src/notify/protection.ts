import type {Category} from './facts.js'

// GDPR Art. 34(3)(a): where the data disclosed was unintelligible to whoever received it (encryption
// or pseudonymisation still effective), the risk to individuals is reduced and the communication to
// them is not required. Whether it was is a recorded fact (incident set --data-unintelligible); the
// scan reads the text the recipients received, so personal data it found there was in clear text.
// The drafts follow the record, and where the scan contradicts it they say so as an open item: never
// "protection intact" beside "financial data was disclosed" without a word.

/** The reference of the open item that names the contradiction; form field 57 finds it by it. */
export const PROTECTION_CONTRADICTED = 'Art. 33(3)(c), 34(3)(a); EDPB template 57, 79-85'

/** Personal-data kinds the search finds by value in an answer (not the conversation-content categories). */
const CLEAR_KINDS = new Set(['email', 'phone', 'iban', 'card', 'ipv4', 'ipv6'])

export type Protection =
  /** recorded as intact, and the scan found no personal data in clear text: the consequences follow the record */
  | {state: 'intact'}
  /** recorded as intact, but the personal-data search found these kinds in clear text in the leaked answers */
  | {state: 'contradicted'; kinds: string[]}
  /** not recorded as intact (or not recorded): the consequences are those of the data found */
  | {state: 'not-intact'}

export function protectionState(unintelligible: string | null | undefined, categories: readonly Category[] | undefined): Protection {
  if (unintelligible !== 'protection-intact') return {state: 'not-intact'}
  const kinds = [...new Set((categories ?? []).filter((c) => CLEAR_KINDS.has(c.kind) && c.count > 0).map((c) => c.kind))]
  return kinds.length > 0 ? {state: 'contradicted', kinds} : {state: 'intact'}
}
