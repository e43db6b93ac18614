import {createHash} from 'node:crypto'
import {AhoCorasick} from './aho-corasick.js'

// Canary markers in response text. Cost per response is one regex pass (plus one
// automaton pass when the registry holds markers that do not follow the CANARY-<hex>
// convention) and a hash lookup per token found: it does not grow with the registry.

export const SIGHTING_CLASSES = ['own', 'echo', 'cross_session', 'cross_tenant', 'orphan'] as const
export type SightingClass = (typeof SIGHTING_CLASSES)[number]
export const CONTAMINATION_CLASSES: readonly SightingClass[] = ['cross_session', 'cross_tenant']

export interface RegisteredMarker {
  /** canaries.marker_key: `CANARY-` + lower-case hex for conventional markers. */
  key: string
  /** The marker as registered. */
  marker: string
  tenant: string
  session: string
}

export interface MarkerRegistry {
  byKey: Map<string, RegisteredMarker>
  /** Conventional keys, sorted: the prefix index for partial markers. */
  sortedKeys: string[]
  /** Distinct hex lengths of conventional markers, longest first. */
  hexLengths: number[]
  /** Markers outside the convention, matched case-sensitively by the automaton. */
  unconventional: RegisteredMarker[]
  automaton: AhoCorasick | null
  /** SHA-256 over the registry: a changed digest means earlier classifications may be stale. */
  digest: string
  size: number
}

export interface FoundMarker {
  /** Registered marker this is a sighting of; null for an orphan. */
  registered: RegisteredMarker | null
  /** The text as found in the response (first occurrence). */
  token: string
  /** The hex digits found, lower-case (null for unconventional markers). */
  hex: string | null
  partial: boolean
  position: number
}

const PREFIX = 'CANARY-'
const CONVENTIONAL_KEY = /^CANARY-[0-9a-f]{8,}$/
/** Greedy: the whole hex run after the prefix is one token. */
const MARKER_SHAPED = /CANARY-([0-9a-fA-F]{8,})/g
/** A shorter token is never attributed as a partial (contract: 16 or more hex digits). */
const MIN_PARTIAL_HEX = 16

export function markerKey(marker: string): string {
  const m = /^CANARY-([0-9a-fA-F]+)$/.exec(marker)
  return m ? PREFIX + m[1]!.toLowerCase() : marker
}

export function buildRegistry(rows: ReadonlyArray<{marker_key: string; marker: string; tenant_id: string; session_id: string}>): MarkerRegistry {
  const byKey = new Map<string, RegisteredMarker>()
  const sortedKeys: string[] = []
  const lengths = new Set<number>()
  const unconventional: RegisteredMarker[] = []
  const digest = createHash('sha256')
  for (const row of rows) {
    const entry: RegisteredMarker = {key: row.marker_key, marker: row.marker, tenant: row.tenant_id, session: row.session_id}
    byKey.set(entry.key, entry)
    digest.update(`${entry.key}\u0000${entry.tenant}\u0000${entry.session}\u0000${entry.marker}\n`)
    if (CONVENTIONAL_KEY.test(entry.key)) {
      sortedKeys.push(entry.key)
      lengths.add(entry.key.length - PREFIX.length)
    } else unconventional.push(entry)
  }
  // Code-unit order, the same as SQLite's BINARY collation; keys are ASCII.
  sortedKeys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return {
    byKey,
    sortedKeys,
    hexLengths: [...lengths].sort((a, b) => b - a),
    unconventional,
    automaton: unconventional.length > 0 ? new AhoCorasick(unconventional.map((u) => u.marker)) : null,
    digest: digest.digest('hex'),
    size: byKey.size,
  }
}

/** Index of the first sorted key >= probe. */
function lowerBound(sorted: readonly string[], probe: string): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < probe) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * Resolves a marker-shaped token (key form) against the registry:
 * - exactly registered: a full sighting;
 * - a registered marker followed by more hex (the marker ran into an adjoining hex word):
 *   a full sighting of the longest such marker;
 * - 16+ hex digits and a strict prefix of exactly one registered marker: partial;
 * - otherwise (unknown, too short, or a prefix of two or more markers): orphan.
 */
function resolveToken(registry: MarkerRegistry, key: string): {registered: RegisteredMarker | null; partial: boolean} {
  const exact = registry.byKey.get(key)
  if (exact) return {registered: exact, partial: false}
  const hexLen = key.length - PREFIX.length
  for (const len of registry.hexLengths) {
    if (len >= hexLen) continue
    const hit = registry.byKey.get(key.slice(0, PREFIX.length + len))
    if (hit) return {registered: hit, partial: false}
  }
  if (hexLen >= MIN_PARTIAL_HEX) {
    const i = lowerBound(registry.sortedKeys, key)
    const first = registry.sortedKeys[i]
    if (first !== undefined && first.startsWith(key)) {
      const second = registry.sortedKeys[i + 1]
      if (second === undefined || !second.startsWith(key)) return {registered: registry.byKey.get(first)!, partial: true}
    }
  }
  return {registered: null, partial: false}
}

/** Every distinct marker in a response: one per registered marker, one per orphan token (case-folded). */
export function findMarkers(text: string, registry: MarkerRegistry): FoundMarker[] {
  const found = new Map<string, FoundMarker>()
  if (text.includes(PREFIX)) {
    MARKER_SHAPED.lastIndex = 0
    for (let m = MARKER_SHAPED.exec(text); m !== null; m = MARKER_SHAPED.exec(text)) {
      const hex = m[1]!.toLowerCase()
      const key = PREFIX + hex
      const {registered, partial} = resolveToken(registry, key)
      const dedup = registered ? registered.key : `orphan:${key}`
      const prior = found.get(dedup)
      // A full occurrence outranks a partial one of the same marker.
      if (prior && (prior.partial === false || partial)) continue
      found.set(dedup, {registered, token: m[0], hex, partial, position: m.index})
    }
  }
  if (registry.automaton) {
    for (const hit of registry.automaton.findAll(text)) {
      const registered = registry.unconventional[hit.pattern]!
      if (found.has(registered.key)) continue
      found.set(registered.key, {registered, token: registered.marker, hex: null, partial: false, position: hit.start})
    }
  }
  return [...found.values()].sort((a, b) => a.position - b.position)
}

export interface RecipientContext {
  tenant: string
  session: string
  /** Lazily lower-cased prompt text of this request. */
  promptLower: () => string
}

export interface Classification {
  class: SightingClass
  sourceSession: string | null
  sourceTenant: string | null
}

/** The contract's classes, in order: own, echo, cross_session, cross_tenant; orphan when unregistered. */
export function classifySighting(found: FoundMarker, recipient: RecipientContext): Classification {
  const source = found.registered
  if (!source) return {class: 'orphan', sourceSession: null, sourceTenant: null}
  const base = {sourceSession: source.session, sourceTenant: source.tenant}
  if (source.tenant === recipient.tenant && source.session === recipient.session) return {class: 'own', ...base}
  // Echo: the user pasted the marker into this very request (hex compared case-insensitively).
  const needle = found.partial
    ? found.hex!
    : CONVENTIONAL_KEY.test(source.key)
      ? source.key.slice(PREFIX.length)
      : source.marker.toLowerCase()
  if (recipient.promptLower().includes(needle)) return {class: 'echo', ...base}
  return {class: source.tenant === recipient.tenant ? 'cross_session' : 'cross_tenant', ...base}
}
