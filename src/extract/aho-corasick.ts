// Aho-Corasick multi-pattern matcher (case-sensitive, over UTF-16 code units). Used only
// for registered markers that do not follow the CANARY-<hex> convention: one pass over the
// text finds all of them whatever their number.

export interface AcMatch {
  pattern: number
  /** Offset of the first code unit of the match in the text. */
  start: number
}

export class AhoCorasick {
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
