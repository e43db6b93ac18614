import {UnconventionalSet} from '../extract/extract.js'
import {nativeAddon, nativeAddonError, resetNativeAddon} from '../util/native-addon.js'

export {ADDON_PATH} from '../util/native-addon.js'

// The native extractor of the quick verdict's pass (native/, Rust through napi-rs; loaded by
// util/native-addon.ts). It claims only the lines whose answer it is certain of (a blank line,
// or a record without a note, with its marker facts where its response holds a marker and
// both its texts are ASCII) and leaves every other line to the TypeScript extractor, which
// stays the reference (test/ingest/native-quick.test.ts proves each claim equal to its
// answer). Without the addon, or with CROSSTALK_NATIVE=0, the pass reads every line in
// TypeScript: same answers, slower.

/** Per line of a unit: left to TypeScript, blank, or a record (its columns next in line). */
export const NATIVE_LEFT = 0
export const NATIVE_BLANK = 1
export const NATIVE_RECORD = 2

export interface NativeQuickLines {
  kinds: Uint8Array
  pairs: Uint32Array
  flags: Uint8Array
  ts: Float64Array
  /** The records whose response holds a marker, where both texts are ASCII (absent from an addon built before it was added). */
  marked?: NativeMarked[]
}

/** A marked record as the native extractor reads it (quick-unit.ts turns it into a QuickMarked). */
export interface NativeMarked {
  /** Its index among the unit's records. */
  at: number
  requestId: string
  tenantId: string
  sessionId: string
  tokens: string[]
  tokenPositions: number[]
  /** Indexes into the extractor's unconventional markers. */
  hits: number[]
  hitPositions: number[]
  tokenEcho: number[]
  tokenWhole: number[]
  hitEcho: boolean[]
}

export interface NativeQuickExtractor {
  lines(bytes: Uint8Array, source: string, maxLineBytes: number): NativeQuickLines
}

interface Addon {
  QuickExtractor: new (unconventional: string[]) => NativeQuickExtractor
  /** Absent from an addon built before it was added. */
  releaseFreedMemory?: () => boolean
  /** Absent from an addon built before it was added. */
  registryIndex?: (bytes: Uint8Array) => {
    rows: string; rowStarts?: Uint32Array; keys?: string; order: Uint32Array; conflict?: boolean; unconventional?: string; unconventionalAt?: Uint32Array; wide?: boolean
  } | null
}

/** Per marker set, its extractor, or null where one could not be built (that set's units are read in TypeScript). */
let extractors = new WeakMap<UnconventionalSet, NativeQuickExtractor | null>()

function load(): Addon | null {
  return nativeAddon() as Addon | null
}

/** The pass's native extractor for a registry's unconventional markers; null where there is none. */
export function nativeQuickExtractor(unconventional: UnconventionalSet | undefined): NativeQuickExtractor | null {
  const a = load()
  if (!a) return null
  const key = unconventional ?? NO_MARKERS
  let x = extractors.get(key)
  if (x === undefined) {
    try {
      x = new a.QuickExtractor([...key.markers])
    } catch {
      // An extractor that cannot be built (a bug) costs speed, never an answer: TypeScript reads these units.
      x = null
    }
    extractors.set(key, x)
  }
  return x
}

const NO_MARKERS = new UnconventionalSet([])

/**
 * A canary registry's rows read natively, each row's marker, tenant_id and session_id in file
 * order (three entries a row), where the TypeScript reader (readRegistry) would read exactly
 * these and refuse none (a CSV without quoted fields, every row's ids present, issued_at absent
 * or a time with a zone; native/src/registry.rs); null for any other file or without the addon.
 */
export function nativeRegistryRows(bytes: Uint8Array): string[] | null {
  return nativeRegistryIndex(bytes)?.rows ?? null
}

/** A canary registry read natively (nativeRegistryIndex). */
export interface NativeRegistryIndex {
  /** The rows as nativeRegistryRows gives them (split from one string when first asked for). */
  readonly rows: string[]
  /** A row's marker, tenant_id and session_id, cut from that string. */
  row(r: number): [marker: string, tenant: string, session: string]
  /** Every distinct key (markerKey), in code-point order. */
  keys: string[]
  /** Per key of `keys`, the first row that has it. */
  order: Uint32Array
  /** A key given to two owners (another tenant_id or session_id, as given): the reader refuses the file. */
  conflict: boolean
  /** The markers of the keys that are not conventional, as each key's first row spells them, in the order of those rows. */
  unconventional: string[]
  /** Where each of those markers' keys is in `keys`. */
  unconventionalAt: Uint32Array
  /** A key holds a character from U+E000 up (JavaScript's < is not code-point order there). */
  wide: boolean
}

/**
 * A canary registry's rows as nativeRegistryRows reads them, with its keys in order, the markers
 * outside the convention, and whether any key has two owners. Null where nativeRegistryRows is,
 * and from an addon built before the keys were given.
 */
export function nativeRegistryIndex(bytes: Uint8Array): NativeRegistryIndex | null {
  const index = load()?.registryIndex?.(bytes)
  if (!index || typeof index.rows !== 'string' || typeof index.keys !== 'string' || !(index.rowStarts instanceof Uint32Array) || !(index.unconventionalAt instanceof Uint32Array)) return null
  if (typeof index.conflict !== 'boolean' || typeof index.unconventional !== 'string' || typeof index.wide !== 'boolean') return null
  const {rows: text, rowStarts} = index
  let rows: string[] | undefined
  return {
    get rows() {
      return (rows ??= text === '' ? [] : text.split('\n'))
    },
    row(r) {
      const start = rowStarts[r]!
      const a = text.indexOf('\n', start)
      const b = text.indexOf('\n', a + 1)
      const c = text.indexOf('\n', b + 1)
      return [text.slice(start, a), text.slice(a + 1, b), text.slice(b + 1, c < 0 ? text.length : c)]
    },
    keys: index.keys === '' ? [] : index.keys.split('\n'),
    order: index.order, conflict: index.conflict,
    unconventional: index.unconventional === '' ? [] : index.unconventional.split('\n'),
    unconventionalAt: index.unconventionalAt, wide: index.wide,
  }
}

/** Whether the native extractor is in use, and if not, why (the bench's machine line). */
export function nativeQuickStatus(): {native: boolean; reason: string | null} {
  const a = load()
  return {native: a !== null, reason: a ? null : nativeAddonError()}
}

/**
 * Lets go of the pass's extractors (ingest does not use them): they hold the automaton of the
 * registry's unconventional markers, 8 MB for the 53,950 of a 5M-record incident (measured),
 * one per process (the addon shares it between the parse workers while any holds it). Freed
 * once every worker's extractor is collected; a later pass builds it again.
 */
export function releaseNativeQuick(): void {
  extractors = new WeakMap()
}

/** For tests: forget the loaded addon so that CROSSTALK_NATIVE is read again. */
export function resetNativeQuick(): void {
  resetNativeAddon()
}

/**
 * Returns the C heap's freed pages to the system where the addon can (glibc): called between
 * the phases of a long command, after a full GC, so that memory SQLite and zlib freed in
 * pieces is not counted twice when the next phase builds its own. Without the addon, nothing.
 */
export function releaseFreedMemory(): boolean {
  return load()?.releaseFreedMemory?.() ?? false
}
