import fc from 'fast-check'
import {expect, it} from 'vitest'
import {AhoCorasick, type AcMatch} from '../../src/extract/aho-corasick.js'

// The automaton is held in typed arrays, numbered breadth-first (a tenth of the memory of a
// Map per node). Property: on random pattern sets (overlapping, nested, repeated, empty, over
// a tiny alphabet and over all of UTF-16) and random texts, every match, in the same order,
// is the one the Map-based automaton it replaced finds.

/** The automaton as it was (a Map per node): the reference. */
class MapAhoCorasick {
  private readonly next: Array<Map<number, number>> = [new Map()]
  private readonly fail: number[] = [0]
  /** Pattern ids ending exactly at each node. */
  private readonly out: number[][] = [[]]
  /** Nearest node on the fail chain that ends a pattern (dictionary suffix link), -1 if none. */
  private readonly dict: number[] = [-1]
  private readonly lengths: number[] = []

  constructor(patterns: readonly string[]) {
    patterns.forEach((pattern, id) => {
      this.lengths.push(pattern.length)
      if (pattern.length === 0) return
      let node = 0
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern.charCodeAt(i)
        let child = this.next[node]!.get(c)
        if (child === undefined) {
          child = this.next.length
          this.next.push(new Map())
          this.fail.push(0)
          this.out.push([])
          this.dict.push(-1)
          this.next[node]!.set(c, child)
        }
        node = child
      }
      this.out[node]!.push(id)
    })
    // Breadth-first: a node's fail link is the longest proper suffix that is also a path.
    const queue: number[] = []
    for (const child of this.next[0]!.values()) queue.push(child)
    for (let qi = 0; qi < queue.length; qi++) {
      const node = queue[qi]!
      for (const [c, child] of this.next[node]!) {
        let f = this.fail[node]!
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!
        const target = this.next[f]!.get(c)
        this.fail[child] = target !== undefined && target !== child ? target : 0
        const fc = this.fail[child]!
        this.dict[child] = this.out[fc]!.length > 0 ? fc : this.dict[fc]!
        queue.push(child)
      }
    }
  }

  get size(): number {
    return this.lengths.length
  }

  /** Every occurrence of every pattern, overlapping ones included. */
  findAll(text: string): AcMatch[] {
    const found: AcMatch[] = []
    if (this.next[0]!.size === 0) return found
    let node = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      let child = this.next[node]!.get(c)
      while (child === undefined && node !== 0) {
        node = this.fail[node]!
        child = this.next[node]!.get(c)
      }
      node = child ?? 0
      for (let n = this.out[node]!.length > 0 ? node : this.dict[node]!; n > 0; n = this.dict[n]!) {
        for (const id of this.out[n]!) found.push({pattern: id, start: i + 1 - this.lengths[id]!})
      }
    }
    return found
  }
}

const tiny = fc.string({unit: fc.constantFrom('a', 'b', 'c', '-'), maxLength: 6})
const wide = fc.string({unit: 'binary', maxLength: 5})

it('finds what the Map-based automaton finds, in the same order', () => {
  for (const unit of [tiny, wide]) {
    fc.assert(
      fc.property(fc.array(unit, {maxLength: 40}), fc.array(fc.oneof(unit, fc.string({unit: fc.constantFrom('a', 'b', 'c', '-', 'x'), maxLength: 60})), {maxLength: 6}), (patterns, texts) => {
        const fresh = new AhoCorasick(patterns)
        const ref = new MapAhoCorasick(patterns)
        // The same tables in shared memory, as a parse worker reads them (built by the main thread).
        const shared = AhoCorasick.fromShared(structuredClone(fresh.share()))
        expect(fresh.size).toBe(patterns.length)
        expect(shared.size).toBe(patterns.length)
        // texts made of the patterns themselves, so that matches are many
        for (const text of [...texts, patterns.join(''), patterns.join('-')]) {
          expect(fresh.findAll(text)).toEqual(ref.findAll(text))
          expect(shared.findAll(text)).toEqual(ref.findAll(text))
        }
      }),
      {numRuns: 400},
    )
  }
})

it('finds markers among many that share long prefixes', () => {
  const markers = Array.from({length: 3000}, (_, i) => `${['ZEBRA', 'HERON', 'ZEBU'][i % 3]}-SUMMIT-${String(i).padStart(4, '0')}`)
  const ac = new AhoCorasick(markers)
  const text = `see ${markers[2999]} and ${markers[5]}, not ZEBRA-SUMMIT-99999 (a longer one holds ${markers[999]!.slice(0, -1)})`
  const found: AcMatch[] = ac.findAll(text)
  expect(found.map((m) => markers[m.pattern])).toEqual([markers[2999], markers[5]])
  expect(found[0]!.start).toBe(4)
  expect(found).toEqual(new MapAhoCorasick(markers).findAll(text))
})

it('shares its tables with other threads without copying them', () => {
  const shared = new AhoCorasick(['ZEBRA-SUMMIT-6820', 'HERON-HARBOR-4205']).share()
  for (const table of Object.values(shared)) expect(table.buffer).toBeInstanceOf(SharedArrayBuffer)
  // A write through one view is seen through the structured clone another thread would get.
  const clone = structuredClone(shared)
  shared.ends[0] = 7
  expect(clone.ends[0]).toBe(7)
})
