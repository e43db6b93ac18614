import {AhoCorasick, type AcMatch} from './aho-corasick.js'

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

export interface FoundMarker {
  /** Registered marker this is a sighting of; null for an orphan. */
  registered: RegisteredMarker | null
  /** The token as found in the response (first occurrence), folded (markerTokens: `CANARY-` and its hex in ASCII). */
  token: string
  /** The hex digits found, lower-case (null for unconventional markers). */
  hex: string | null
  partial: boolean
  position: number
  /**
   * Where `registered` is null because the token is cut short of registered markers of two or
   * more owners (sessions): those markers, in key order (ambiguousOwners). Absent otherwise.
   */
  candidates?: readonly RegisteredMarker[]
}

const PREFIX = 'CANARY-'
/** What every conventional marker starts with, written so (only its hex is case-insensitive). */
export const MARKER_PREFIX = PREFIX
/** The fewest hex digits of a marker-shaped token (contract: `CANARY-` + 8 or more hex digits). */
export const MIN_TOKEN_HEX = 8
/**
 * `CANARY-` and 8 or more lower-case hex digits. Written `{8}` then `*`: V8 runs a `{8,}` over a
 * run of megabytes by recursion, and overflows the stack (a 6 MB run did).
 */
const CONVENTIONAL_KEY = /^CANARY-[0-9a-f]{8}[0-9a-f]*$/
/** A shorter token is never attributed as a partial (contract: 16 or more hex digits). */
const MIN_PARTIAL_HEX = 16

/**
 * Lookups the scan needs, each independent of the registry's size in practice: a point
 * lookup, a two-row prefix range, and the (usually empty) list of unconventional markers.
 */
export interface MarkerRegistry {
  exact(key: string): RegisteredMarker | undefined
  /** Up to `limit` registered keys that start with `key` and are longer, in key order. */
  extending(key: string, limit: number): RegisteredMarker[]
  /** Markers outside the convention, matched case-sensitively by the automaton. */
  unconventional: readonly RegisteredMarker[]
  automaton: AhoCorasick | null
}

/** Conventional markers are matched with hex case-insensitive, so they are keyed in lower case. */
export const CONVENTIONAL_MARKER = /^CANARY-[0-9a-f]+$/i

/** The registry key of a marker: CANARY-<hex> in lower case; any other marker as registered. */
export function markerKey(marker: string): string {
  return CONVENTIONAL_MARKER.test(marker) ? `CANARY-${marker.slice(7).toLowerCase()}` : marker
}

export function isConventionalKey(key: string): boolean {
  return CONVENTIONAL_KEY.test(key)
}

/** The unconventional markers and their automaton, built on first use (thousands of markers make a few MB of trie). */
export function withAutomaton<T extends object>(registry: T, unconventional: RegisteredMarker[]): T & Pick<MarkerRegistry, 'unconventional' | 'automaton'> {
  let built: AhoCorasick | null | undefined
  return Object.defineProperties(registry, {
    unconventional: {value: unconventional, enumerable: true},
    automaton: {
      enumerable: true,
      get: () => (built ??= unconventional.length > 0 ? new AhoCorasick(unconventional.map((u) => u.marker)) : null),
    },
  }) as T & Pick<MarkerRegistry, 'unconventional' | 'automaton'>
}

export type CanaryRow = {marker_key: string; marker: string; tenant_id: string; session_id: string}
export const toMarker = (row: CanaryRow): RegisteredMarker => ({key: row.marker_key, marker: row.marker, tenant: row.tenant_id, session: row.session_id})

/** An in-memory registry (tests, small tools): of a key given twice, the later row wins. */
export function buildRegistry(rows: readonly CanaryRow[]): MarkerRegistry {
  const byKey = new Map<string, RegisteredMarker>()
  for (const row of rows) byKey.set(row.marker_key, toMarker(row))
  return memoryRegistry(byKey)
}

/**
 * A registry held in memory that answers as the case's (detect/registry.ts) answers over the
 * same markers: `extending` gives the keys SQLite's range search gives (BINARY collation
 * compares UTF-8 bytes, which is code-point order, and the search ends before key + U+FFFF,
 * so a key whose character after `key` is U+FFFF or above is not among them), in that order.
 * Its key order is sorted on the first range search.
 */
export function memoryRegistry(byKey: ReadonlyMap<string, RegisteredMarker>): MarkerRegistry {
  let sorted: string[] | undefined
  let before: Before = (a, b) => a < b
  const keys = (): string[] => {
    if (sorted) return sorted
    sorted = [...byKey.keys()]
    if (sorted.some(isWide)) {
      before = (a, b) => compareCodePoints(a, b) < 0
      sorted.sort(compareCodePoints)
    } else sorted.sort()
    return sorted
  }
  return withAutomaton({
    exact: (key: string) => byKey.get(key),
    extending: (key: string, limit: number) => {
      const all = keys()
      return extendingAt(all, key, limit, before).map((i) => byKey.get(all[i]!)!)
    },
  }, [...byKey.values()].filter((m) => !isConventionalKey(m.key)))
}

/**
 * A registry over keys given in code-point order (`wide`: some key holds a character from U+E000
 * up), whose markers are made when first asked for (`at(i)`: the marker of `sorted[i]`) and
 * kept; `unconventionalAt` says where the keys outside the convention are, in the order
 * unconventionalMarkers lists them. Answers as memoryRegistry answers over the same markers,
 * with no map of every marker: the native registry reader (ingest-canaries.ts) gives the keys
 * sorted, and making 37,000 markers cost the verdict's main thread 40-60 ms (measured).
 */
