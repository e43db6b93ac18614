import {extractMarkers, type UnconventionalSet} from '../extract/extract.js'
import {promptHasUnconventional, promptHex, type MarkerToken} from '../extract/markers.js'
import {pairHash} from './pair-set.js'
import {nativeQuickExtractor, type NativeMarked} from './native-quick.js'
import {decoderFor, markUnreadLine, noteCounter, recordFlags, walkUnit, type LineClaims, type UnitResult, type UnitTask} from './process-unit.js'

// One unit of the quick verdict's pass (quick-pass.ts), decoded by the same walk as ingest's
// (walkUnit) but handed back compact: the pass needs every record's (source, request_id) in
// order for the duplicate rule, and per record only what ingest counts once the record is kept
// (a few flags and its time), so those travel as typed arrays (transferred, not cloned). The
// record's marker details go back only for the few records whose response holds a
// marker-shaped token or a registered marker. Structured-cloning a full row per record cost
// the workers about an eighth of their time and the main thread most of its own.

export interface QuickUnitTask extends UnitTask {
  /** The records' source: request ids are hashed with it here (see PairSet). */
  quickSource: string
}

/** A record whose response holds a marker-shaped token or a registered marker: what the verdict reads of it. */
export interface QuickRecord {
  request_id: string
  tenant_id: string
  session_id: string
  ts_ms: number
  tokens: MarkerToken[]
  hits: MarkerToken[]
  /**
   * What the echo check needs of the prompt, instead of the prompt (a verdict over millions of
   * records would otherwise hold every marked record's prompt until it is printed): per token,
   * promptPrefix (how many of its hex digits, from the first, the prompt holds after a
   * `CANARY-`) and promptHex's `whole` (as many, where no more hex follows them); per hit,
   * whether the prompt holds the marker whole, exactly as registered.
   */
  token_echo: number[]
  token_whole: number[]
  hit_echo: boolean[]
}

/** A record kept for the verdict if it is not a duplicate. */
export interface QuickMarked extends QuickRecord {
  /** its position among the unit's records */
  at: number
}

/** What a unit's quick result says of the unit itself, as ingest's result says it (process-unit.ts). */
export interface QuickUnitResult extends Pick<UnitResult, 'seq' | 'bytes' | 'lines' | 'blank' | 'ignored' | 'unread' | 'bom' | 'notes' | 'unreadFirstLine'> {
  /** Bad lines and bad items of lines, and the first of them. */
  bad: number
  firstBad: {line: number; reason: string} | null
  /** Per record, in order: the two 32-bit hashes of (source, request_id) (pairHash). */
  pairs: Uint32Array
  /** Per record: recordFlags. */
  flags: Uint8Array
  /** Per record: ts_ms. */
  ts: Float64Array
  marked: QuickMarked[]
  /** The task's bytes, handed back for reuse (as in UnitResult). */
  input?: Uint8Array
}

/** Growable per-record columns, reused across units of a thread (the result gets exact-size copies). */
class Columns {
  pairs = new Uint32Array(2 * 1024)
  flags = new Uint8Array(1024)
  ts = new Float64Array(1024)
  length = 0

  push(h1: number, h2: number, flags: number, ts: number): void {
    if (this.length === this.flags.length) this.grow()
    const i = this.length++
    this.pairs[2 * i] = h1
    this.pairs[2 * i + 1] = h2
    this.flags[i] = flags
    this.ts[i] = ts
  }

  private grow(): void {
    const n = this.flags.length * 2
    const pairs = new Uint32Array(2 * n)
    pairs.set(this.pairs)
    const flags = new Uint8Array(n)
    flags.set(this.flags)
    const ts = new Float64Array(n)
    ts.set(this.ts)
    this.pairs = pairs
    this.flags = flags
    this.ts = ts
  }
}

const columns = new Columns()

export function quickUnit(task: QuickUnitTask, unconventional?: UnconventionalSet): QuickUnitResult {
  const result: QuickUnitResult = {
    seq: task.seq, bytes: task.bytes.byteLength, lines: 0, blank: 0, ignored: 0, unread: {}, bom: false, notes: {}, bad: 0, firstBad: null,
    pairs: new Uint32Array(0), flags: new Uint8Array(0), ts: new Float64Array(0), marked: [],
  }
  const note = noteCounter(result.notes)
  columns.length = 0
  const claims = nativeClaims(task, unconventional, result)
  if (claims) {
    const walked = walkQuick(task, unconventional, result, note, claims)
    // The native answer must cover exactly the unit's lines and hand over exactly its records
    // and marked records; anything else (a bug) is never trusted: the unit is read again, in
    // TypeScript alone.
    if (walked && claims.allTaken()) return finish(task, result)
    Object.assign(result, {lines: 0, blank: 0, ignored: 0, unread: {}, bom: false, notes: {}, bad: 0, firstBad: null, marked: []})
    delete result.unreadFirstLine
    columns.length = 0
  }
  walkQuick(task, unconventional, result, noteCounter(result.notes))
  return finish(task, result)
}

