// A small, fast, seeded PRNG (sfc32, seeded through splitmix32). The generator must give the
// same bytes for the same seed on every machine, so Math.random is never used.

const BYTE_HEX = Array.from({length: 256}, (_, b) => b.toString(16).padStart(2, '0'))

export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    let s = seed >>> 0
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    for (let i = 0; i < 12; i++) this.u32()
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T
  }

  /** Index chosen with the given (non-negative) weights. */
  weighted(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    let r = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!
      if (r < 0) return i
    }
    return weights.length - 1
  }

  hex(digits: number): string {
    let out = ''
    while (out.length < digits) {
      const r = this.u32()
      out += BYTE_HEX[r >>> 24]! + BYTE_HEX[(r >>> 16) & 0xff]! + BYTE_HEX[(r >>> 8) & 0xff]! + BYTE_HEX[r & 0xff]!
    }
    return out.length === digits ? out : out.slice(0, digits)
  }

  digits(n: number): string {
    let out = ''
    for (let i = 0; i < n; i++) out += String(this.int(10))
    return out
  }

  /** A derived, independent stream (so adding draws in one part does not shift another). */
  fork(salt: number): Rng {
    return new Rng((this.u32() ^ Math.imul(salt, 0x27d4eb2d)) >>> 0)
  }
}