export function sortedRegistry(sorted: readonly string[], at: (i: number) => RegisteredMarker, wide: boolean, unconventionalAt: ArrayLike<number>): MarkerRegistry {
  const made = new Map<number, RegisteredMarker>()
  const marker = (i: number): RegisteredMarker => {
    let m = made.get(i)
    if (m === undefined) made.set(i, (m = at(i)))
    return m
  }
  const before: Before = wide ? (a, b) => compareCodePoints(a, b) < 0 : (a, b) => a < b
  // Point lookups by hash, the map built on the first (once the pass has its first marked
  // record): the 11,000 lookups of the 200k incident, most of them of tokens seen before, took
  // 30 ms as binary searches and 17 ms with the map's build (measured).
  let positions: Map<string, number> | undefined
  return withAutomaton({
    exact: (key: string) => {
      if (positions === undefined) {
        positions = new Map()
        for (let i = 0; i < sorted.length; i++) positions.set(sorted[i]!, i)
      }
      const i = positions.get(key)
      return i === undefined ? undefined : marker(i)
    },
    extending: (key: string, limit: number) => extendingAt(sorted, key, limit, before).map(marker),
  }, Array.from(unconventionalAt, marker))
}

type Before = (a: string, b: string) => boolean

/** JavaScript compares UTF-16 code units, which is code-point order unless a string holds a surrogate or a character from U+E000 up. */
const isWide = (k: string): boolean => /[\ud800-\uffff]/.test(k)

/** The first position in `sorted` whose key comes after `key`. */
function upperBound(sorted: readonly string[], key: string, before: Before): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(key, sorted[mid]!)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Where in `sorted` the first `limit` keys that extend `key` are (MarkerRegistry.extending). */
function extendingAt(sorted: readonly string[], key: string, limit: number, before: Before): number[] {
  const out: number[] = []
  for (let i = upperBound(sorted, key, before); i < sorted.length && out.length < limit && sorted[i]!.startsWith(key); i++) {
    if (sorted[i]!.codePointAt(key.length)! < 0xffff) out.push(i)
  }
  return out
}

/** Code-point order (UTF-8 byte order: SQLite's BINARY collation) of two strings. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate (half of a character from U+10000) sorts after every other UTF-16 unit.
    const rank = (u: number): number => (u >= 0xd800 && u <= 0xdfff ? u + 0x2000 : u >= 0xe000 ? u - 0x800 : u)
    return rank(x) - rank(y)
  }
  return a.length - b.length
}

/**
 * Resolves a marker-shaped token (key form) against the registry:
 * - exactly registered: a full sighting;
 * - 16+ hex digits and a strict prefix of registered markers that all belong to one session (one
 *   marker, the contract's rule, or several a session was issued): partial, a sighting of the
 *   first of them in key order (the source is certain whichever it is);
 * - a registered marker followed by more hex (the marker ran into an adjoining hex word):
 *   a full sighting of the longest such marker;
 * - 16+ hex digits and a strict prefix of markers of two or more sessions: no marker, with those
 *   markers as its `candidates` (classifySighting: contamination whose source is ambiguous,
 *   unless one of them is the recipient's own);
 * - otherwise (unknown, too short): orphan.
 * Where a registry holds a marker that is a prefix of another, a token between the two reads
 * both ways: the shorter run into hex, or the longer cut short. The contract's rule is taken
 * first (SIGHTING_RULES 3): the other reading would let a cut-short foreign marker pass as the
 * response's own. A token cut short of markers of several sessions is read as the shorter marker
 * run into hex where there is one.
 */
function resolveToken(registry: MarkerRegistry, key: string, minPartialHex = MIN_PARTIAL_HEX): {registered: RegisteredMarker | null; partial: boolean; candidates?: RegisteredMarker[]} {
  const exact = registry.exact(key)
  if (exact) return {registered: exact, partial: false}
  let longer: RegisteredMarker[] = []
  if (key.length - PREFIX.length >= minPartialHex) {
    longer = hexExtending(registry, key)
    if (longer.length >= 1 && ambiguousOwners(longer) === null) return {registered: longer[0]!, partial: true}
  }
  const prefix = longestRegisteredPrefix(registry, key)
  if (prefix) return {registered: prefix, partial: false}
  if (longer.length >= 2) return {registered: null, partial: true, candidates: longer}
  return {registered: null, partial: false}
}

/** Of markers a token is cut short of, their owners (tenant, session) where they are two or more, each once in first-seen order; null where one session owns them all. */
export function ambiguousOwners(markers: readonly RegisteredMarker[]): Array<{tenant: string; session: string}> | null {
  const owners = new Map<string, {tenant: string; session: string}>()
  for (const m of markers) owners.set(JSON.stringify([m.tenant, m.session]), {tenant: m.tenant, session: m.session})
  return owners.size >= 2 ? [...owners.values()] : null
}

/**
 * The sessions a sighting whose source is ambiguous may come from (classifyAmbiguous): the owners
 * of the registered markers its token is cut short of, sorted by tenant and session. The scan
 * stores the token, not them; they are read again from the registry the scan classified under.
 */
export function possibleSources(registry: MarkerRegistry, token: string): Array<{tenant: string; session: string}> {
  const owners = ambiguousOwners(hexExtending(registry, markerKey(token))) ?? []
  return owners.sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : a.session < b.session ? -1 : a.session > b.session ? 1 : 0))
}

/**
 * Every registered marker whose key extends `key` with more hex digits, in key order: a token is
 * cut short only of a marker of the convention. A marker outside it that starts with the token (as
 * `CANARY-<hex>-s42` starts with `CANARY-<hex>`) is found whole by the automaton, and the token
 * inside it is no sighting of its own (resolveTokens). Such keys can sort among the hex ones
 * (`-` before the digits, `_` and capitals between `9` and `a`), so the search widens past them.
 * A 16-hex-digit token is the head of one marker or a few (the markers of one session, as a rule):
 * all of them are read, for whether one session owns them all.
 */
function hexExtending(registry: MarkerRegistry, key: string, most = Number.POSITIVE_INFINITY): RegisteredMarker[] {
  for (let limit = 2; ; limit *= 8) {
    const longer = registry.extending(key, limit)
    const hex = longer.filter((m) => isConventionalKey(m.key))
    if (hex.length >= most || longer.length < limit) return hex.slice(0, most)
  }
}

