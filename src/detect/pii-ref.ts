import {createHmac, randomBytes} from 'node:crypto'
import type {CaseDb} from '../store/open-case.js'

// What `pii` prints for a value by default. The stored hash is SHA-256 of "kind:value",
// unsalted so that every file and every earlier case version matches the same value; but
// a phone number or an IPv4 address is one of at most about 10^10 candidates, so that hash
// (even a 12-digit prefix of it) gives the value back to anyone who enumerates them, and
// printing it would print the leaked value. The reference is an HMAC of the stored hash
// under a random key kept in the case: the same value has the same reference in every
// output of this case, and nobody without the case database can recompute or enumerate it.

const KEY = 'pii_ref_key'

/**
 * The case's reference key. Scan creates it (computePiiFindings); a case scanned by an
 * earlier version gets it on first use. Two processes creating it at once keep the first
 * one stored. A case that cannot be written gets a key for this run only.
 */
export function piiRefKey(db: CaseDb): Buffer {
  const read = (): Buffer | null => {
    const row = db.prepare('SELECT value FROM scan_state WHERE key = ?').get(KEY) as {value: string} | undefined
    return row && /^[0-9a-f]{64}$/.test(row.value) ? Buffer.from(row.value, 'hex') : null
  }
  const stored = read()
  if (stored) return stored
  const key = randomBytes(32)
  if (db.readonly) return key
  try {
    // (A malformed value is replaced; a valid one written meanwhile by another process is kept.)
    db.prepare(
      `INSERT INTO scan_state (key, value) VALUES (?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE length(scan_state.value) <> 64 OR scan_state.value GLOB '*[^0-9a-f]*'`,
    ).run(KEY, key.toString('hex'))
  } catch {
    // A case file the OS will not let us write (evidence copy mounted read-only): this run's key.
    return key
  }
  return read() ?? key
}

/** 16 hex digits (64 bits) of HMAC-SHA256(key, stored value hash). */
export function piiRef(key: Buffer, valueSha256: string): string {
  return createHmac('sha256', key).update(valueSha256).digest('hex').slice(0, 16)
}
