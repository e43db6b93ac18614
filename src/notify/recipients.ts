// Whom a recorded notification went to. The recipient's text alone does not say: a customer's
// tenant id may be exactly "authority" or "data-subjects". Each notification carries its kind
// (notifications.recipient_kind); a row without one (built by hand) is read as recipients were
// before kinds were stored: the two reserved words, or a controller's tenant id.

import {quoted} from '../util/sanitize.js'

export type RecipientKind = 'authority' | 'data-subjects' | 'controller'

export const AUTHORITY = 'authority'
export const DATA_SUBJECTS = 'data-subjects'

export interface RecipientOf {
  recipient: string
  recipient_kind?: RecipientKind | null
}

export function recipientKind(n: RecipientOf): RecipientKind {
  if (n.recipient_kind) return n.recipient_kind
  return n.recipient === AUTHORITY ? 'authority' : n.recipient === DATA_SUBJECTS ? 'data-subjects' : 'controller'
}

export function toAuthority(n: RecipientOf): boolean {
  return recipientKind(n) === 'authority'
}

export function toDataSubjects(n: RecipientOf): boolean {
  return recipientKind(n) === 'data-subjects'
}

/** The controller (tenant id, exactly) a processor's notice went to; null: it went to the authority or the data subjects. */
export function noticeController(n: RecipientOf): string | null {
  return recipientKind(n) === 'controller' ? n.recipient : null
}

/** A controller's tenant id as a document names it: quoted where it reads as a reserved recipient, so "controller \"authority\"" is not read as the authority. */
export function quoteIfReserved(tenant: string): string {
  return tenant === AUTHORITY || tenant === DATA_SUBJECTS ? `"${tenant}"` : tenant
}

/**
 * A recorded notification's recipient as an error or warning names it: a controller's tenant id is
 * recorded text (from a log, or typed), quoted and cut to 80 characters, so that it cannot read as
 * the message's own words; the line it goes into has its controls escaped where it is printed.
 */
export function recipientInMessage(n: RecipientOf): string {
  const kind = recipientKind(n)
  return kind === 'authority' ? 'the authority' : kind === 'data-subjects' ? 'the data subjects' : `controller ${quoted(n.recipient.slice(0, 80))}`
}
