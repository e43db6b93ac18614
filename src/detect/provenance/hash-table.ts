// Compact integer collections for provenance's index passes: a hash table of (h1, h2)
// fingerprint pairs with dense ids, and a growable uint32 list. Typed arrays throughout, so
// a pass over millions of fingerprints allocates a few arrays instead of millions of objects.

/**
 * Open addressing over (h1, h2) pairs: only the hashes of response fingerprints. A source
 * can only matter through a hash some response also has, so prompt fingerprints that are
 * not in this table are never indexed: the index grows with the number of responses, not
 * with the size of the prompts.
 */
export class HashTable {
  mask: number
  /** Slot -> dense id + 1 (0 = empty); the keys live densely by id. */
  slots: Int32Array
  k1: Uint32Array
  k2: Uint32Array
  size = 0

  constructor(expected: number) {
    let cap = 1024
    while (cap < expected * 1.5) cap *= 2
    this.mask = cap - 1
    this.slots = new Int32Array(cap)
    this.k1 = new Uint32Array(Math.max(16, expected))
    this.k2 = new Uint32Array(Math.max(16, expected))
  }

  /** Dense id of (h1, h2), inserting it when new (the table grows as needed; ids never change). */
  add(h1: number, h2: number): number {
    let p = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask
    for (;;) {
      const v = this.slots[p]!
      if (v === 0) {
        if (this.size === this.k1.length) this.growKeys()
        const id = this.size++
        this.k1[id] = h1
        this.k2[id] = h2
        this.slots[p] = id + 1
        if (this.size * 1.5 > this.slots.length) this.rehash()
        return id
      }
      if (this.k1[v - 1] === h1 && this.k2[v - 1] === h2) return v - 1
      p = (p + 1) & this.mask
    }
  }

  /** Empties the table, keeping its memory (the next pass reuses it). */
  clear(): void {
    this.slots.fill(0)
    this.size = 0
  }

  /** Dense id of (h1, h2), or -1. */
  get(h1: number, h2: number): number {
    let p = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask
    for (;;) {
      const v = this.slots[p]!
      if (v === 0) return -1
      if (this.k1[v - 1] === h1 && this.k2[v - 1] === h2) return v - 1
      p = (p + 1) & this.mask
    }
  }

  private growKeys(): void {
    const n = Math.ceil(this.k1.length * 1.5)
    const k1 = new Uint32Array(n)
    const k2 = new Uint32Array(n)
    k1.set(this.k1)
    k2.set(this.k2)
    this.k1 = k1
    this.k2 = k2
  }

  private rehash(): void {
    const cap = this.slots.length * 2
    this.mask = cap - 1
    this.slots = new Int32Array(cap)
    for (let id = 0; id < this.size; id++) {
      let p = (this.k1[id]! ^ Math.imul(this.k2[id]!, 0x9e3779b1)) & this.mask
      while (this.slots[p] !== 0) p = (p + 1) & this.mask
      this.slots[p] = id + 1
    }
  }
}

export class U32List {
  data: Uint32Array
  length = 0
  constructor(cap = 1024) {
    this.data = new Uint32Array(Math.max(16, cap))
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(Math.ceil(this.data.length * 1.5))
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = v
  }
  /** Two values (a pair) at once. */
  push2(a: number, b: number): void {
    if (this.length + 2 > this.data.length) {
      const next = new Uint32Array(Math.ceil(this.data.length * 1.5) + 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = a
    this.data[this.length++] = b
  }
}
