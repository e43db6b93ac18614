import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {processUnit, type BadItem, type RecordItem, type UnitResult} from '../../src/ingest/process-unit.js'
import {packUnitResult, unpackUnitResult, type PackedUnitResult} from '../../src/ingest/unit-pack.js'

// A parse worker posts its unit's result packed (unit-pack.ts) and the main thread writes what
// unpacking gives back: that must be the result processUnit made, field for field, whatever
// the lines held (nulls, markers, personal data, bad lines among the records).

/** As postMessage carries it: a structured clone, the numbers' buffer transferred. */
function carried(p: PackedUnitResult): PackedUnitResult {
  return structuredClone(p, {transfer: [p.nums.buffer as ArrayBuffer]})
}

const roundTrip = (r: UnitResult): UnitResult => unpackUnitResult(carried(packUnitResult(r)))

let dir: string
const units: UnitResult[] = []
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crosstalk-unit-pack-'))
  await generateIncident({out: join(dir, 'incident'), records: 1500, seed: 29})
  const logs = join(dir, 'incident', 'logs')
  const spec = encodeParseSpec({format: 'native'})
  const set = new UnconventionalSet(['Zeta-Marker-0001'])
  let seq = 0
  for (const name of readdirSync(logs).sort()) {
    const raw = readFileSync(join(logs, name))
    const lines = (name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8').split('\n')
    // Units of 200 lines, each with a bad line, a blank one and a registered marker in the middle.
    for (let at = 0; at < lines.length; at += 200) {
      const part = lines.slice(at, at + 200)
      part.splice(100, 0, '{"ts": not json', '', JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `x-${at}`, tenant_id: 't', session_id: 's', request: 'hi', response: 'leak Zeta-Marker-0001 here, mail a.b@example.org'}))
      const bytes = new Uint8Array(Buffer.from(part.join('\n')))
      const r = processUnit({seq: seq++, bytes, offset: 0, firstLineNo: at + 1, spec, file: '1', maxLineBytes: 1 << 20}, set)
      delete r.input
      units.push(r)
    }
  }
}, 120_000)
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('a unit result packed for the main thread', () => {
  it('unpacks to what processUnit returned, on a generated incident', () => {
    let records = 0
    let bad = 0
    let tokens = 0
    let pii = 0
    let unconventional = 0
    for (const r of units) {
      // A bad line's bytes cross as a Uint8Array (postMessage clones a Buffer as one), packed or not.
      expect(roundTrip(r)).toStrictEqual({...r, items: r.items.map((i) => (i.k === 'b' ? {...i, raw: new Uint8Array(i.raw)} : i))})
      for (const item of r.items) {
        if (item.k === 'b') bad++
        else {
          records++
          tokens += item.tokens.length
          pii += item.pii.length
          unconventional += item.unconventional.length
        }
      }
    }
    // The incident exercised what the packing carries.
    expect(records).toBeGreaterThan(1500)
    expect(bad).toBeGreaterThanOrEqual(units.length)
    expect(tokens).toBeGreaterThan(20)
    expect(pii).toBeGreaterThan(units.length)
    expect(unconventional).toBe(units.length)
  })

  it('unpacks any records and bad lines in their order (property)', () => {
    const str = fc.string({unit: 'grapheme', maxLength: 12})
    const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, {nil: null})
    const int = fc.integer({min: 0, max: 2 ** 40})
    const token = fc.record({token: str, position: int}, {noNullPrototype: true})
    const record: fc.Arbitrary<RecordItem> = fc.record({
      k: fc.constant('r' as const), lineNo: int, item: int, offset: int, length: int, crc: fc.integer({min: 0, max: 2 ** 32 - 1}),
      row: fc.record({
        request_id: str, ts: str, ts_ms: fc.double({noNaN: false}), tenant_id: str, session_id: str, status: nullable(fc.integer({min: 100, max: 999})),
        endpoint: nullable(str), model: nullable(str), prefill_node: nullable(str), decode_node: nullable(str),
        prompt_tokens: nullable(int), completion_tokens: nullable(int), cached_tokens: nullable(int), stream: fc.constantFrom(0, 1),
        response_kind: str, is_error: fc.constantFrom(0, 1), error_message: nullable(str),
      }, {noNullPrototype: true}),
      noRequestText: fc.boolean(), noResponseText: fc.boolean(), noResponse: fc.boolean(),
      companions: fc.array(fc.record({file: str, line: int, offset: int, length: int, crc: int}, {requiredKeys: ['file', 'line'], noNullPrototype: true}), {maxLength: 3}),
      tokens: fc.array(token, {maxLength: 3}), unconventional: fc.array(token, {maxLength: 2}),
      pii: fc.array(fc.tuple(fc.constantFrom(0, 1), str, str), {maxLength: 3}),
      promptWords: int, responseWords: int, fpStart: int, fpPromptLen: int, fpResponseLen: int,
    }, {noNullPrototype: true})
    const badItem: fc.Arbitrary<BadItem> = fc.record({
      k: fc.constant('b' as const), lineNo: int, item: nullable(int), offset: int, length: int, reason: str,
      raw: fc.uint8Array({maxLength: 8}), truncated: fc.boolean(),
    }, {noNullPrototype: true})
    fc.assert(
      fc.property(fc.array(fc.oneof(record, record, badItem), {maxLength: 30}), fc.dictionary(str, int, {maxKeys: 3, noNullPrototype: true}), (items, notes) => {
        const r: UnitResult = {seq: 7, bytes: 100, lines: items.length, blank: 1, ignored: 2, unread: {OpenInference: 1}, bom: true, items, notes, fp: new Uint32Array([1, 2, 3, 4])}
        expect(roundTrip(r)).toStrictEqual(r)
      }),
      {numRuns: 300},
    )
  })

  it('refuses a packed result that does not unpack whole', () => {
    const r = units[0]!
    const p = packUnitResult(r)
    expect(() => unpackUnitResult({...p, text: p.text + 'x'})).toThrow(/did not unpack whole/)
    expect(() => unpackUnitResult({...p, nums: Float64Array.from([...p.nums, 0])})).toThrow(/did not unpack whole/)
  })
})
