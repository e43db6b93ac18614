import type {CaseDb} from '../store/open-case.js'
import {fmix32} from './pair-set.js'
import {countAllRecords, iterateRequestIds, recordIdentity} from '../store/records.js'

// Which (source, request_id) pairs the case already holds, for duplicate detection during
// bulk ingest. SQLite's unique index would answer too, but request ids are random (UUIDs),
// so every insert lands on a random page of that index and every write transaction
// rewrites most of its pages to the WAL: at a million records, tens of GB written. Here a
// compact hash table (a 32-bit hash and the record id per slot) answers instead; a hash
// match is confirmed against the record itself, so collisions cost a lookup, never a
// wrong answer. The unique index is dropped for the load and rebuilt once, by sorting, at
// the end (ensureQueryIndexes), where SQLite checks the result.

function hashKey(source: string, requestId: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < source.length; i++) h = Math.imul(h ^ source.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ 0xff, 0x01000193)
  for (let i = 0; i < requestId.length; i++) h = Math.imul(h ^ requestId.charCodeAt(i), 0x01000193)
  // Final avalanche: FNV's low bits alone index the table poorly.
  return fmix32(h)
}

export class RequestIdSet {
  private hashes: Uint32Array
  /** Record id per slot; 0 = empty (record ids start at 1). */
  private ids: Uint32Array
  private mask: number
  private count = 0
  private readonly fetch: (id: number) => [string, string, number] | undefined

  constructor(db: CaseDb) {
    this.fetch = recordIdentity(db)
    const n = countAllRecords(db)
    let cap = 1024
    while (cap < n * 2) cap *= 2
    this.hashes = new Uint32Array(cap)
    this.ids = new Uint32Array(cap)
    this.mask = cap - 1
    for (const [id, source, requestId] of iterateRequestIds(db)) this.put(hashKey(source, requestId), id)
  }

  /** The id and raw CRC of the record already stored under (source, requestId), if any. */
  find(source: string, requestId: string): {id: number; crc: number} | undefined {
    const h = hashKey(source, requestId)
    for (let p = h & this.mask; this.ids[p] !== 0; p = (p + 1) & this.mask) {
      if (this.hashes[p] !== h) continue
      // The record may be gone (a partial ingest of a crashed run is dropped before it is
      // redone) or its id reused: only the stored row itself decides.
      const row = this.fetch(this.ids[p]!)
      if (row !== undefined && row[0] === source && row[1] === requestId) return {id: this.ids[p]!, crc: row[2]}
    }
    return undefined
  }

  add(source: string, requestId: string, id: number): void {
    this.put(hashKey(source, requestId), id)
  }

  private put(h: number, id: number): void {
    if ((this.count + 1) * 2 > this.ids.length) this.grow()
    let p = h & this.mask
    while (this.ids[p] !== 0) p = (p + 1) & this.mask
    this.hashes[p] = h
    this.ids[p] = id
    this.count++
  }

  private grow(): void {
    const hashes = this.hashes
    const ids = this.ids
    this.hashes = new Uint32Array(hashes.length * 2)
    this.ids = new Uint32Array(ids.length * 2)
    this.mask = this.hashes.length - 1
    this.count = 0
    for (let i = 0; i < ids.length; i++) if (ids[i] !== 0) this.put(hashes[i]!, ids[i]!)
  }
}