/** The walk of a quick unit into `result` and the thread's columns; false when the claims did not cover the unit's lines. */
function walkQuick(task: QuickUnitTask, unconventional: UnconventionalSet | undefined, result: QuickUnitResult, note: (text: string) => void, claims?: NativeClaims): boolean {
  // A quick pass runs only on formats that read each line alone: there is never a companion index.
  const counts = walkUnit(task, null, false, {
    bad: (lineNo, _item, _offset, _line, reason) => {
      result.bad++
      result.firstBad ??= {line: lineNo, reason}
    },
    record: (lineNo, _offset, _line, _crc, r) => {
      const row = r.row
      const m = extractMarkers(row.request_text, row.response_text, unconventional)
      for (const n of r.notes) note(n)
      markUnreadLine(result, lineNo, r.notes)
      const [h1, h2] = pairHash(task.quickSource, row.request_id)
      if (m.prompt !== null) {
        result.marked.push({
          at: columns.length, request_id: row.request_id, tenant_id: row.tenant_id, session_id: row.session_id, ts_ms: row.ts_ms,
          tokens: m.tokens, hits: m.unconventional, ...echoFacts(m.tokens, m.unconventional, m.prompt, unconventional),
        })
      }
      columns.push(h1, h2, recordFlags(row), row.ts_ms)
    },
  }, claims)
  Object.assign(result, counts)
  return claims === undefined || claims.kinds.length === counts.lines
}

export function echoFacts(tokens: MarkerToken[], hits: MarkerToken[], prompt: string, unconventional?: UnconventionalSet): Pick<QuickRecord, 'token_echo' | 'token_whole' | 'hit_echo'> {
  const held = tokens.map((t) => promptHex(t, () => prompt))
  const whole = unconventional ? (text: string): MarkerToken[] => unconventional.hits(text) : undefined
  return {token_echo: held.map((h) => h.prefix), token_whole: held.map((h) => h.whole), hit_echo: hits.map((h) => promptHasUnconventional(prompt, h.token, whole))}
}

function finish(task: QuickUnitTask, result: QuickUnitResult): QuickUnitResult {
  result.pairs = columns.pairs.slice(0, 2 * columns.length)
  result.flags = columns.flags.slice(0, columns.length)
  result.ts = columns.ts.slice(0, columns.length)
  result.input = task.bytes
  return result
}

/**
 * The lines of a plain native unit the native extractor answers (native-quick.ts), as claims
 * that push their records' columns, and a marked record's facts into the result in its place
 * among the records the walk decodes itself; undefined where it does not run (no addon,
 * another format, --map), and the TypeScript walk reads every line.
 */
interface NativeClaims extends LineClaims {
  /** Every record the native extractor answered was taken by the walk, and no more. */
  allTaken(): boolean
}

function nativeClaims(task: QuickUnitTask, unconventional: UnconventionalSet | undefined, result: QuickUnitResult): NativeClaims | undefined {
  if (!decoderFor(task.spec).plainNative) return undefined
  const native = nativeQuickExtractor(unconventional)
  if (!native) return undefined
  let n
  try {
    n = native.lines(task.bytes, task.quickSource, task.maxLineBytes)
  } catch {
    // A failure of the native extractor (a bug) costs speed, never an answer: TypeScript reads the unit.
    return undefined
  }
  let k = 0
  const marked = n.marked ?? []
  const markers = unconventional?.markers ?? []
  let next = 0
  // A marked record shaped otherwise than its facts need (a bug) voids the whole answer.
  let misshaped = false
  const wellFormed = (m: NativeMarked): boolean =>
    m.tokenPositions.length === m.tokens.length && m.tokenEcho.length === m.tokens.length && m.tokenWhole.length === m.tokens.length &&
    m.hitPositions.length === m.hits.length && m.hitEcho.length === m.hits.length && m.hits.every((h) => h < markers.length)
  return {
    kinds: n.kinds,
    record: () => {
      const m = marked[next]
      if (m?.at === k) {
        next++
        if (!wellFormed(m)) misshaped = true
        else result.marked.push({
          at: columns.length, request_id: m.requestId, tenant_id: m.tenantId, session_id: m.sessionId, ts_ms: n.ts[k]!,
          tokens: m.tokens.map((token, i) => ({token, position: m.tokenPositions[i]!})),
          hits: m.hits.map((marker, i) => ({token: markers[marker]!, position: m.hitPositions[i]!})),
          token_echo: m.tokenEcho, token_whole: m.tokenWhole, hit_echo: m.hitEcho,
        })
      }
      columns.push(n.pairs[2 * k]!, n.pairs[2 * k + 1]!, n.flags[k]!, n.ts[k]!)
      k++
    },
    allTaken: () => !misshaped && k === n.flags.length && n.pairs.length === 2 * k && n.ts.length === k && next === marked.length,
  }
}
