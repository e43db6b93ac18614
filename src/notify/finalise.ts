import {z} from 'zod'
import {InputError} from '../errors.js'
import {PHRASES, type Language} from './phrases.js'
import type {OpenItem} from './statements.js'

// One rule for every document a case drafts (the Article 33 notification and its authority forms,
// the Article 34 communication, the processor's notice to a controller, the register entry): a
// document marked final while it still has open items would tell its reader every required fact
// is there. So --final is refused while any open item remains, unless someone accepts them by name
// (--accept-open-items NAME); the acceptance is recorded in the case's audit log and the document
// says it was finalised with those items open. GDPR Art. 33(4): where the information cannot be
// provided at the same time, it may be provided in phases without undue further delay; a document
// finalised with open items is such a phase, and says further information will follow.

/** `finalised_with_open_items` of every document: who accepted finalising it with open items, when, and how many. */
export const finalisedWithOpenItemsSchema = z
  .object({
    accepted_by: z.string(),
    accepted_at: z.string(),
    /** the document's open items at finalisation (each is in its `open_items`) */
    open_items: z.number().int().positive(),
    /** the sentence the document gives at its head */
    text: z.string(),
  })
  .nullable()
export type FinalisedWithOpenItems = z.infer<typeof finalisedWithOpenItemsSchema>

export interface FinalOptions {
  final?: boolean
  /** who accepts finalising with open items (--accept-open-items NAME); absent: not accepted */
  acceptOpenItemsBy?: string
}

/**
 * Decides whether a document may be final: null where it is a draft or has no open item; the
 * acceptance where someone accepted its open items; refused (exit 1, E_OPEN_ITEMS, the items as
 * the error's details) otherwise. `at` is the document's time (its generated_at).
 */
export function finalisation(what: string, openItems: readonly OpenItem[], options: FinalOptions, language: Language, at: string): FinalisedWithOpenItems {
  if (!options.final || openItems.length === 0) return null
  const by = options.acceptOpenItemsBy
  if (by === undefined) throw openItemsRefusal(what, openItems)
  return {accepted_by: by, accepted_at: at, open_items: openItems.length, text: PHRASES[language].finalisedWithOpenItems(openItems.length, by, at)}
}

/** The one-line refusal: how many, the first few, and the two ways on. */
export function openItemsRefusal(what: string, openItems: readonly OpenItem[]): InputError {
  const n = openItems.length
  const first = openItems.slice(0, 3).map((o) => o.item)
  const more = n > first.length ? `; and ${n - first.length} more` : ''
  return new InputError(
    `${what} --final: ${n === 1 ? '1 open item remains' : `${n} open items remain`} (${first.join('; ')}${more}): a final document must not leave a required fact unknown. Record them (run the same command without --final: the draft lists each with the command that records it), or pass --accept-open-items NAME to finalise with them open (recorded in the case; the document then says further information will follow)`,
    'E_OPEN_ITEMS',
  ).withDetails({open_items: openItems})
}
