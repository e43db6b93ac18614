import {closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync} from 'node:fs'
import {endianness, tmpdir} from 'node:os'
import {join} from 'node:path'
import {CliError} from '../errors.js'

// The duplicate rule's memory (the quick pass's PairSet, ingest's RequestIdSet): a 32-bit key
// (a hash of (source, request_id)) to 32-bit values, in a table that grows with the records
// read. Held whole in memory it was 9 bytes a slot at half load: about 150 MB at 5 million
// records, the one part of ingest that grew without bound. Here the table in memory is capped
// (by default 2^18 entries, 4.7 MB); when it is full its entries are sorted and appended to a
// scratch file as a run, and the run keeps in memory only a Bloom filter (10 bits an entry, so
// 6 MB at 5 million) and the first key of every block of 512 entries. A lookup that the filters
// rule out (all but about 1% of new keys) touches no file; any other reads the one or two blocks
// that can hold the key. Below the cap nothing is written and nothing changes.
//
// The scratch file holds hashes and record ids, nothing read from a log. It is unlinked as soon
// as it is opened where the system allows (so that no crash leaves it behind) and closed by close().

/**
 * Entries held in memory before a run is written. 2^19 (9.4 MB) held 4.7 MB more through the
 * pass and the ingest of any case past 262,144 records. The price of the smaller table is twice
 * the runs, so twice the filters a lookup tests (one cache line each), about 25 million more
 * tests at 5 million records. Measured: 5 million random adds, each after a lookup, took
 * 3.5-3.8 s in place of 2.4-2.7 s, about 0.25% of a 5M-record triage.
 */
export const MEMORY_ENTRIES = 1 << 18
const BLOCK = 512
const BLOOM_BITS_PER_ENTRY = 10
const BLOOM_PROBES = 6
// An entry in a run is one u64, key in the high word, so that sorting the u64s sorts by key.
const KEY = endianness() === 'LE' ? 1 : 0
const VALUE = 1 - KEY

interface Run {
  /** Where its entries start in the scratch file, in entries. */
  start: number
  count: number
  /** The key of entry i * BLOCK, for every block. */
  firsts: Uint32Array
  /** Blocked Bloom filter over its keys: 512-bit blocks of 16 words. */
  bloom: Uint32Array
}

export class SpillingMultimap {
  private keys: Uint32Array
  private values: Uint32Array
  private used: Uint8Array
  private count = 0
  private readonly runs: Run[] = []
  private file: {fd: number; path: string; dir: string; entries: number} | null = null
  private scratch = new Uint32Array(4 * BLOCK)

  constructor(private readonly options: {memoryEntries?: number; dir?: string; sizeHint?: number} = {}) {
    const cap = Math.min(slotsFor(Math.max(512, options.sizeHint ?? 0)), slotsFor(this.memoryEntries))
    this.keys = new Uint32Array(cap)
    this.values = new Uint32Array(cap)
    this.used = new Uint8Array(cap)
  }

  private get memoryEntries(): number {
    return Math.max(16, this.options.memoryEntries ?? MEMORY_ENTRIES)
  }

  /** Entries stored (in memory and in runs). */
  get size(): number {
    return this.count + this.runs.reduce((n, r) => n + r.count, 0)
  }

  /** Runs written so far (0 while everything fits in memory). */
  get spilled(): number {
    return this.runs.length
  }

  /** Whether (key, value) is stored. */
  has(key: number, value: number): boolean {
    value >>>= 0
    return this.some(key, (v) => v === value)
  }

  /** Whether `test` holds for some value stored under key (called for each until it does). */
  some(key: number, test: (value: number) => boolean): boolean {
    key >>>= 0
    const {keys, values, used} = this
    const mask = keys.length - 1
    for (let p = key & mask; used[p] === 1; p = (p + 1) & mask) if (keys[p] === key && test(values[p]!)) return true
    for (let i = this.runs.length - 1; i >= 0; i--) {
      const run = this.runs[i]!
      if (mayHold(run.bloom, key) && this.someInRun(run, key, test)) return true
    }
    return false
  }

  add(key: number, value: number): void {
    key >>>= 0
    if (this.count >= this.memoryEntries) this.spill()
    else if ((this.count + 1) * 2 > this.keys.length) this.grow()
    const mask = this.keys.length - 1
    let p = key & mask
    while (this.used[p] === 1) p = (p + 1) & mask
    this.keys[p] = key
    this.values[p] = value
    this.used[p] = 1
    this.count++
  }

  /** Closes and removes the scratch file; the map is empty after. */
  close(): void {
    this.runs.length = 0
    this.count = 0
    this.used.fill(0)
    const f = this.file
    this.file = null
    if (f === null) return
    closeSync(f.fd)
    rmSync(f.dir, {recursive: true, force: true})
  }

  private grow(): void {
    const {keys, values, used} = this
    const cap = keys.length * 2
    this.keys = new Uint32Array(cap)
    this.values = new Uint32Array(cap)
    this.used = new Uint8Array(cap)
    const mask = cap - 1
    for (let i = 0; i < keys.length; i++) {
      if (used[i] !== 1) continue
      let p = keys[i]! & mask
      while (this.used[p] === 1) p = (p + 1) & mask
      this.keys[p] = keys[i]!
      this.values[p] = values[i]!
      this.used[p] = 1
    }
  }