/**
 * resolveToken for the markers a run made and gave out itself (probe, replay), cut short from
 * `minPartialHex` hex digits: the run knows each of its markers whole and made them random, so a
 * shorter cut than the contract's 16 digits still names one (a model's answer stops at max_tokens,
 * inside a marker, well before 16 of its digits). Where the token resolves to no marker but is a
 * prefix of two or more, `candidates` lists every one (whose each is, the caller tells: a cut that
 * several owners' markers share is no one's in particular, and never no marker).
 */
export function resolveCutShort(registry: MarkerRegistry, key: string, minPartialHex: number): {registered: RegisteredMarker | null; partial: boolean; candidates: RegisteredMarker[]} {
  const resolved = resolveToken(registry, key, minPartialHex)
  const cut = resolved.registered === null && key.length - PREFIX.length >= minPartialHex
  return {...resolved, candidates: cut ? hexExtending(registry, key, Number.POSITIVE_INFINITY) : []}
}

/** Markers fetched at once for the longest-prefix search; past this many, one lookup per length. */
const PREFIX_CANDIDATES = 64

/**
 * The longest registered key that is a proper prefix of `key` and has 8 hex digits or more.
 * Every such key extends the token's first 8 hex digits, and those are nearly always shared by
 * few markers or none: one range search finds them all (an unregistered token took one lookup
 * per length, 25 for a 32-digit token). Where more share them, a lookup per length, longest first.
 */
function longestRegisteredPrefix(registry: MarkerRegistry, key: string): RegisteredMarker | null {
  const shortest = PREFIX.length + 8
  if (key.length - 1 < shortest) return null
  const base = key.slice(0, shortest)
  const longer = registry.extending(base, PREFIX_CANDIDATES)
  if (longer.length < PREFIX_CANDIDATES) {
    let best: RegisteredMarker | null = null
    for (const m of longer) if (m.key.length < key.length && key.startsWith(m.key) && (best === null || m.key.length > best.key.length)) best = m
    return best ?? registry.exact(base) ?? null
  }
  for (let end = key.length - 1; end >= shortest; end--) {
    const hit = registry.exact(key.slice(0, end))
    if (hit) return hit
  }
  return null
}

/** A marker-shaped token as found in a response: `CANARY-` and its whole hex run (folded: markerTokens). */
export interface MarkerToken {
  token: string
  position: number
}

// How a marker may be written and still be the marker: what models and text tools do to it, and
// the client sees it as issued (or as plainly the marker). Folded so, in responses and in prompts
// alike, the same way here and in the native extractor (native/src/lib.rs: ASCII texts holding no
// escape, reference or percent-encoding at a marker):
// - a full-width form U+FF01..U+FF5E is its ASCII character (`ＣＡＮＡＲＹ－ａ１` is `CANARY-a1`),
//   as NFKC folds it; lower-case `canary` is no marker in either width (contract);
// - the hyphen may be a look-alike: U+2010 hyphen, U+2011 non-breaking hyphen (GPT-family models
//   write it for `-`), U+2012 figure dash, U+2013 en dash, U+2014 em dash, U+2212 minus sign,
//   U+FE63 small hyphen-minus, U+FF0D full-width hyphen-minus;
// - invisible characters may stand after `CANARY`, around the hyphen and between hex digits:
//   every code point Unicode lists as Default_Ignorable_Code_Point (DerivedCoreProperties.txt),
//   which a renderer draws as nothing: U+00AD soft hyphen, U+034F combining grapheme joiner,
//   U+061C Arabic letter mark, U+115F/U+1160 Hangul fillers, U+17B4/U+17B5, U+180B..U+180F
//   Mongolian selectors and vowel separator, U+200B..U+200F (zero width space, joiners, LRM,
//   RLM), U+202A..U+202E bidi embeddings and overrides, U+2060..U+206F (word joiner, invisible
//   operators, bidi isolates), U+3164 Hangul filler, U+FE00..U+FE0F variation selectors, U+FEFF,
//   U+FFA0, U+FFF0..U+FFF8, U+1BCA0..U+1BCA3 shorthand format controls, U+1D173..U+1D17A musical
//   format controls, U+E0000..U+E0FFF tags and variation selectors supplement. The client sees the
//   marker as issued: a leak is a leak whatever invisible code points a model or a tool put in it;
// - one line break (LF or CR LF), and the next line's indentation (spaces, tabs), may follow the
//   hyphen, where word-wrappers break a marker;
// - the hex run goes on over such a line break (a model wrapping a long token at a fixed width,
//   or in a code block) while it has fewer than 16 digits (MIN_PARTIAL_HEX) before the break. So
//   joining cannot invent a leak nor hide one: a run of 16 or more digits is a sighting on its own
//   (a marker, or one cut short: a partial), so it is never lengthened by the next line's hex
//   word, which would turn a partial sighting into an orphan; a shorter run is no sighting but of
//   a registered marker of 8 to 15 digits, which the joined run still resolves to (a marker run
//   on into more hex), and the joined run resolves to another marker only where the next line's
//   digits go on as that marker's do, 16 digits or more of it in order;
// - the hyphen, an invisible character and a hex digit may be written as a JSON `\uXXXX` escape
//   (an answer that is itself a JSON document written with ASCII escapes: `CANARY\u2011`) or an
//   HTML character reference (decimal or hex, `&#45;`, `&#x2011;`, or a name: NAMED_REFERENCES),
//   and the hyphen percent-encoded (`%2D`, and the look-alikes' UTF-8, `%E2%80%91`), read only
//   where they stand inside a marker (after `CANARY` and in its hex run), never decoded elsewhere;
//   `CANARY` itself is read as written.
// A found token is the folded marker, `CANARY-` and its hex digits in ASCII (their letter case
// kept), at the position of its `C`: it is looked up and classified as one written plainly.

