import {fmix32, SpillingMultimap} from './spill-multimap.js'

// The quick verdict's duplicate rule keeps the first (source, request_id) pair in the order
// files are read. The pass holds only hashes of the pairs (a few bytes a record at any size);
// they are computed where each record is decoded (a parse worker) and looked up here, on the
// thread that sees every file in order.

/**
 * Two independent 32-bit hashes of (source, id): FNV-1a and a multiply-xorshift, over the
 * UTF-16 units of both with a separator no unit equals, each finished by murmur3's fmix32.
 */
export function pairHash(source: string, id: string): [number, number] {
  let h = 0x811c9dc5
  let g = 0x9e3779b9
  for (let i = 0; i <= source.length + id.length; i++) {
    const c = i < source.length ? source.charCodeAt(i) : i === source.length ? 0x10000 : id.charCodeAt(i - source.length - 1)
    h = Math.imul(h ^ c, 0x01000193)
    g = Math.imul(g ^ c, 0x5bd1e995) ^ (g >>> 15)
  }
  return [fmix32(h), fmix32(g ^ id.length)]
}

/**
 * (source, request_id) pairs seen, as their two hashes (pairHash). Two pairs that collide in all
 * 64 bits (about 1 in 10^12 at a million records) would read as a duplicate; the caller checks
 * the quick verdict against the scan's and fails loudly on any difference, so a collision can
 * delay an answer, never change one. Held in a SpillingMultimap (the first hash to the second):
 * in memory up to its cap, in sorted runs on disk past it. close() removes its scratch file.
 */
export class PairSet {
  private readonly map: SpillingMultimap

  constructor(options?: ConstructorParameters<typeof SpillingMultimap>[0]) {
    this.map = new SpillingMultimap(options)
  }

  /** Adds a pair given as its hashes (pairHash); false when it was seen before. */
  addHashed(h1: number, h2: number): boolean {
    if (this.map.has(h1, h2)) return false
    this.map.add(h1, h2)
    return true
  }

  close(): void {
    this.map.close()
  }
}
