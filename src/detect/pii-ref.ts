import {createHmac} from 'node:crypto'
import type {CaseDb} from '../store/open-case.js'
import {piiRefKey} from '../store/settings.js'

// What `pii` prints for a value by default. The stored hash is SHA-256 of "kind:value",
// unsalted so that every file matches the same value; but a phone number or an IPv4 address
// is one of at most about 10^10 candidates, so that hash (even a 12-digit prefix of it)
// gives the value back to anyone who enumerates them, and printing it would print the
// leaked value. The reference is an HMAC of the stored hash under a random key kept in the
// case: the same value has the same reference in every output of this case, and nobody
// without the case database can recompute or enumerate it.

/** The case's reference key: made by scan; a listing never makes it (it is not audited). */
export function referenceKey(db: CaseDb, options: {create: boolean}): Buffer | null {
  return piiRefKey(db, options)
}

/** 16 hex digits (64 bits) of HMAC-SHA256(key, stored value hash). */
export function piiRef(key: Buffer, valueSha256: string): string {
  return createHmac('sha256', key).update(valueSha256).digest('hex').slice(0, 16)
}