/** The marker's word, each letter ASCII or full-width upper case. */
const WORD = 'CANARY'
/** Full-width forms of WORD's letters (U+FF23 U+FF21 U+FF2E U+FF32 U+FF39): a text holding none and no ASCII `CANARY` holds no marker. */
const WIDE_WORD_LETTER = /[\uff21\uff23\uff2e\uff32\uff39]/

/** A full-width form (U+FF01..U+FF5E) as its ASCII character; any other code unit as it is. */
const narrow = (c: number): number => (c >= 0xff01 && c <= 0xff5e ? c - 0xfee0 : c)

/** Whether a code point is Default_Ignorable_Code_Point (see above): folded out of a marker. */
export function isDefaultIgnorable(c: number): boolean {
  if (c < 0x00ad) return false
  if (c <= 0xffff) {
    return c === 0x00ad || c === 0x034f || c === 0x061c || c === 0x115f || c === 0x1160 || c === 0x17b4 || c === 0x17b5 || (c >= 0x180b && c <= 0x180f) ||
      (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c === 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) ||
      c === 0xfeff || c === 0xffa0 || (c >= 0xfff0 && c <= 0xfff8)
  }
  return (c >= 0x1bca0 && c <= 0x1bca3) || (c >= 0x1d173 && c <= 0x1d17a) || (c >= 0xe0000 && c <= 0xe0fff)
}

/**
 * Where the invisible character at `i` ends (as written, escaped or referenced: unitAt; one
 * outside the BMP is a surrogate pair, each half as written or a JSON escape); -1 where none is there.
 */
function invisibleEnd(text: string, i: number): number {
  const u = unitAt(text, i)
  if (u >= 0xd800 && u <= 0xdbff) {
    const end = unitEndAt(text, i)
    const lo = unitAt(text, end)
    return lo >= 0xdc00 && lo <= 0xdfff && isDefaultIgnorable(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00)) ? unitEndAt(text, end) : -1
  }
  return isDefaultIgnorable(u) ? unitEndAt(text, i) : -1
}

/** `-` or a look-alike of it (see above). */
const isDash = (c: number): boolean => c === 0x2d || c === 0xff0d || c === 0x2010 || c === 0x2011 || c === 0x2012 || c === 0x2013 || c === 0x2014 || c === 0x2212 || c === 0xfe63

/** HTML's named references to a hyphen look-alike or an invisible character (HTML's list of named character references). */
const NAMED_REFERENCES: ReadonlyMap<string, number> = new Map([
  ['hyphen', 0x2010], ['dash', 0x2010], ['ndash', 0x2013], ['mdash', 0x2014], ['minus', 0x2212],
  ['shy', 0x00ad], ['ZeroWidthSpace', 0x200b], ['zwnj', 0x200c], ['zwj', 0x200d], ['NoBreak', 0x2060],
])

/** The most code units an HTML character reference read spans, `&` to `;` (`&ZeroWidthSpace;`). */
const MAX_REFERENCE = 16

/**
 * The code unit a marker's character at `i` stands for: the code unit itself, or the one a JSON
 * `\uXXXX` escape or an HTML character reference (`&#DDD;`, `&#xHH;`, a name above) written there
 * gives; with `percent`, a percent-encoded hyphen or look-alike (its UTF-8, `%2D`, `%E2%80%91`)
 * too. NaN past the end. unitEndAt says where it ends.
 */
function unitAt(text: string, i: number, percent = false): number {
  const c = text.charCodeAt(i)
  return c === 0x5c || c === 0x26 || c === 0x25 ? encodedUnit(text, i, percent)[0] : c
}

/** Where the character unitAt reads at `i` ends. */
function unitEndAt(text: string, i: number, percent = false): number {
  const c = text.charCodeAt(i)
  return c === 0x5c || c === 0x26 || c === 0x25 ? encodedUnit(text, i, percent)[1] : i + 1
}

/** unitAt at a `\\`, `&` or `%`: the code unit written there and where it ends (the character itself where it begins no escape or reference read). */
function encodedUnit(text: string, i: number, percent: boolean): [unit: number, end: number] {
  const c = text.charCodeAt(i)
  if (c === 0x5c) {
    // `\u` and four hex digits (JSON writes no other form of a code unit).
    const v = text.charCodeAt(i + 1) === 0x75 ? hexValue(text, i + 2, 4) : -1
    return v === -1 ? [c, i + 1] : [v, i + 6]
  }
  if (c === 0x26) {
    let semi = i + 2
    while (semi - i <= MAX_REFERENCE && semi < text.length && text.charCodeAt(semi) !== 0x3b) semi++
    if (semi - i > MAX_REFERENCE || semi >= text.length) return [c, i + 1]
    let v: number
    if (text.charCodeAt(i + 1) === 0x23) {
      const x = text.charCodeAt(i + 2) | 0x20
      v = x === 0x78 ? hexValue(text, i + 3, semi - i - 3) : decimalValue(text, i + 2, semi - i - 2)
    } else v = NAMED_REFERENCES.get(text.slice(i + 1, semi)) ?? -1
    return v === -1 || v > 0xffff ? [c, i + 1] : [v, semi + 1]
  }
  return (percent && percentDash(text, i)) || [c, i + 1]
}

/** The value of `n` (1 to 6) hex digits at `i`, or -1. */
function hexValue(text: string, i: number, n: number): number {
  if (n < 1 || n > 6) return -1
  let v = 0
  for (let k = 0; k < n; k++) {
    const d = text.charCodeAt(i + k)
    const x = d >= 0x30 && d <= 0x39 ? d - 0x30 : (d | 0x20) >= 0x61 && (d | 0x20) <= 0x66 ? (d | 0x20) - 0x57 : -1
    if (x === -1) return -1
    v = v * 16 + x
  }
  return v
}

/** The value of `n` (1 to 7) decimal digits at `i`, or -1. */
function decimalValue(text: string, i: number, n: number): number {
  if (n < 1 || n > 7) return -1
  let v = 0
  for (let k = 0; k < n; k++) {
    const d = text.charCodeAt(i + k)
    if (d < 0x30 || d > 0x39) return -1
    v = v * 10 + d - 0x30
  }
  return v
}

