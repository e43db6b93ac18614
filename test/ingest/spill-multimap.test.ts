import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {PairSet} from '../../src/ingest/pair-set.js'
import {SpillingMultimap} from '../../src/ingest/spill-multimap.js'

// The duplicate rule's table keeps a capped part in memory and the rest in sorted runs on disk.
// Its answers must be those of a plain map whatever the cap, however many runs, and wherever a
// key's entries fall (in memory, in one run, across runs, across a run's block boundaries).

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ct-spill-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

describe('SpillingMultimap', () => {
  it('answers as a plain map, for any cap and any order of adds and lookups', () => {
    // Few distinct keys (so that keys repeat within and across runs, and one key's entries span
    // blocks of 512) and many (so that most lookups are of absent keys, through the filters).
    const key = fc.oneof(fc.integer({min: 0, max: 40}), fc.integer({min: 0, max: 0xffffffff}))
    const op = fc.record({add: fc.boolean(), key, value: fc.integer({min: 0, max: 0xffffffff})})
    fc.assert(
      fc.property(fc.integer({min: 16, max: 700}), fc.array(op, {minLength: 1, maxLength: 3000, size: 'max'}), (cap, ops) => {
        const map = new SpillingMultimap({memoryEntries: cap, dir})
        const ref = new Map<number, number[]>()
        try {
          for (const o of ops) {
            if (o.add) {
              map.add(o.key, o.value)
              ref.set(o.key, [...(ref.get(o.key) ?? []), o.value])
              continue
            }
            const values = ref.get(o.key) ?? []
            expect(map.has(o.key, o.value)).toBe(values.includes(o.value))
            const seen: number[] = []
            expect(map.some(o.key, (v) => (seen.push(v), false))).toBe(false)
            expect(seen.sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b))
          }
          // Every value stored is found again at the end.
          for (const [k, values] of ref) for (const v of values) expect(map.has(k, v)).toBe(true)
          expect(map.size).toBe([...ref.values()].reduce((n, v) => n + v.length, 0))
        } finally {
          map.close()
        }
      }),
      {numRuns: 60},
    )
  })

  it('writes runs past its cap, finds keys spread over many, and leaves no file behind', () => {
    const map = new SpillingMultimap({memoryEntries: 1000, dir})
    // 20,000 entries: 19 runs and a table; key k holds values k and k + 1 (one of them added 9,000 adds later)
    for (let i = 0; i < 10_000; i++) map.add(i * 7919, i)
    for (let i = 0; i < 10_000; i++) map.add(i * 7919, i + 1)
    expect(map.spilled).toBe(19)
    expect(map.size).toBe(20_000)
    for (let i = 0; i < 10_000; i += 37) {
      expect(map.has(i * 7919, i)).toBe(true)
      expect(map.has(i * 7919, i + 1)).toBe(true)
      expect(map.has(i * 7919, i + 2)).toBe(false)
      expect(map.has(i * 7919 + 1, i)).toBe(false)
    }
    // The scratch file is unlinked as soon as it is opened; close() removes its folder.
    const made = readdirSync(dir)
    expect(made).toHaveLength(1)
    expect(readdirSync(join(dir, made[0]!))).toEqual([])
    map.close()
    expect(readdirSync(dir)).toEqual([])
    expect(map.has(0, 0)).toBe(false)
  })

  it('finds every value of a key that fills several blocks of a run', () => {
    const map = new SpillingMultimap({memoryEntries: 4000, dir})
    for (let i = 0; i < 1500; i++) map.add(5, i)
    for (let i = 0; i < 2600; i++) map.add(i < 1300 ? 4 : 6, i)
    expect(map.spilled).toBe(1)
    const values: number[] = []
    map.some(5, (v) => (values.push(v), false))
    expect(values.sort((a, b) => a - b)).toEqual(Array.from({length: 1500}, (_, i) => i))
    map.close()
  })

  it('says in one line which folder it could not write its scratch file in', () => {
    const missing = join(dir, 'no-such-folder')
    const map = new SpillingMultimap({memoryEntries: 16, dir: missing})
    for (let i = 0; i < 16; i++) map.add(i, i)
    expect(() => map.add(16, 16)).toThrow(/^cannot write the duplicate table's scratch file under .*no-such-folder \(ENOENT\): past 16 records it needs a writable temporary folder \(set TMPDIR\)$/)
    map.close()
  })

  it('writes nothing below its cap', () => {
    const map = new SpillingMultimap({memoryEntries: 1000, dir})
    for (let i = 0; i < 1000; i++) map.add(i, i)
    expect(map.spilled).toBe(0)
    expect(readdirSync(dir)).toEqual([])
    map.add(1000, 1000)
    expect(map.spilled).toBe(1)
    map.close()
  })
})

it('PairSet keeps the first of each pair across runs', () => {
  const set = new PairSet({memoryEntries: 64, dir})
  const firsts = Array.from({length: 2000}, (_, i) => set.addHashed(i % 1500, (i % 1500) ^ 0x5555))
  expect(firsts.filter(Boolean)).toHaveLength(1500)
  expect(firsts.slice(1500).some(Boolean)).toBe(false)
  // Same first hash, other second hash: a different pair.
  expect(set.addHashed(3, 0)).toBe(true)
  set.close()
})

describe('SpillingMultimap spills', () => {
  let dir2: string
  beforeEach(() => {
    dir2 = mkdtempSync(join(tmpdir(), 'ct-spill-alloc-'))
  })
  afterEach(() => rmSync(dir2, {recursive: true, force: true}))

  it('sorts a run inside the table itself: no buffer the size of the table is allocated per spill', () => {
    // A spill's run was a new BigUint64Array of every entry (4 MB at the default cap, each time,
    // freed only at V8's next collection); now it is a view over the key array.
    const Real = globalThis.BigUint64Array
    const allocated: number[] = []
    class Counting extends Real {
      constructor(...args: unknown[]) {
        if (typeof args[0] === 'number') allocated.push(args[0])
        super(...(args as [ArrayBuffer, number, number]))
      }
    }
    globalThis.BigUint64Array = Counting as unknown as BigUint64ArrayConstructor
    const map = new SpillingMultimap({memoryEntries: 4096, dir: dir2})
    try {
      for (let i = 0; i < 3 * 4096 + 10; i++) map.add(Math.imul(i, 0x9e3779b1), i)
      expect(map.spilled).toBe(3)
    } finally {
      globalThis.BigUint64Array = Real
    }
    expect(allocated.filter((n) => n >= 4096)).toEqual([])
    for (let i = 0; i < 3 * 4096 + 10; i += 13) expect(map.has(Math.imul(i, 0x9e3779b1), i)).toBe(true)
    map.close()
  })
})
