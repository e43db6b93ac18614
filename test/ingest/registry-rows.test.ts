import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterEach, describe, expect, it} from 'vitest'
import {previewRegistry, registryEntries} from '../../src/ingest/ingest-canaries.js'
import {compareCodePoints, isConventionalKey, markerKey, memoryRegistry, type RegisteredMarker} from '../../src/extract/markers.js'
import {nativeQuickStatus, nativeRegistryIndex, nativeRegistryRows, resetNativeQuick} from '../../src/ingest/native-quick.js'
import {tempDir} from '../helpers/cli.js'

// Issue 18: triage reads a registry for its verdict before any log, and cold JavaScript took
// 0.2-0.3 s of the verdict's path over 37,000 rows. The native reader (native/src/registry.rs)
// answers only for files the TypeScript reader would read to exactly the same rows and accept
// whole; for any other it answers null and the TypeScript reader reads the file (and words the
// refusal). Property: on random registries built from the cases that reader treats specially
// (quotes, CR, BOM, JSONL, blank and white-space ids, short markers, every shape of time, columns
// reordered, repeated, missing, rows short or long of cells, non-ASCII, long lines), a native
// answer is never a file the reader refuses and always the reader's rows.

const native = nativeQuickStatus().native
const dir = tempDir()
afterEach(() => {
  delete process.env.CROSSTALK_NATIVE
  resetNativeQuick()
})

const pick = <T>(...xs: T[]) => fc.constantFrom(...xs)
const marker = fc.oneof(
  {weight: 12, arbitrary: pick('HERON-SUMMIT-8811', 'Zèbre-01', 'CANARY-0123abcd', 'a\tb\tc\td\te', '\u{1d49c}-MARKER-1', '\ufb00-MARKER-2')},
  // CANARY- and fewer than 8 hex digits is refused (both readers): a few such below.
  fc.string({unit: pick(...'0123456789abcdefABCDEF'), minLength: 8, maxLength: 20}).map((h) => `CANARY-${h}`),
  fc.string({unit: pick(...'0123456789abcdef'), minLength: 8, maxLength: 12}).map((h) => `canary-${h}`),
  fc.string({unit: pick(...'0123456789abcdefABCDEF'), minLength: 6, maxLength: 12}).map((h) => `CaNaRy-${h}`),
  pick('HERON-SUMMIT-8811', 'ZEBRA-01', 'ZEBRA-1', 'Zèbre-01', 'Zèbre01', 'CANARY-', 'CANARY-abc', 'CANARY-0123456', 'CANARY-xyz12345', ' CANARY-0123abcd', 'CANARY-0123abcd ', '\u00a0ZEBRA-TOKEN', 'a\tb\tc\td\te'),
)
const id = fc.oneof({weight: 12, arbitrary: pick('tn-a', 'sess-1', 'sé', 'x\u000by', 'a=b', '{x}')}, pick(' tn-a', 'tn-a ', '', '   ', '\t', '\u00a0', '\u2028'))
const time = fc.oneof({weight: 8, arbitrary: pick('', '2026-10-31T09:36:01.269Z', '2026-10-31T09:36:01+02:00')}, pick(
  '', '2026-10-31T09:36:01.269Z', '2026-10-31T09:36:01Z', '2026-10-31T09:36:01.123456789Z', '2026-10-31T09:36:01.1234567890Z', '2026-10-31 09:36:01Z',
  '2026-10-31T09:36:01+02:00', '2026-10-31T09:36:01-0530', '2026-10-31T09:36:01+24:00', '2026-10-31T09:36:01', '2026-10-31T09:36:60Z', '2026-02-29T00:00:00Z',
  '2024-02-29T00:00:00Z', '2026-13-01T00:00:00Z', ' 2026-10-31T09:36:01Z ', '2026-10-31T09:36:01z', '1761903361269', 'yesterday', '2026-10-31T09:36Z', '0000-01-01T00:00:00Z',
))
const columns = fc.oneof(
  // A column named twice is refused whole (its file declined): the header as written, often.
  {weight: 2, arbitrary: fc.constant(['marker', 'tenant_id', 'session_id', 'issued_at'])},
  fc.shuffledSubarray(['marker', 'tenant_id', 'session_id', 'issued_at', 'note', ' Marker ', 'TENANT_ID', 'marker'], {minLength: 2, maxLength: 8}),
)
const cellFor = (name: string) => {
  const n = name.trim().toLowerCase()
  return n === 'marker' ? marker : n === 'issued_at' ? time : n === 'note' ? fc.oneof(id, pick('a "b"', 'x\ry')) : id
}
/** A registry's text: a header, then rows (some short or long of cells), with the reader's special cases mixed in. */
const registry = columns.chain((cols) =>
  fc
    .record({
      rows: fc.array(
        // A row long of cells is refused whole (its file declined): mostly rows of the header's width.
        fc.tuple(fc.tuple(...cols.map(cellFor)), fc.oneof({weight: 12, arbitrary: fc.constant(0)}, fc.integer({min: -1, max: 1})), pick('\n', '\n', '\n', '\r\n', '\n\n', '\n \t\n')),
        {maxLength: 20},
      ),
      start: pick('', '', '', '\n', '\ufeff', '{"marker":"CANARY-0123abcd"}\n', '  \n', ' {x,'),
      end: pick('', '\n', '\r'),
      mixed: pick(null, null, null, null, null, null, null, '"', '\r', 'é', '\ufeff', 'x'.repeat(1 << 20)),
    })
    .map(({rows, start, end, mixed}) => {
      let text = start + cols.join(',') + '\n'
      rows.forEach(([cells, more, eol], i) => {
        const line = more < 0 ? cells.slice(0, -1) : more > 0 ? [...cells, 'extra'] : cells
        text += line.join(',') + (i === rows.length - 1 ? end : eol)
      })
      // One character the reader treats specially, dropped into a random row.
      if (mixed !== null && rows.length > 0) {
        const at = text.indexOf('\n', Math.floor(text.length / 2))
        if (at > 0) text = text.slice(0, at) + mixed + text.slice(at)
      }
      return text
    }),
)