/** The hyphen or look-alike (isDash) percent-encoded at `i`, its UTF-8 bytes each `%HH` (hex in either case), and where it ends; null where none is. */
function percentDash(text: string, i: number): [unit: number, end: number] | null {
  const b0 = text.charCodeAt(i) === 0x25 ? hexValue(text, i + 1, 2) : -1
  if (b0 === 0x2d) return [0x2d, i + 3]
  // A look-alike's UTF-8 is three bytes, E2 or EF and two continuation bytes.
  if (b0 !== 0xe2 && b0 !== 0xef) return null
  const b1 = text.charCodeAt(i + 3) === 0x25 ? hexValue(text, i + 4, 2) : -1
  const b2 = text.charCodeAt(i + 6) === 0x25 ? hexValue(text, i + 7, 2) : -1
  if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80) return null
  const cp = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f)
  return isDash(cp) ? [cp, i + 9] : null
}

/** The first position from `i` that is no invisible character (as written, escaped or referenced: unitAt). */
function skipInvisible(text: string, i: number): number {
  for (let end = invisibleEnd(text, i); end !== -1; end = invisibleEnd(text, i)) i = end
  return i
}

/** The position after a line break (LF or CR LF) at `i` and the spaces and tabs that indent the next line, or `i` where no break is. */
function skipBreak(text: string, i: number): number {
  const c = text.charCodeAt(i)
  let j = c === 0x0a ? i + 1 : c === 0x0d && text.charCodeAt(i + 1) === 0x0a ? i + 2 : i
  if (j === i) return i
  while (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09) j++
  return j
}

/** The hex digit at `i` (ASCII or full-width, as written, escaped or referenced: unitAt) as an ASCII code unit, or -1. */
function hexAt(text: string, i: number): number {
  const c = narrow(unitAt(text, i))
  return isHexCode(c) ? c : -1
}

/** Whether a text may hold a marker (markerTokens finds none in one that does not). */
export function mayHoldMarker(text: string): boolean {
  return text.includes(WORD) || WIDE_WORD_LETTER.test(text)
}

/**
 * Where the hex digits of a marker written from `at` start: `CANARY`, the hyphen and what may
 * stand around it (see above); -1 where no marker starts at `at`. Reads a bounded stretch but
 * for invisible characters, which it reads once each.
 */
function prefixEnd(text: string, at: number): number {
  for (let k = 0; k < WORD.length; k++) if (narrow(text.charCodeAt(at + k)) !== WORD.charCodeAt(k)) return -1
  const dash = skipInvisible(text, at + WORD.length)
  if (dash >= text.length || !isDash(unitAt(text, dash, true))) return -1
  const next = skipInvisible(text, unitEndAt(text, dash, true))
  const wrapped = skipBreak(text, next)
  return wrapped === next ? next : skipInvisible(text, wrapped)
}

/** The next position from `from` where a marker starts (prefixEnd), and where its hex starts; null where none does. */
function nextPrefix(text: string, from: number, wide: boolean): {at: number; hex: number} | null {
  for (let at = from; at < text.length; at++) {
    if (wide) {
      const c = text.charCodeAt(at)
      if (c !== 0x43 && c !== 0xff23) continue
    } else {
      at = text.indexOf(WORD, at)
      if (at === -1) return null
    }
    const hex = prefixEnd(text, at)
    if (hex !== -1) return {at, hex}
  }
  return null
}

/**
 * The hex run from `from`: hex digits (ASCII or full-width, as written, escaped or referenced)
 * with invisible characters between them, and over a line break while it has fewer than
 * MIN_PARTIAL_HEX digits (see above), up to where a marker starts (its `C` and `A` are hex digits:
 * two markers written with nothing between them are two tokens, not one). `end`: after its last
 * digit; `digits`: how many; `plain`: whether it is ASCII digits alone (the text's own slice is
 * then its digits).
 */
function hexRunAt(text: string, from: number): {end: number; digits: number; plain: boolean} {
  let end = from
  let digits = 0
  let plain = true
  for (let i = from; ; ) {
    const c = text.charCodeAt(i)
    // An ASCII digit that cannot start the next marker (not `C`): the common case, read at once.
    if (c !== 0x43 && isHexCode(c)) {
      if (i !== end) plain = false
      digits++
      end = ++i
      continue
    }
    if (invisibleEnd(text, i) !== -1) {
      i = skipInvisible(text, i)
      continue
    }
    if (digits > 0 && digits < MIN_PARTIAL_HEX && (c === 0x0a || c === 0x0d)) {
      const wrapped = skipBreak(text, i)
      if (wrapped !== i) {
        const next = skipInvisible(text, wrapped)
        const d = text.charCodeAt(next)
        if (hexAt(text, next) !== -1 && !((d === 0x43 || d === 0xff23) && prefixEnd(text, next) !== -1)) {
          i = next
          plain = false
          continue
        }
      }
    }
    const h = hexAt(text, i)
    const next = unitEndAt(text, i)
    if (h === -1 || ((c === 0x43 || c === 0xff23) && prefixEnd(text, i) !== -1)) break
    if (c > 0x7f || i !== end || next !== i + 1) plain = false
    digits++
    end = i = next
  }
  return {end, digits, plain}
}

/** The run's hex digits in ASCII (hexRunAt), from `from` to `end`. */
function runDigits(text: string, from: number, end: number): string {
  let out = ''
  for (let i = from; i < end; i = unitEndAt(text, i)) {
    const h = hexAt(text, i)
    if (h !== -1) out += String.fromCharCode(h)
  }
  return out
}

/**
 * Every marker-shaped token of a text, in order: `CANARY-` and its hex run of 8 digits or more,
 * folded (see above). Independent of the registry, so ingest stores these once and a scan (or a
 * rescan under a changed registry) classifies them without reading the text again. One pass, no
 * regular expression: a regex with a lookahead per digit overflows the stack on a run of megabytes.
 */
