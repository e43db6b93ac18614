// Aho-Corasick multi-pattern matcher (case-sensitive, over UTF-16 code units). Used only
// for registered markers that do not follow the CANARY-<hex> convention: one pass over the
// text finds all of them whatever their number.
//
// The trie is held in typed arrays, numbered breadth-first from the patterns sorted, so that
// a node's children are consecutive nodes (those from firstChild[n] to firstChild[n + 1]) in
// the order of their labels: about 22 bytes a node. A Map per node, as before, cost about ten
// times that: 54,000 markers of a 5M-record incident made about 900,000 nodes, held once by
// each parse worker and by the main thread.

export interface AcMatch {
  pattern: number
  /** Offset of the first code unit of the match in the text. */
  start: number
}

/**
 * An automaton's tables in memory that threads share (SharedArrayBuffer): built once on the
 * main thread and handed to every parse worker, instead of each worker building its own copy
 * (8 MB for the 53,950 unconventional markers of a 5M-record incident, measured).
 */
export interface SharedAutomaton {
  lengths: Int32Array
  sortedIds: Int32Array
  firstChild: Int32Array
  label: Uint16Array
  fail: Int32Array
  dict: Int32Array
  endAt: Int32Array
  ends: Int32Array
  rootNext: Int32Array
}

export class AhoCorasick {
  /** Per pattern id: its length. */
  private lengths: Int32Array
  /** Pattern ids, non-empty ones only, in the order of their texts (ties by id). */
  private sortedIds: Int32Array
  /** Per node: the first of its children (node ids); one more entry closes the last node's. */
  private firstChild: Int32Array
  /** Per node: the code unit on the edge into it (the root's is unused). */
  private label: Uint16Array
  private fail: Int32Array
  /** Nearest node on the fail chain that ends a pattern (dictionary suffix link), -1 if none. */
  private dict: Int32Array
  /** Per node: its patterns (those ending exactly there) are sortedIds[endAt[n], endAt[n] + ends[n]). */
  private endAt: Int32Array
  private ends: Int32Array
  /** The root's child along each code unit (0: none): most steps of a scan start from the root. */
  private rootNext = new Int32Array(65536)

  /** The automaton over tables built by another thread's `share()`: nothing is copied. */
  static fromShared(shared: SharedAutomaton): AhoCorasick {
    const a = new AhoCorasick([])
    Object.assign(a, {...shared})
    return a
  }

  /** This automaton's tables copied into shared memory, for other threads' fromShared(). */
  share(): SharedAutomaton {
    const copy = <T extends Int32Array | Uint16Array>(from: T): T => {
      const to = new (from.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(from.byteLength))
      to.set(from)
      return to
    }
    return {
      lengths: copy(this.lengths), sortedIds: copy(this.sortedIds), firstChild: copy(this.firstChild), label: copy(this.label), fail: copy(this.fail),
      dict: copy(this.dict), endAt: copy(this.endAt), ends: copy(this.ends), rootNext: copy(this.rootNext),
    }
  }

  constructor(patterns: readonly string[]) {
    this.lengths = Int32Array.from(patterns, (p) => p.length)
    const ids = [...patterns.keys()].filter((id) => patterns[id]!.length > 0)
    ids.sort((a, b) => (patterns[a]! < patterns[b]! ? -1 : patterns[a]! > patterns[b]! ? 1 : a - b))
    this.sortedIds = Int32Array.from(ids)
    const sorted = ids.map((id) => patterns[id]!)
    const text = (k: number): string => sorted[k]!
    // One node per distinct prefix: each pattern adds the part past its common prefix with the one before.
    let nodes = 1
    for (let k = 0; k < ids.length; k++) nodes += text(k).length - (k === 0 ? 0 : commonPrefix(text(k - 1), text(k)))
    this.firstChild = new Int32Array(nodes + 1)
    this.label = new Uint16Array(nodes)
    this.fail = new Int32Array(nodes)
    this.dict = new Int32Array(nodes).fill(-1)
    this.endAt = new Int32Array(nodes)
    this.ends = new Int32Array(nodes)
    // Breadth-first over ranges of the sorted patterns: node n stands for the patterns
    // [lo[n], hi[n]) that share its prefix of depth[n] code units; those of exactly that length
    // come first and end there.
    const lo = new Int32Array(nodes)
    const hi = new Int32Array(nodes)
    const depth = new Int32Array(nodes)
    hi[0] = ids.length
    let made = 1
    for (let n = 0; n < nodes; n++) {
      const d = depth[n]!
      let k = lo[n]!
      this.endAt[n] = k
      while (k < hi[n]! && text(k).length === d) k++
      this.ends[n] = k - lo[n]!
      this.firstChild[n] = made
      while (k < hi[n]!) {
        const c = text(k).charCodeAt(d)
        const start = k
        while (k < hi[n]! && text(k).charCodeAt(d) === c) k++
        this.label[made] = c
        lo[made] = start
        hi[made] = k
        depth[made] = d + 1
        made++
      }
    }
    this.firstChild[nodes] = made
    for (let child = this.firstChild[0]!; child < this.firstChild[1]!; child++) this.rootNext[this.label[child]!] = child
    // Fail links in the same breadth-first order: a node's is the longest proper suffix of its
    // prefix that is also a prefix of some pattern.
    for (let n = 0; n < nodes; n++) {
      for (let child = this.firstChild[n]!; child < this.firstChild[n + 1]!; child++) {
        const c = this.label[child]!
        let f = this.fail[n]!
        while (f !== 0 && this.childOf(f, c) === -1) f = this.fail[f]!
        const target = n === 0 ? -1 : this.childOf(f, c)
        this.fail[child] = target !== -1 && target !== child ? target : 0
        const fc = this.fail[child]!
        this.dict[child] = this.ends[fc]! > 0 ? fc : this.dict[fc]!
      }
    }
  }

  get size(): number {
    return this.lengths.length
  }

  /** The length of pattern `id` (in UTF-16 code units). */
  lengthOf(id: number): number {
    return this.lengths[id]!
  }

  /** Every occurrence of every pattern, overlapping ones included. */
  findAll(text: string): AcMatch[] {
    const found: AcMatch[] = []
    if (this.firstChild[1] === this.firstChild[0]) return found
    let node = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      let child = this.childOf(node, c)
      while (child === -1 && node !== 0) {
        node = this.fail[node]!
        child = this.childOf(node, c)
      }
      node = child === -1 ? 0 : child
      for (let n = this.ends[node]! > 0 ? node : this.dict[node]!; n > 0; n = this.dict[n]!) {
        for (let k = this.endAt[n]!; k < this.endAt[n]! + this.ends[n]!; k++) {
          const id = this.sortedIds[k]!
          found.push({pattern: id, start: i + 1 - this.lengths[id]!})
        }
      }
    }
    return found
  }

  /** The child of node along code unit c, or -1: children are in label order. */
  private childOf(node: number, c: number): number {
    if (node === 0) return this.rootNext[c] || -1
    let a = this.firstChild[node]!
    let b = this.firstChild[node + 1]!
    while (b - a > 8) {
      const mid = (a + b) >>> 1
      // [a, b) keeps the first label >= c
      if (this.label[mid]! < c) a = mid + 1
      else b = mid + 1
    }
    for (; a < b; a++) {
      const l = this.label[a]!
      if (l === c) return a
      if (l > c) return -1
    }
    return -1
  }
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}