const rowsOf = (entries: ReturnType<typeof registryEntries>): string[] => entries.flatMap((e) => [e.marker, e.tenant_id, e.session_id])
const keysOf = (rows: string[]): string[] => rows.filter((_, i) => i % 3 === 0).map(markerKey)
/** Per distinct key, the first row that has it, in the keys' code-point order. */
const orderOf = (rows: string[]): number[] => {
  const first = new Map<string, number>()
  keysOf(rows).forEach((k, r) => first.has(k) || first.set(k, r))
  return [...first.keys()].sort(compareCodePoints).map((k) => first.get(k)!)
}

/** Whether a key's later row names another tenant_id or session_id than its first (the reader refuses the file). */
const conflictOf = (rows: string[]): boolean => {
  const owner = new Map<string, string>()
  return keysOf(rows).some((k, r) => {
    const o = JSON.stringify([rows[3 * r + 1], rows[3 * r + 2]])
    if (!owner.has(k)) owner.set(k, o)
    return owner.get(k) !== o
  })
}
/** Each key's first row as a marker, in the order of those rows. */
const firstRows = (rows: string[]): Map<string, RegisteredMarker> => {
  const byKey = new Map<string, RegisteredMarker>()
  keysOf(rows).forEach((key, r) => byKey.has(key) || byKey.set(key, {key, marker: rows[3 * r]!, tenant: rows[3 * r + 1]!, session: rows[3 * r + 2]!}))
  return byKey
}
/** Every key, every key one character short and one longer, and keys that are no key's. */
const probesOf = (rows: string[]): string[] => [
  ...keysOf(rows).flatMap((k) => [k, k.slice(0, -1), k.slice(0, 7 + 8), `${k}0`, `${k}\uffff`]),
  'CANARY-', 'CANARY-0', 'CANARY-0123abcd', 'CANARY-ffffffffffffffffffff', 'ZEBRA', '', '\u{1d49c}',
]
let previewFile = 0
/** previewRegistry over this text, from a file of its own. */
const previewOf = (text: string) => {
  const path = join(dir, `preview-${previewFile++}.csv`)
  writeFileSync(path, text)
  return previewRegistry(path, 1 << 30)!
}
/** The markers of the keys outside the convention, as each key's first row spells them, in the order of those rows. */
const unconventionalOf = (rows: string[]): string[] => {
  const seen = new Set<string>()
  return keysOf(rows).flatMap((k, r) => (seen.has(k) ? [] : (seen.add(k), isConventionalKey(k) ? [] : [rows[3 * r]!])))
}