export function markerTokens(text: string): MarkerToken[] {
  const out: MarkerToken[] = []
  const wide = WIDE_WORD_LETTER.test(text)
  if (!wide && !text.includes(WORD)) return out
  for (let m = nextPrefix(text, 0, wide); m !== null; ) {
    const run = hexRunAt(text, m.hex)
    if (run.digits < MIN_TOKEN_HEX) {
      m = nextPrefix(text, m.at + 1, wide)
      continue
    }
    const plainPrefix = m.hex === m.at + PREFIX.length && text.startsWith(PREFIX, m.at)
    const token = plainPrefix && run.plain ? text.slice(m.at, run.end) : PREFIX + (run.plain ? text.slice(m.hex, run.end) : runDigits(text, m.hex, run.end))
    out.push({token, position: m.at})
    m = nextPrefix(text, run.end, wide)
  }
  return out
}

/**
 * The text with each marker-shaped run of 8 hex digits or more (as markerTokens finds it, folded)
 * cut to `CANARY-` and its first `keep` hex digits and `…`: a marker written with a look-alike
 * hyphen, an invisible character or full-width forms is shortened as a plain one is, never shown
 * whole where markers are shortened. The rest of the text is kept as it is.
 */
export function shortenMarkerTokens(text: string, keep: number): string {
  const wide = WIDE_WORD_LETTER.test(text)
  if (!wide && !text.includes(WORD)) return text
  let out = ''
  let last = 0
  for (let m = nextPrefix(text, 0, wide); m !== null; ) {
    const run = hexRunAt(text, m.hex)
    if (run.digits < MIN_TOKEN_HEX) {
      m = nextPrefix(text, m.at + 1, wide)
      continue
    }
    out += `${text.slice(last, m.at)}${PREFIX}${runDigits(text, m.hex, run.end).slice(0, keep)}…`
    last = run.end
    m = nextPrefix(text, run.end, wide)
  }
  return out + text.slice(last)
}

/**
 * Resolves stored tokens against the registry: one entry per registered marker, one per orphan
 * token (case-folded). `hits`: the registered markers outside the convention found in the same
 * text (first occurrence each, as extracted). A token that lies inside a longer one of them (the
 * `CANARY-<hex>` head of `CANARY-<hex>-s42`) is part of that marker, not a sighting of its own;
 * so is, where it would be an orphan, a token written as such a hit's head elsewhere in the text
 * (a later occurrence of the same marker: only its first is extracted).
 */
export function resolveTokens(tokens: readonly MarkerToken[], registry: MarkerRegistry, hits: readonly MarkerToken[] = []): Map<string, FoundMarker> {
  const found = new Map<string, FoundMarker>()
  for (const {token, position} of tokens) {
    if (hits.some((h) => within(position, token.length, h))) continue
    const hex = token.slice(PREFIX.length).toLowerCase()
    const key = PREFIX + hex
    const {registered, partial, candidates} = resolveToken(registry, key)
    if (registered === null && hits.some((h) => isHeadOf(token, h.token))) continue
    const dedup = registered ? registered.key : `orphan:${key}`
    const prior = found.get(dedup)
    // A full occurrence outranks a partial one of the same marker.
    if (prior && (prior.partial === false || partial)) continue
    found.set(dedup, candidates ? {registered, token, hex, partial, position, candidates} : {registered, token, hex, partial, position})
  }
  return found
}

/** Whether the span [position, position + length) lies inside `outer` and is shorter. */
function within(position: number, length: number, outer: MarkerToken): boolean {
  return length < outer.token.length && position >= outer.position && position + length <= outer.position + outer.token.length
}

/** Whether `token` (`CANARY-` and its whole hex run) is how `marker` begins: the marker goes on with no hex digit. */
function isHeadOf(token: string, marker: string): boolean {
  return marker.length > token.length && marker.startsWith(token) && !isHexCode(marker.charCodeAt(token.length))
}

const isHexCode = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)

/**
 * The spans of every marker's start (prefixEnd) and its whole hex run in a text (any number of
 * digits: a marker `CANARY-abc` inside `CANARY-abcdef0123456789` is inside a longer token), the
 * run ended where markerTokens ends it (at the next marker).
 */
function prefixRuns(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  const wide = WIDE_WORD_LETTER.test(text)
  for (let m = nextPrefix(text, 0, wide); m !== null; m = nextPrefix(text, m.at + 1, wide)) {
    out.push([m.at, hexRunAt(text, m.hex).end])
  }
  return out
}

/** How many hex digits follow `from` in `text`, up to the next marker (markerTokens' run). */
function hexRun(text: string, from: number): number {
  return hexRunAt(text, from).digits
}

/**
 * Of an automaton's matches in a text (findAll's order), the first occurrence of each pattern
 * that is whole: not inside a longer match (a registered marker found only inside a longer
 * registered marker, `ZEBRA-MARKER-7` inside `ZEBRA-MARKER-71`, is no sighting of it) nor inside
 * a longer `CANARY-` and hex run (`CANARY-abc` inside `CANARY-abcdef0123456789abcd`).
 */
export function wholeMatches(matches: readonly AcMatch[], lengthOf: (pattern: number) => number, text: string): AcMatch[] {
  if (matches.length === 0) return []
  const spans: Array<[number, number]> = matches.map((m) => [m.start, m.start + lengthOf(m.pattern)])
  if (mayHoldMarker(text)) spans.push(...prefixRuns(text))
  const inside = containment(spans)
  const seen = new Set<number>()
  const out: AcMatch[] = []
  for (const m of matches) {
    if (seen.has(m.pattern) || inside(m.start, m.start + lengthOf(m.pattern))) continue
    seen.add(m.pattern)
    out.push(m)
  }
  return out
}

