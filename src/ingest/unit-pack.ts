import type {LinePosition} from '../extract/formats/index.js'
import type {MarkerToken} from '../extract/markers.js'
import type {PiiEntry} from '../extract/extract.js'
import {NO_REQUEST_TEXT, NO_RESPONSE, NO_RESPONSE_TEXT, type BadItem, type RecordItem, type RecordMeta, type UnitResult} from './process-unit.js'

// A unit's result as it crosses from a parse worker to the main thread: its records' numbers in
// one Float64Array (transferred, not copied) and their strings joined into one string, instead
// of a thousand objects of twenty-odd fields each, which postMessage's structured clone
// serialized one by one and the main thread, ingest's busiest, deserialized one by one. In a
// 200,000-record ingest (--cpu-prof, two runs each way) the main thread's deserializing fell
// from 690-720 ms to 70-85 ms and its garbage collection from 590-630 to 440-465 ms; packing
// cost the workers 0.1-0.3 s more. The unpacked result equals the one packed
// (test/ingest/unit-pack.test.ts), so nothing downstream changes.
//
// Layout, per record in item order: the fixed numbers below, then per marker token its
// position, per unconventional hit its position, per PII entry its part, per companion its
// line, offset, length and CRC (NaN where absent). Every string (the row's, tokens', PII kinds
// and hashes, companions' files) is a length in the numbers (-1: null) and its characters in
// `text`, in the same order. Lines that are not records (rare) travel as objects with their
// place among the items.

/** A unit's result with its records packed (packUnitResult). */
export interface PackedUnitResult extends Omit<UnitResult, 'items'> {
  packed: true
  records: number
  nums: Float64Array
  text: string
  bad: BadItem[]
  /** Index among the items of each entry of `bad`. */
  badAt: number[]
}

// A record's packed flags: recordFlags' text bits (process-unit.ts), then which of the row's
// nullable numbers are null (the packed number is then 0).
const STATUS_NULL = 8
const PROMPT_TOKENS_NULL = 16
const COMPLETION_TOKENS_NULL = 32
const CACHED_TOKENS_NULL = 64

/** A growable Float64Array and the strings that go with it. */
class Packer {
  nums = new Float64Array(4096)
  n = 0
  readonly strings: string[] = []

  num(v: number): void {
    if (this.n === this.nums.length) {
      const next = new Float64Array(this.nums.length * 2)
      next.set(this.nums)
      this.nums = next
    }
    this.nums[this.n++] = v
  }

  str(s: string | null): void {
    if (s === null) return this.num(-1)
    this.num(s.length)
    this.strings.push(s)
  }
}

export function packUnitResult(r: UnitResult): PackedUnitResult {
  const p = new Packer()
  const bad: BadItem[] = []
  const badAt: number[] = []
  let records = 0
  r.items.forEach((item, at) => {
    if (item.k === 'b') {
      bad.push(item)
      badAt.push(at)
      return
    }
    records++
    const w = item.row
    const flags = (item.noRequestText ? NO_REQUEST_TEXT : 0) | (item.noResponseText ? NO_RESPONSE_TEXT : 0) | (item.noResponse ? NO_RESPONSE : 0)
      | (w.status === null ? STATUS_NULL : 0) | (w.prompt_tokens === null ? PROMPT_TOKENS_NULL : 0)
      | (w.completion_tokens === null ? COMPLETION_TOKENS_NULL : 0) | (w.cached_tokens === null ? CACHED_TOKENS_NULL : 0)
    p.num(flags)
    p.num(item.lineNo)
    p.num(item.item)
    p.num(item.offset)
    p.num(item.length)
    p.num(item.crc)
    p.num(item.promptWords)
    p.num(item.responseWords)
    p.num(item.fpStart)
    p.num(item.fpPromptLen)
    p.num(item.fpResponseLen)
    p.num(w.ts_ms)
    p.num(w.status ?? 0)
    p.num(w.prompt_tokens ?? 0)
    p.num(w.completion_tokens ?? 0)
    p.num(w.cached_tokens ?? 0)
    p.num(w.stream)
    p.num(w.is_error)
    p.str(w.request_id)
    p.str(w.ts)
    p.str(w.tenant_id)
    p.str(w.session_id)
    p.str(w.endpoint)
    p.str(w.model)
    p.str(w.prefill_node)
    p.str(w.decode_node)
    p.str(w.response_kind)
    p.str(w.error_message)
    p.num(item.tokens.length)
    for (const t of item.tokens) {
      p.num(t.position)
      p.str(t.token)
    }
    p.num(item.unconventional.length)
    for (const t of item.unconventional) {
      p.num(t.position)
      p.str(t.token)
    }
    p.num(item.pii.length)
    for (const [part, kind, hash] of item.pii) {
      p.num(part)
      p.str(kind)
      p.str(hash)
    }
    p.num(item.companions.length)
    for (const c of item.companions) {
      p.str(c.file)
      p.num(c.line)
      p.num(c.offset ?? NaN)
      p.num(c.length ?? NaN)
      p.num(c.crc ?? NaN)
    }
  })
  const {items: _items, ...rest} = r
  return {...rest, packed: true, records, nums: p.nums.slice(0, p.n), text: p.strings.join(''), bad, badAt}
}

