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

/** murmur3's 32-bit finaliser: spreads every input bit over the low bits a table indexes by. */
export function fmix32(x: number): number {
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  return (x ^ (x >>> 16)) >>> 0
}

/**
 * (source, request_id) pairs seen, as their two hashes (pairHash). Two pairs that collide in all
 * 64 bits (about 1 in 10^12 at a million records) would read as a duplicate; the caller checks
 * the quick verdict against the scan's and fails loudly on any difference, so a collision can
 * delay an answer, never change one.
 */
export class PairSet {
  private a = new Uint32Array(1 << 16)
  private b = new Uint32Array(1 << 16)
  private used = new Uint8Array(1 << 16)
  private count = 0

  /** Adds a pair given as its hashes (pairHash); false when it was seen before. */
  addHashed(h1: number, h2: number): boolean {
    let mask = this.a.length - 1
    for (let p = h1 & mask; this.used[p] === 1; p = (p + 1) & mask) if (this.a[p] === h1 && this.b[p] === h2) return false
    if ((this.count + 1) * 2 > this.a.length) this.grow()
    mask = this.a.length - 1
    let p = h1 & mask
    while (this.used[p] === 1) p = (p + 1) & mask
    this.a[p] = h1
    this.b[p] = h2
    this.used[p] = 1
    this.count++
    return true
  }

  private grow(): void {
    const {a, b, used} = this
    this.a = new Uint32Array(a.length * 2)
    this.b = new Uint32Array(a.length * 2)
    this.used = new Uint8Array(a.length * 2)
    const mask = this.a.length - 1
    for (let i = 0; i < a.length; i++) {
      if (used[i] !== 1) continue
      let p = a[i]! & mask
      while (this.used[p] === 1) p = (p + 1) & mask
      this.a[p] = a[i]!
      this.b[p] = b[i]!
      this.used[p] = 1
    }
  }
}