/**
 * Whether [start, end) lies inside a longer one of `spans`, in a binary search (a text repeating a
 * marker thousands of times must not cost a comparison of every pair): a longer span holding it
 * starts before it and ends at or after its end, or starts with it and ends after it.
 */
function containment(spans: Array<[number, number]>): (start: number, end: number) => boolean {
  spans.sort((a, b) => a[0] - b[0])
  // reach[i]: the furthest end of spans[0..i)
  const reach = new Array<number>(spans.length + 1)
  reach[0] = -1
  for (let i = 0; i < spans.length; i++) reach[i + 1] = Math.max(reach[i]!, spans[i]![1])
  const furthestAt = new Map<number, number>()
  for (const [s, e] of spans) furthestAt.set(s, Math.max(furthestAt.get(s) ?? -1, e))
  return (start, end) => {
    let lo = 0
    let hi = spans.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (spans[mid]![0] < start) lo = mid + 1
      else hi = mid
    }
    return reach[lo]! >= end || furthestAt.get(start)! > end
  }
}

/** Adds the registry's unconventional markers (automaton over the text) to what the tokens resolved to. */
export function addUnconventional(found: Map<string, FoundMarker>, text: string, registry: MarkerRegistry): void {
  if (!registry.automaton) return
  const lengthOf = (p: number): number => registry.unconventional[p]!.marker.length
  for (const hit of wholeMatches(registry.automaton.findAll(text), lengthOf, text)) {
    const registered = registry.unconventional[hit.pattern]!
    if (found.has(registered.key)) continue
    found.set(registered.key, {registered, token: registered.marker, hex: null, partial: false, position: hit.start})
  }
}

/** The registry's unconventional markers held whole in a text (wholeMatches), as registered. */
export function unconventionalHits(text: string, registry: Pick<MarkerRegistry, 'automaton' | 'unconventional'>): MarkerToken[] {
  if (!registry.automaton) return []
  const lengthOf = (p: number): number => registry.unconventional[p]!.marker.length
  return wholeMatches(registry.automaton.findAll(text), lengthOf, text).map((h) => ({token: registry.unconventional[h.pattern]!.marker, position: h.start}))
}

export function sortedFound(found: Map<string, FoundMarker>): FoundMarker[] {
  return [...found.values()].sort((a, b) => a.position - b.position)
}

/** Every distinct marker in a response: one per registered marker, one per orphan token (case-folded). */
export function findMarkers(text: string, registry: MarkerRegistry): FoundMarker[] {
  const found = resolveTokens(markerTokens(text), registry, unconventionalHits(text, registry))
  addUnconventional(found, text, registry)
  return sortedFound(found)
}

export interface RecipientContext {
  tenant: string
  session: string
  /**
   * Whether this request's prompt holds `needle`, the marker `found` names, as a marker. A
   * conventional needle (`CANARY-` + lower-case hex: the registered key, or a partial token's
   * own) is held where the prompt has `CANARY-` followed by its hex, hex in either case, and no
   * more hex after it (a prompt's own `CANARY-0123456789abcdef42` does not hold
   * `CANARY-0123456789abcdef`), or no more than the response's token has after it (the same
   * marker run into the same adjoining hex); a partial's needle is held where its hex is followed
   * by anything (the marker was cut short in the response, not in the prompt). Its hex is always
   * a prefix of the token's, so a record can answer from its tokens' promptPrefix and promptWhole
   * without keeping the prompt. Any other needle is the marker as registered, held where the
   * prompt has it whole (unconventionalHits: not inside a longer registered marker).
   */
  promptHas: (needle: string, found: FoundMarker) => boolean
}

/**
 * The registry's markers outside the convention held whole in a text, as registered
 * (unconventionalHits, UnconventionalSet.hits): where one ends, the echo check needs to know.
 */
export type WholeHits = (text: string) => readonly MarkerToken[]

/** promptHas over the request's text, read once, on first use. */
export function promptSearch(text: () => string | null, wholeHits?: WholeHits): RecipientContext['promptHas'] {
  let prompt: string | null = null
  return (needle, found) => promptHoldsMarker((prompt ??= text() ?? ''), needle, found, wholeHits)
}

/**
 * Whether `prompt` holds the marker `needle` (as RecipientContext.promptHas reads it). The hex
 * digits alone are not the marker: a hash, an id or a log line a user pasted can hold them, and
 * taking that for the marker sent back would hide a leak (contract: a marker is `CANARY-` and its
 * hex, hex case-insensitive). Nor is a longer marker that starts with it: taking the recipient's
 * own longer marker for the foreign one would hide a leak the same way.
 */
export function promptHoldsMarker(prompt: string, needle: string, found?: Pick<FoundMarker, 'hex' | 'partial'>, wholeHits?: WholeHits): boolean {
  if (!CONVENTIONAL_KEY.test(needle)) return promptHasUnconventional(prompt, needle, wholeHits)
  const hex = needle.slice(PREFIX.length)
  const token = found?.hex?.startsWith(hex) ? found.hex : hex
  const held = hexAfterPrefix(prompt, token)
  return (found?.partial ? held.prefix : held.whole) >= hex.length
}

/** What a prompt holds of a token's hex digits after a `CANARY-` (hexAfterPrefix). */
export interface PromptHex {
  /** The most of its digits, from its first, that follow a `CANARY-` (more digits may follow them). */
  prefix: number
  /** The most of its digits, from its first, that are a `CANARY-`'s whole hex run (no hex digit follows them). */
  whole: number
}

/**
 * How many of `hex`'s digits (lower-case), from its first, the prompt holds right after a
 * marker's start (prefixEnd: `CANARY-` folded as in responses; the most over every one in it),
 * and how many it holds as that start's whole hex run (the run ended as markerTokens ends it).
 * The digits are read as a response's are (either letter case, full-width, escaped or referenced,
 * invisible characters between them) and may also go on after a line break (LF or CR LF, and the
 * next line's indentation), where the marker goes on there: a marker the user's text wraps, or
 * splits over two text parts (each on a line of its own), is still the marker the user sent. Only
 * hex digits are folded, so that no other character of the prompt can stand for a digit.
 */
