import {markerKey, markerTokens, memoryRegistry, MIN_TOKEN_HEX, resolveCutShort, type RegisteredMarker} from '../extract/markers.js'
import {randomHex, type Rng} from '../util/rng.js'

export function freshCanary(rng: Rng): string {
  return `CANARY-${randomHex(rng, 20)}`
}

// Contract: a marker-shaped token is `CANARY-` + 8 or more hex digits, hex case-insensitive.
// `{8}` then `*`: V8 runs `{8,}` by recursion, which overflows the stack on a run of megabytes.
const MARKER = /CANARY-[0-9a-f]{8}[0-9a-f]*/gi

export function findMarkers(text: string): string[] {
  // As written (any letter case), and the look-alikes a scan folds (a U+2011 hyphen, invisible characters, full-width forms).
  const found = [...(text.match(MARKER) ?? []), ...markerTokens(text).map((t) => t.token)]
  return [...new Set(found.map((marker) => `CANARY-${marker.slice(7).toLowerCase()}`))]
}

/** A marker in an answer that is not the requester's own, and whose it is as far as the run knows. */
export interface ForeignMarker {
  /** The run's marker it is (found whole, cut short, or run into more hex digits); otherwise the token as found. */
  marker: string
  /** Whose it may be, among the owners the run gave markers to: none (a marker the run gave no one), one, or several (ambiguous). */
  owners: string[]
  /**
   * Cut short to digits that markers of more than one owner begin with (the requester's own among
   * them, maybe): whose it is cannot be told. Never a clean answer, never the requester's own.
   */
  ambiguous: boolean
}

/** The owner of the requester's own markers in the registry a reading is made over (no owner's name can be this). */
const OWN = '\u0000own'

/**
 * Every marker in a response that is not the requester's own, read as the scan reads a log's
 * (extract/markers.ts resolveCutShort): a token cut short by max_tokens, or run into more hex
 * digits, is the marker it is of, where one. Of the requester's own marker that is an echo, not a
 * leak; of a marker the run gave another tenant (`owners`: marker → owner), that marker. A cut
 * that markers of several owners share is ambiguous, and still foreign.
 */
export function readForeign(text: string, own: readonly string[], owners: ReadonlyMap<string, string> = new Map()): ForeignMarker[] {
  const tokens = findMarkers(text)
  if (tokens.length === 0) return []
  const byKey = new Map<string, RegisteredMarker>()
  const add = (marker: string, owner: string): void => {
    const key = markerKey(marker)
    byKey.set(key, {key, marker, tenant: owner, session: key})
  }
  for (const [marker, owner] of owners) add(marker, owner)
  for (const marker of own) add(marker, OWN)
  const registry = memoryRegistry(byKey)
  const out = new Map<string, ForeignMarker>()
  for (const token of tokens) {
    const {registered, candidates} = resolveCutShort(registry, token, MIN_TOKEN_HEX)
    if (registered !== null) {
      if (registered.tenant !== OWN) out.set(registered.key, {marker: registered.key, owners: [registered.tenant], ambiguous: false})
      continue
    }
    const whose = [...new Set(candidates.map((m) => m.tenant))]
    // A cut of the requester's own markers alone is an echo of its own prompt.
    if (whose.length === 1 && whose[0] === OWN) continue
    out.set(token, {marker: token, owners: whose.filter((o) => o !== OWN).sort(), ambiguous: whose.length > 1})
  }
  return [...out.values()]
}

/** Markers in a response that are not the requester's own (readForeign): any of them is a leak. */
export function foreignMarkers(text: string, own: readonly string[], owners?: ReadonlyMap<string, string>): string[] {
  return readForeign(text, own, owners).map((m) => m.marker)
}
