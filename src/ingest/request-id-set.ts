import type {CaseDb} from '../store/open-case.js'
import {fmix32, SpillingMultimap} from './spill-multimap.js'
import {countAllRecords, iterateRequestIds, recordIdentity} from '../store/records.js'

// Which (source, request_id) pairs the case already holds, for duplicate detection during
// bulk ingest. SQLite's unique index would answer too, but request ids are random (UUIDs),
// so every insert lands on a random page of that index and every write transaction
// rewrites most of its pages to the WAL: at a million records, tens of GB written. Here a
// compact hash table (a 32-bit hash and the record id per entry, spilled to sorted runs on
// disk past a cap: spill-multimap.ts) answers instead; a hash match is confirmed against the
// record itself, so collisions cost a lookup, never a wrong answer. The unique index is
// dropped for the load and rebuilt once, by sorting, at the end (ensureQueryIndexes), where
// SQLite checks the result.

function hashKey(source: string, requestId: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < source.length; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ 0xff, 0x01000193)
  for (let i = 0; i < requestId.length; i++) h = Math.imul(h ^ requestId.charCodeAt(i), 0x01000193)
  // Final avalanche: FNV's low bits alone index the table poorly.
  return fmix32(h)
}

export class RequestIdSet {
  /** hashKey to record id; a few hashes may share several ids. */
  private readonly map: SpillingMultimap
  private readonly fetch: (id: number) => [string, string, number] | undefined

  constructor(db: CaseDb, options: {memoryEntries?: number} = {}) {
    this.fetch = recordIdentity(db)
    this.map = new SpillingMultimap({...options, sizeHint: countAllRecords(db)})
    for (const [id, source, requestId] of iterateRequestIds(db)) this.map.add(hashKey(source, requestId), id)
  }

  /**
   * The id and raw CRC of the record already stored under (source, requestId), if any.
   * `pending`: records added but not yet written (their rows are read from there).
   */
  find(source: string, requestId: string, pending?: (id: number) => [string, string, number] | undefined): {id: number; crc: number} | undefined {
    let found: {id: number; crc: number} | undefined
    this.map.some(hashKey(source, requestId), (id) => {
      // The record may be gone (a partial ingest of a crashed run is dropped before it is
      // redone) or its id reused: only the stored row itself decides.
      const row = pending?.(id) ?? this.fetch(id)
      if (row === undefined || row[0] !== source || row[1] !== requestId) return false
      found = {id, crc: row[2]}
      return true
    })
    return found
  }

  add(source: string, requestId: string, id: number): void {
    this.map.add(hashKey(source, requestId), id)
  }

  /** Removes its scratch file (if it wrote one). */
  close(): void {
    this.map.close()
  }
}
