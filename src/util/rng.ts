import {randomBytes} from 'node:crypto'

/** A source of uniform numbers in [0, 1). Passed in, never read from a global, so runs can be replayed. */
export type Rng = () => number

/** Cryptographic randomness: canaries must not be guessable by the system under test. */
export function cryptoRng(): Rng {
  return () => randomBytes(4).readUInt32BE(0) / 0x1_0000_0000
}

/** Deterministic generator (mulberry32) for tests. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000
  }
}

export function randomHex(rng: Rng, digits: number): string {
  let out = ''
  for (let i = 0; i < digits; i++) out += Math.floor(rng() * 16).toString(16)
  return out
}