describe.runIf(native)('the registry read natively for the verdict', () => {
  it('answers only where the TypeScript reader accepts the file, and with its rows', () => {
    let answered = 0
    let answeredRows = 0
    let declined = 0
    let conflicts = 0
    fc.assert(
      fc.property(registry, (text) => {
        const bytes = Buffer.from(text, 'utf8')
        const rows = nativeRegistryRows(bytes)
        let reference: string[] | Error
        try {
          reference = rowsOf(registryEntries('r.csv', bytes))
        } catch (error) {
          reference = error as Error
        }
        if (rows === null) {
          declined++
          return
        }
        answered++
        answeredRows += rows.length / 3
        expect(reference).toBeInstanceOf(Array)
        expect(rows).toEqual(reference)
        // The keys as markerKey and isConventionalKey give them, and their code-point order.
        const index = nativeRegistryIndex(bytes)!
        expect(index.rows).toEqual(rows)
        // What the pass starts on before the registry is held in JavaScript.
        expect(index.conflict).toBe(conflictOf(rows))
        expect(index.unconventional).toEqual(unconventionalOf(rows))
        if (index.conflict) conflicts++
        const order = orderOf(rows)
        expect(Array.from(index.order)).toEqual(order)
        expect(index.keys).toEqual(order.map((r) => keysOf(rows)[r]))
        for (let r = 0; r < rows.length / 3; r++) expect(index.row(r)).toEqual(rows.slice(3 * r, 3 * r + 3))
        expect(Array.from(index.unconventionalAt, (i) => index.row(index.order[i]!)[0])).toEqual(index.unconventional)
        expect(index.wide).toBe(index.keys.some((k) => /[\ud800-\uffff]/.test(k)))
        if (index.conflict) return
        // The verdict's registry over those keys answers as the in-memory registry of the same rows.
        const preview = previewOf(text)
        const inMemory = memoryRegistry(firstRows(rows))
        for (const probe of probesOf(rows)) {
          expect(preview.registry.exact(probe), probe).toEqual(inMemory.exact(probe))
          expect(preview.registry.extending(probe, 2), probe).toEqual(inMemory.extending(probe, 2))
        }
        expect(preview.registry.unconventional).toEqual(inMemory.unconventional)
      }),
      {seed: 180_032, numRuns: 2500, endOnFailure: true},
    )
    // Both sides are reached.
    expect(answered).toBeGreaterThan(150)
    expect(declined).toBeGreaterThan(150)
    expect(answeredRows).toBeGreaterThan(300)
    expect(conflicts).toBeGreaterThan(20)
    expect(answered - conflicts).toBeGreaterThan(100)
  })

  it('answers for the registries people have: a plain CSV, with CRLF ends, blank lines, extra columns and times with zones', () => {
    const text = '\r\nmarker,tenant_id,session_id,issued_at,owner\r\nCANARY-0123ABCD,tn-a,sess-1,2026-10-31T09:36:01.269Z,ops\r\n\r\nHERON-SUMMIT-8811,tn-b,sess-2,2026-10-31T11:36:01+02:00\r\nCANARY-0123abcd,tn-a,sess-1,,ops\r\n'
    const bytes = Buffer.from(text)
    expect(nativeRegistryRows(bytes)).toEqual(['CANARY-0123ABCD', 'tn-a', 'sess-1', 'HERON-SUMMIT-8811', 'tn-b', 'sess-2', 'CANARY-0123abcd', 'tn-a', 'sess-1'])
    expect(nativeRegistryRows(bytes)).toEqual(rowsOf(registryEntries('r.csv', bytes)))
    // A space after a comma is the TypeScript reader's refusal to word: no native answer.
    expect(nativeRegistryRows(Buffer.from(text.replace(',tn-b,', ', tn-b ,')))).toBeNull()
  })

  it('declines every registry the TypeScript reader refuses since the QA registry report, and that reader names its line', () => {
    const H = 'marker,tenant_id,session_id,issued_at\n'
    const refused: Array<[string, RegExp]> = [
      // More cells than the header (an unquoted comma inside an id): the ids after it shifted.
      [`${H}CANARY-0123456789abcdef,Acme,Inc,sess-1,\n`, /^r\.csv:2: 5 cells, the header has 4/],
      // A column named twice: the last copy was the entry's.
      ['marker,tenant_id,session_id,Tenant_ID\nCANARY-0123456789abcdef,tn-a,sess-1,tn-b\n', /^r\.csv:1: the header names column "tenant_id" twice/],
      // `canary-<hex>`: keyed as a conventional marker that no response shows as written.
      [`${H}canary-0123456789abcdef,tn-a,sess-1,\n`, /^r\.csv:2: marker "canary-0123456789abcdef" starts "canary-"/],
      [`${H}CaNaRy-0123ABCD,tn-a,sess-1,\n`, /^r\.csv:2: marker "CaNaRy-0123ABCD" starts "CaNaRy-"/],
      // A zone-less issued_at: read as UTC, it moved by the zone's offset.
      [`${H}CANARY-0123456789abcdef,tn-a,sess-1,2026-11-01T09:00:00\n`, /^r\.csv:2: issued_at "2026-11-01T09:00:00" has no time zone/],
      // A stray quote, and CR-only line ends: rows were dropped.
      [`${H}CANARY-0123456789abcdef,tn-a,sess-1"\nCANARY-fedcba9876543210,tn-b,sess-2"\n`, /^r\.csv:2: a double quote inside an unquoted field/],
      [`${H.trim()}\rCANARY-0123456789abcdef,tn-a,sess-1,\r`, /^r\.csv:1: a CR \(carriage return\) outside a quoted field/],
    ]
    for (const [text, message] of refused) {
      expect(() => registryEntries('r.csv', Buffer.from(text)), text).toThrow(message)
      expect(nativeRegistryRows(Buffer.from(text)), text).toBeNull()
    }
    // A lone surrogate written as UTF-8 would write it (ED A0 80: no UTF-8, since CSV has no
    // escape for it): two such ids were stored as one (QA reports A and B). Both refuse it.
    const surrogate = Buffer.concat([Buffer.from(`${H}CANARY-0123456789abcdef,tn-`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(',sess-1,\n')])
    expect(() => registryEntries('r.csv', surrogate)).toThrow(/^r\.csv:2: not UTF-8 text/)
    expect(nativeRegistryRows(surrogate)).toBeNull()
  })

  it('gives triage the same registry with or without the native reader', () => {
    const lines = ['marker,tenant_id,session_id,issued_at']
    for (let i = 0; i < 3000; i++) {
      const m = i % 7 === 0 ? `ZEBRA-${i.toString(36)}-MARK` : `CANARY-${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}${i % 2 ? 'AB' : 'cd'}`
      lines.push(`${m},tn-${i % 11},sess-${i},2026-10-31T09:${String(i % 60).padStart(2, '0')}:01Z`)
    }
    // A marker repeated in the other letter case, to the same session: the first line's spelling is kept.
    lines.push(`${lines[2]!.split(',')[0]!.toUpperCase()},tn-1,sess-1,`)
    // A marker outside the convention given twice, to the same session: listed once, in its first place.
    lines.push('ZEBRA-0-MARK,tn-0,sess-0,')
    const path = join(dir, 'registry.csv')
    writeFileSync(path, `${lines.join('\n')}\n`)
    expect(nativeRegistryRows(Buffer.from(`${lines.join('\n')}\n`))).not.toBeNull()
    const summary = (p: NonNullable<ReturnType<typeof previewRegistry>>) => ({
      sha256: p.sha256,
      markers: p.markers,
      unconventional: p.unconventional,
      probes: ['CANARY-9e3779b1', 'CANARY-9E3779B1', 'ZEBRA-7-MARK', 'CANARY-0000'].map((k) => [p.registry.exact(k), p.registry.extending(k, 3)]),
    })
    const withNative = summary(previewRegistry(path, 1 << 20)!)
    process.env.CROSSTALK_NATIVE = '0'
    resetNativeQuick()
    expect(nativeRegistryRows(Buffer.from('marker,tenant_id,session_id\n'))).toBeNull()
    expect(summary(previewRegistry(path, 1 << 20)!)).toEqual(withNative)
    expect(withNative.markers).toBe(3000)
  })
})