  /**
   * Writes the entries in memory as a sorted run and empties the table (keeping its size). The
   * run is built and sorted inside the table's own key array, which has room for it (at half
   * load its 2n words hold the n entries' 2n), so that a spill allocates no second copy of the
   * table: a 4 MB BigUint64Array per spill at the default cap, the largest short-lived buffer
   * of a load past it, freed only when V8 next collects its object.
   */
  private spill(): void {
    const n = this.count
    const {keys, values, used} = this
    // add() grows the table before it is more than half full, so the run fits in the key array.
    if (keys.length < 2 * n) throw new Error(`the duplicate table spills ${n} entries from ${keys.length} slots`)
    // The entries to the front of both arrays, in slot order (j <= p: nothing unread is overwritten).
    let j = 0
    for (let p = 0; p < keys.length; p++) {
      if (used[p] !== 1) continue
      keys[j] = keys[p]!
      values[j] = values[p]!
      j++
    }
    // Interleaved into u64s over the key array, from the last entry down: entry i's words are
    // 2i and 2i + 1, never below i, so no key still to be read is overwritten.
    for (let i = n - 1; i >= 0; i--) {
      const key = keys[i]!
      keys[2 * i + VALUE] = values[i]!
      keys[2 * i + KEY] = key
    }
    const sorted = new BigUint64Array(keys.buffer, 0, n)
    const words = keys
    sorted.sort()
    const file = this.openFile()
    const bytes = new Uint8Array(keys.buffer, 0, 8 * n)
    for (let done = 0; done < bytes.length; ) done += writeSync(file.fd, bytes, done, bytes.length - done, file.entries * 8 + done)
    const firsts = new Uint32Array(Math.ceil(n / BLOCK))
    for (let b = 0; b < firsts.length; b++) firsts[b] = words[2 * b * BLOCK + KEY]!
    const bloom = new Uint32Array(16 * Math.max(1, Math.ceil((n * BLOOM_BITS_PER_ENTRY) / 512)))
    for (let i = 0; i < n; i++) setBloom(bloom, words[2 * i + KEY]!)
    this.runs.push({start: file.entries, count: n, firsts, bloom})
    file.entries += n
    used.fill(0)
    this.count = 0
  }

  private someInRun(run: Run, key: number, test: (value: number) => boolean): boolean {
    // Blocks [from, to) can hold key: the one before the first block starting at or after key, up
    // to the first block starting after it.
    const {firsts} = run
    const from = Math.max(0, search(firsts, key, false) - 1)
    const to = search(firsts, key, true)
    const first = from * BLOCK
    const n = Math.min(run.count, to * BLOCK) - first
    if (this.scratch.length < 2 * n) this.scratch = new Uint32Array(2 * n)
    const words = this.scratch
    const bytes = new Uint8Array(words.buffer, 0, 8 * n)
    const at = (run.start + first) * 8
    for (let done = 0; done < bytes.length; ) {
      const got = readSync(this.file!.fd, bytes, done, bytes.length - done, at + done)
      if (got === 0) throw new Error('the duplicate table\'s scratch file ended early')
      done += got
    }
    // The first entry with this key, then each after it that shares it.
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (words[2 * mid + KEY]! < key) lo = mid + 1
      else hi = mid
    }
    // Values are read out before any is tested: a test may look this map up again.
    const found: number[] = []
    for (let i = lo; i < n && words[2 * i + KEY] === key; i++) found.push(words[2 * i + VALUE]!)
    return found.some(test)
  }

  private openFile(): NonNullable<SpillingMultimap['file']> {
    if (this.file) return this.file
    const parent = this.options.dir ?? tmpdir()
    let dir: string
    let fd: number
    try {
      dir = mkdtempSync(join(parent, 'crosstalk-seen-'))
      fd = openSync(join(dir, 'runs'), 'w+', 0o600)
    } catch (error) {
      throw new CliError(`cannot write the duplicate table's scratch file under ${parent} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): past ${this.memoryEntries.toLocaleString('en-US')} records it needs a writable temporary folder (set TMPDIR)`)
    }
    const path = join(dir, 'runs')
    // Unlinked at once where the system allows: no crash can leave it behind.
    try {
      unlinkSync(path)
    } catch {
      // kept until close()
    }
    this.file = {fd, path, dir, entries: 0}
    return this.file
  }
}

function slotsFor(entries: number): number {
  let cap = 1024
  while (cap < entries * 2) cap *= 2
  return cap
}

/** First i with a[i] >= key (a sorted), or with a[i] > key when `after`. */
function search(a: Uint32Array, key: number, after: boolean): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < key || (after && a[mid] === key)) lo = mid + 1
    else hi = mid
  }
  return lo
}

// The filter's block and bit positions come from hashes of the key other than the key itself
// (which also picks the key's slot in memory), by double hashing within one 512-bit block.
function setBloom(bloom: Uint32Array, key: number): void {
  bloomProbe(bloom, key, true)
}

function mayHold(bloom: Uint32Array, key: number): boolean {
  return bloomProbe(bloom, key, false)
}

/** Sets the key's bits (set) or tells whether all of them are set. */
function bloomProbe(bloom: Uint32Array, key: number, set: boolean): boolean {
  const base = (fmix32(key ^ 0x9e3779b9) % (bloom.length >>> 4)) << 4
  const g = fmix32(key + 0x7f4a7c15)
  const step = (g >>> 16) | 1
  for (let i = 0; i < BLOOM_PROBES; i++) {
    const bit = (g + i * step) & 511
    const w = base + (bit >>> 5)
    if (set) bloom[w] = bloom[w]! | (1 << (bit & 31))
    else if ((bloom[w]! & (1 << (bit & 31))) === 0) return false
  }
  return true
}

/** murmur3's 32-bit finaliser: spreads every input bit over the low bits a table indexes by. */
export function fmix32(x: number): number {
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  return (x ^ (x >>> 16)) >>> 0
}
