import {randomHex, type Rng} from '../util/rng.js'

// Contract: a marker-shaped token is `CANARY-` + 8 or more hex digits, hex case-insensitive.
const MARKER = /CANARY-[0-9a-f]{8,}/gi

export function freshCanary(rng: Rng): string {
  return `CANARY-${randomHex(rng, 20)}`
}

export function findMarkers(text: string): string[] {
  return [...new Set((text.match(MARKER) ?? []).map((marker) => `CANARY-${marker.slice(7).toLowerCase()}`))]
}

/** Markers in a response that are not the requester's own: any of them is a leak. */
export function foreignMarkers(text: string, own: readonly string[]): string[] {
  const mine = new Set(own.map((marker) => marker.toLowerCase()))
  return findMarkers(text).filter((marker) => !mine.has(marker.toLowerCase()))
}
