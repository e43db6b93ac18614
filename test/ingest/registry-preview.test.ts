import {statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {sqliteRegistry} from '../../src/detect/registry.js'
import {compareCodePoints} from '../../src/extract/markers.js'
import {ingestCanaries, previewRegistry} from '../../src/ingest/ingest-canaries.js'
import {nativeQuickStatus} from '../../src/ingest/native-quick.js'
import {countCanaries, unconventionalMarkers} from '../../src/store/canaries.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

// Issue 18: triage's verdict classifies against a registry read into memory (previewRegistry)
// and stores it into the case only after the pass. Every answer the verdict asks of it must be
// the case's answer over the same file: exact lookups, the range search (SQLite's BINARY
// collation is UTF-8 byte order, and the search stops before key + U+FFFF), the markers outside
// the convention and the count. Property: on random registries whose keys share prefixes, run
// into non-ASCII, astral and U+FFFF characters, repeat markers in other letter cases and lines,
// both registries answer the same probes the same.

const SEED = 180_031
const dir = tempDir()
const cases: CaseDb[] = []
afterAll(() => {
  for (const db of cases) db.close()
})

const P = 'CANARY-'
const hex = (min: number, max: number) => fc.string({unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: min, maxLength: max})
/** Characters whose UTF-16 order differs from their UTF-8 order, and the one that bounds the range search. */
const odd = fc.constantFrom('\uffff', '\ufffe', '\ue000', '\ud83d\ude00', '\u{10ffff}', 'é', '-', 'z', ' ', 'g')
/** The first n characters (tokens are whole characters: a lone surrogate is no key). */
const cut = (s: string, n: number): string => [...s].slice(0, n).join('')
const tail = fc.array(fc.oneof(odd, fc.constantFrom(...'0123456789abcdef')), {minLength: 0, maxLength: 4}).map((a) => a.join(''))

describe('the registry held in memory for the verdict', () => {
  it('answers as the case does once the same file is stored', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        hex(8, 9).chain((stem) =>
          fc.record({
            markers: fc.array(
              fc.record({
                marker: fc.oneof(
                  fc.tuple(hex(0, 12), tail).map(([h, t]) => P + stem + h + t),
                  hex(8, 20).map((h) => P + h),
                  fc.tuple(fc.constantFrom('ZEBRA-', 'Zèbre-', 'canary_', '\ue000x-', '\ud83d\ude00-'), hex(4, 8), tail).map(([a, b, c]) => a + b + c),
                  // (`canary-<hex>` is refused at ingest: the marker convention is CANARY- in upper case.)
                ),
                session: fc.integer({min: 0, max: 40}),
              }),
              {minLength: 1, maxLength: 60},
            ),
            probes: fc.array(fc.oneof(fc.tuple(hex(0, 14), tail).map(([h, t]) => (P + stem + h + t).toLowerCase()), hex(0, 4).map((h) => P + stem.slice(0, 8).toLowerCase() + h)), {minLength: 1, maxLength: 20}),
          }),
        ),
        async ({markers, probes}) => {
          // A marker's session is fixed by its key, so that repeats are not conflicts.
          const sessionOf = new Map<string, number>()
          const rows = markers.map(({marker: given, session}) => {
            // Outside the convention a marker needs 8 characters, inside it 8 hex digits (ingestCanaries refuses shorter).
            const marker = (/^CANARY-[0-9a-f]+$/i.test(given) ? given.length - 7 >= 8 : [...given].length >= 8) ? given : `${given}-padding`
            const key = /^CANARY-[0-9a-f]+$/i.test(marker) ? P + marker.slice(7).toLowerCase() : marker
            if (!sessionOf.has(key)) sessionOf.set(key, session)
            return {marker, session: sessionOf.get(key)!}
          })
          // The same markers again further down, their hex in the other case: the first line's spelling is the one kept.
          const swapped = (m: string) => (/^CANARY-[0-9a-f]+$/i.test(m) ? P + [...m.slice(7)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('') : m)
          rows.push(...rows.filter((_, i) => i % 3 === 0).map((r) => ({...r, marker: swapped(r.marker)})))
          const path = join(dir, `r${++n}.jsonl`)
          writeFileSync(path, rows.map((r) => JSON.stringify({marker: r.marker, tenant_id: `t${r.session % 3}`, session_id: `s${r.session}`})).join('\n') + '\n')
          const preview = previewRegistry(path, 1 << 20)!
          expect(preview).not.toBeNull()
          const db = openCase(join(dir, `c${n}.db`), {create: true})
          cases.push(db)
          await ingestCanaries(db, {path, now: () => new Date('2026-11-01T00:00:00Z')})
          const stored = sqliteRegistry(db)
          expect(preview.markers).toBe(countCanaries(db))
          expect([...preview.unconventional].sort()).toEqual([...unconventionalMarkers(db)].sort())
          expect(new Set(preview.registry.unconventional.map((m) => m.key))).toEqual(new Set(stored.unconventional.map((m) => m.key)))
          const keys = [...new Set(rows.map((r) => (/^CANARY-[0-9a-f]+$/i.test(r.marker) ? P + r.marker.slice(7).toLowerCase() : r.marker)))]
          for (const key of [...keys, ...probes, ...keys.map((k) => cut(k, 15)), ...keys.map((k) => cut(k, [...k].length - 1))]) {
            expect(preview.registry.exact(key)).toEqual(stored.exact(key))
            for (const limit of [1, 2, 64]) expect(preview.registry.extending(key, limit)).toEqual(stored.extending(key, limit))
          }
          db.close()
          cases.pop()
        },
      ),
      {seed: SEED, numRuns: 120},
    )
  })

  it('gives the range search\'s keys in SQLite\'s order where UTF-16 order differs', async () => {
    const stem = `${P}0123abcd`
    const markers = ['a\ue000', 'a\ud83d\ude00', 'a\ufffe-x', 'b', '\ud83d\ude00z', '\uffff', 'a\u00e9'].map((t) => `${stem}${t}`)
    const path = join(dir, 'order.jsonl')
    writeFileSync(path, markers.map((m, i) => JSON.stringify({marker: m, tenant_id: 't', session_id: `s${i}`})).join('\n') + '\n')
    const preview = previewRegistry(path, 1 << 20)!
    const db = openCase(join(dir, 'order.db'), {create: true})
    cases.push(db)
    await ingestCanaries(db, {path, now: () => new Date('2026-11-01T00:00:00Z')})
    const keys = (r: typeof preview.registry) => r.extending(stem, 64).map((m) => m.key)
    // U+FFFF and what follows it in UTF-8 (characters from U+10000) end the search.
    expect(keys(preview.registry)).toEqual([`${stem}a\u00e9`, `${stem}a\ue000`, `${stem}a\ufffe-x`, `${stem}a\ud83d\ude00`, `${stem}b`])
    expect(keys(preview.registry)).toEqual(keys(sqliteRegistry(db)))
  })

  it('orders strings as UTF-8 bytes do', () => {
    fc.assert(
      fc.property(fc.string({unit: 'binary', maxLength: 6}), fc.string({unit: 'binary', maxLength: 6}), (a, b) => {
        const bytes = Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))
        expect(Math.sign(compareCodePoints(a, b))).toBe(bytes)
      }),
      {seed: SEED, numRuns: 3000},
    )
  })

  it('is not held for a registry that gives a marker to two sessions, nor past its size bound', () => {
    const path = join(dir, 'conflict.csv')
    writeFileSync(path, `marker,tenant_id,session_id\n${P}0123456789abcdef,t1,s1\n${P}0123456789ABCDEF,t1,s2\n`)
    expect(previewRegistry(path, 1 << 20)).toBeNull()
    const fine = join(dir, 'fine.csv')
    writeFileSync(fine, `marker,tenant_id,session_id\n${P}0123456789abcdef,t1,s1\n${P}0123456789ABCDEF,t1,s1\n`)
    expect(previewRegistry(fine, 1 << 20)).toMatchObject({markers: 1})
    expect(previewRegistry(fine, 10)).toBeNull()
  })

  it('holds a file the TypeScript reader reads only up to its own, smaller bound', () => {
    // A map of every marker takes about twice the native index's memory: a JSONL registry (which
    // the native reader leaves to TypeScript) over mapMaxBytes is not held, whatever maxBytes.
    const jsonl = join(dir, 'bound.jsonl')
    writeFileSync(jsonl, [1, 2, 3].map((i) => JSON.stringify({marker: `${P}0123456789abcde${i}`, tenant_id: 't', session_id: `s${i}`})).join('\n') + '\n')
    const size = statSync(jsonl).size
    expect(previewRegistry(jsonl, 1 << 20, size - 1)).toBeNull()
    expect(previewRegistry(jsonl, 1 << 20, size)).toMatchObject({markers: 3})
    // A plain CSV is read natively where the addon loads, and held up to maxBytes; without the
    // addon it is the TypeScript reader's, and its bound applies.
    const csv = join(dir, 'bound.csv')
    writeFileSync(csv, `marker,tenant_id,session_id\n${P}0123456789abcdef,t1,s1\n`)
    const held = previewRegistry(csv, 1 << 20, 0)
    if (nativeQuickStatus().native) expect(held).toMatchObject({markers: 1})
    else expect(held).toBeNull()
  })

  it('refuses a bad line as storing it would, before anything is stored', () => {
    const path = join(dir, 'bad.csv')
    writeFileSync(path, `marker,tenant_id,session_id\n${P}0123456789abcdef,t1,s1\nabc,t1,s2\n`)
    expect(() => previewRegistry(path, 1 << 20)).toThrow(/bad\.csv:3: marker "abc" is too short/)
  })
})