export function isPacked(r: object): r is PackedUnitResult {
  return (r as Partial<PackedUnitResult>).packed === true
}

/** The result packUnitResult packed, as processUnit returned it. */
export function unpackUnitResult(p: PackedUnitResult): UnitResult {
  const {nums, text} = p
  let i = 0
  let at = 0
  const str = (): string | null => {
    const len = nums[i++]!
    if (len < 0) return null
    const s = text.slice(at, at + len)
    at += len
    return s
  }
  const items: Array<RecordItem | BadItem> = []
  let nextBad = 0
  const takeBad = (): void => {
    while (nextBad < p.bad.length && p.badAt[nextBad] === items.length) items.push(p.bad[nextBad++]!)
  }
  for (let r = 0; r < p.records; r++) {
    takeBad()
    const flags = nums[i++]!
    const lineNo = nums[i++]!
    const item = nums[i++]!
    const offset = nums[i++]!
    const length = nums[i++]!
    const crc = nums[i++]!
    const promptWords = nums[i++]!
    const responseWords = nums[i++]!
    const fpStart = nums[i++]!
    const fpPromptLen = nums[i++]!
    const fpResponseLen = nums[i++]!
    const tsMs = nums[i++]!
    const status = nums[i++]!
    const promptTokens = nums[i++]!
    const completionTokens = nums[i++]!
    const cachedTokens = nums[i++]!
    const stream = nums[i++]!
    const isError = nums[i++]!
    const row: RecordMeta = {
      request_id: str()!,
      ts: str()!,
      ts_ms: tsMs,
      tenant_id: str()!,
      session_id: str()!,
      status: flags & STATUS_NULL ? null : status,
      endpoint: str(),
      model: str(),
      prefill_node: str(),
      decode_node: str(),
      prompt_tokens: flags & PROMPT_TOKENS_NULL ? null : promptTokens,
      completion_tokens: flags & COMPLETION_TOKENS_NULL ? null : completionTokens,
      cached_tokens: flags & CACHED_TOKENS_NULL ? null : cachedTokens,
      stream,
      response_kind: str()!,
      is_error: isError,
      error_message: str(),
    }
    const tokens: MarkerToken[] = []
    for (let n = nums[i++]!; n > 0; n--) {
      const position = nums[i++]!
      tokens.push({token: str()!, position})
    }
    const unconventional: MarkerToken[] = []
    for (let n = nums[i++]!; n > 0; n--) {
      const position = nums[i++]!
      unconventional.push({token: str()!, position})
    }
    const pii: PiiEntry[] = []
    for (let n = nums[i++]!; n > 0; n--) {
      const part = nums[i++]!
      const kind = str()!
      pii.push([part, kind, str()!])
    }
    const companions: LinePosition[] = []
    for (let n = nums[i++]!; n > 0; n--) {
      const c: LinePosition = {file: str()!, line: nums[i++]!}
      const o = nums[i++]!
      const l = nums[i++]!
      const k = nums[i++]!
      if (!Number.isNaN(o)) c.offset = o
      if (!Number.isNaN(l)) c.length = l
      if (!Number.isNaN(k)) c.crc = k
      companions.push(c)
    }
    items.push({
      k: 'r', lineNo, item, offset, length, crc, row,
      noRequestText: (flags & NO_REQUEST_TEXT) !== 0, noResponseText: (flags & NO_RESPONSE_TEXT) !== 0, noResponse: (flags & NO_RESPONSE) !== 0,
      companions, tokens, unconventional, pii, promptWords, responseWords, fpStart, fpPromptLen, fpResponseLen,
    })
  }
  takeBad()
  if (i !== nums.length || at !== text.length || nextBad !== p.bad.length) {
    throw new Error(`unpackUnitResult: unit ${p.seq} did not unpack whole (${i} of ${nums.length} numbers, ${at} of ${text.length} characters, ${nextBad} of ${p.bad.length} bad items)`)
  }
  const {packed: _packed, records: _records, nums: _nums, text: _text, bad: _bad, badAt: _badAt, ...rest} = p
  return {...rest, items}
}