function hexAfterPrefix(prompt: string, hex: string): PromptHex {
  const best = {prefix: 0, whole: 0}
  const wide = WIDE_WORD_LETTER.test(prompt)
  for (let m = nextPrefix(prompt, 0, wide); m !== null && best.whole < hex.length; m = nextPrefix(prompt, m.at + 1, wide)) {
    let i = m.hex
    let n = 0
    while (n < hex.length) {
      let j = skipInvisible(prompt, i)
      if (n > 0) {
        const wrapped = skipBreak(prompt, j)
        if (wrapped !== j) j = skipInvisible(prompt, wrapped)
      }
      const c = hexAt(prompt, j)
      if ((c >= 0x41 && c <= 0x46 ? c + 0x20 : c) !== hex.charCodeAt(n)) break
      n++
      i = unitEndAt(prompt, j)
    }
    if (n > best.prefix) best.prefix = n
    if (n > best.whole && hexRun(prompt, i) === 0) best.whole = n
  }
  return best
}

/**
 * Of a token's hex digits (lower-cased), how many from its first the prompt holds as a marker
 * (hexAfterPrefix's prefix): a partial's needle is the token's own hex, held when this is at
 * least its length.
 */
export function promptPrefix(t: MarkerToken, prompt: () => string): number {
  return promptHex(t, prompt).prefix
}

/**
 * What the prompt holds of a token's hex (hexAfterPrefix): `prefix` answers for a partial
 * sighting (its needle is the token's hex), `whole` for a full one (its needle, the registered
 * key, is a prefix of the token's hex, held when `whole` is at least its length).
 */
export function promptHex(t: MarkerToken, prompt: () => string): PromptHex {
  const p = prompt()
  return mayHoldMarker(p) ? hexAfterPrefix(p, t.token.slice(PREFIX.length).toLowerCase()) : {prefix: 0, whole: 0}
}

/**
 * Whether the prompt holds a registered marker outside the convention: exactly as registered, as
 * responses are matched, and whole (unconventionalHits: `ZEBRA-MARKER-71` does not hold
 * `ZEBRA-MARKER-7` where both are registered). Without the registry's markers, anywhere.
 */
export function promptHasUnconventional(prompt: string, marker: string, wholeHits?: WholeHits): boolean {
  if (!prompt.includes(marker)) return false
  return wholeHits === undefined || wholeHits(prompt).some((h) => h.token === marker)
}

export interface Classification {
  class: SightingClass
  sourceSession: string | null
  sourceTenant: string | null
}

/**
 * Names the rules classifySighting applies: a case whose last scan classified under other rules
 * is classified again whole. 2: an echo is the marker itself in the prompt (before, its hex
 * digits anywhere in it). 3: a token that is a strict prefix of exactly one registered marker
 * is a partial sighting of it even where it also extends a shorter registered marker (before,
 * the shorter marker's full sighting). 4: registered markers are matched whole: one found only
 * inside a longer registered marker or marker-shaped token is no sighting of it, a prompt holds a
 * marker only where its hex run (or the registered marker) ends where the marker ends (a prompt
 * holding `CANARY-…ab42` does not echo `CANARY-…ab`), and a registered `CANARY-<hex><suffix>`
 * found exactly is one whole sighting (before, a partial one, or a sighting of its hex part).
 * 5: a token cut short of several registered markers is the partial sighting of their session
 * where one session owns them all, and contamination with its possible sources listed where
 * several sessions, none the recipient's, do (before, an orphan the gate passed).
 */
export const SIGHTING_RULES = 5

/** The contract's classes, in order: own, echo, cross_session, cross_tenant; orphan when unregistered. */
export function classifySighting(found: FoundMarker, recipient: RecipientContext): Classification {
  const source = found.registered
  if (!source && found.candidates) return classifyAmbiguous(found, found.candidates, recipient)
  if (!source) return {class: 'orphan', sourceSession: null, sourceTenant: null}
  const base = {sourceSession: source.session, sourceTenant: source.tenant}
  if (source.tenant === recipient.tenant && source.session === recipient.session) return {class: 'own', ...base}
  // Echo: the user pasted the marker itself into this very request (`CANARY-` and its hex, the
  // hex in either case; not the hex digits alone).
  const needle = found.partial ? PREFIX + found.hex! : CONVENTIONAL_KEY.test(source.key) ? source.key : source.marker
  if (recipient.promptHas(needle, found)) return {class: 'echo', ...base}
  return {class: source.tenant === recipient.tenant ? 'cross_session' : 'cross_tenant', ...base}
}

/**
 * A token cut short of markers of two or more sessions (resolveToken's `candidates`). Where one
 * of them is the recipient's own session, the token may be the recipient's own marker: an orphan,
 * as the contract's rule gives (reported and counted as one, never taken for a leak nor for
 * nothing). Otherwise another session's marker reached the recipient whichever it is: an echo
 * where the prompt holds the token as a marker, else contamination of the least severe class
 * every candidate is certain to be (cross_session where any candidate is a session of the
 * recipient's tenant, else cross_tenant), with the source tenant named only where every candidate
 * agrees on it and the source session never (sightingCandidates lists them).
 */
function classifyAmbiguous(found: FoundMarker, candidates: readonly RegisteredMarker[], recipient: RecipientContext): Classification {
  if (candidates.some((c) => c.tenant === recipient.tenant && c.session === recipient.session)) return {class: 'orphan', sourceSession: null, sourceTenant: null}
  const tenants = new Set(candidates.map((c) => c.tenant))
  const base = {sourceSession: null, sourceTenant: tenants.size === 1 ? candidates[0]!.tenant : null}
  if (recipient.promptHas(PREFIX + found.hex!, found)) return {class: 'echo', ...base}
  return {class: tenants.has(recipient.tenant) ? 'cross_session' : 'cross_tenant', ...base}
}
