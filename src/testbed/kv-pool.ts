import {createHash} from 'node:crypto'

// A paged KV pool as serving engines keep it (vLLM "blocks", SGLang "pages"): fixed-size pages
// of token state, a free queue in least-recently-freed order, and a prefix cache mapping the
// hash chain of full pages to the page that holds them. Freed pages are NOT zeroed (like GPU
// memory: vLLM PR #43990, #35219): whatever the last request wrote stays readable until
// someone overwrites it. That is the property the incident rests on.

export interface KvPage {
  readonly id: number
  /** What the last writer left here: the "KV state", kept as token strings. */
  tokens: string[]
  /** Prefix-cache key while the page is cached; null once evicted or never full. */
  hash: string | null
  refs: number
}

export class KvPool {
  readonly pages: KvPage[]
  private free: number[]
  private readonly cache = new Map<string, number>()

  constructor(
    readonly poolTokens: number,
    readonly pageSize: number,
  ) {
    const count = Math.floor(poolTokens / pageSize)
    this.pages = Array.from({length: count}, (_, id) => ({id, tokens: [], hash: null, refs: 0}))
    this.free = this.pages.map((page) => page.id)
  }

  get pageCount(): number {
    return this.pages.length
  }

  /** Tokens the pool can hold at once (whole pages only). */
  get capacityTokens(): number {
    return this.pages.length * this.pageSize
  }

  get pagesInUse(): number {
    return this.pages.filter((page) => page.refs > 0).length
  }

  get cachedPages(): number {
    return this.cache.size
  }

  /** Longest run of leading page hashes the cache holds; those pages are pinned for the caller. */
  acquirePrefix(hashes: readonly string[]): number[] {
    const hit: number[] = []
    for (const hash of hashes) {
      const id = this.cache.get(hash)
      if (id === undefined) break
      hit.push(id)
    }
    for (const id of hit) this.pin(id)
    return hit
  }

  /** n fresh pages from the front of the free queue (evicting their cache entries), or null. */
  allocate(n: number): number[] | null {
    if (n > this.free.length) return null
    const ids = this.free.splice(0, n)
    for (const id of ids) this.take(id)
    return ids
  }

  /** Every free page, as an engine that admitted an over-pool request would grab them. */
  allocateAll(): number[] {
    return this.allocate(this.free.length) ?? []
  }

  write(id: number, tokens: readonly string[], hash: string | null): void {
    const page = this.page(id)
    page.tokens = [...tokens]
    if (hash !== null && !this.cache.has(hash)) {
      page.hash = hash
      this.cache.set(hash, id)
    }
  }

  read(id: number): readonly string[] {
    return this.page(id).tokens
  }

  /** Drops the caller's references; pages nobody holds go to the back of the free queue, contents intact. */
  release(ids: readonly number[]): void {
    for (const id of ids) {
      const page = this.page(id)
      page.refs = Math.max(0, page.refs - 1)
      if (page.refs === 0) this.free.push(id)
    }
  }

  private pin(id: number): void {
    const page = this.page(id)
    if (page.refs === 0) this.free = this.free.filter((other) => other !== id)
    page.refs++
  }

  private take(id: number): void {
    const page = this.page(id)
    if (page.hash !== null) this.cache.delete(page.hash)
    page.hash = null
    page.refs = 1
  }

  private page(id: number): KvPage {
    const page = this.pages[id]
    if (!page) throw new Error(`no KV page ${id}`)
    return page
  }
}

/**
 * Hash chain over full pages, as vLLM's block hashes: each page's key covers its parent's key,
 * so a page is only reused under the exact same prefix. The salt enters the first page only
 * (vLLM `need_extra_keys`, PR #17045), which is enough to separate every later page.
 */
export function pageHashes(tokens: readonly string[], pageSize: number, salt: string | null): string[] {
  const hashes: string[] = []
  let parent = ''
  for (let start = 0; start + pageSize <= tokens.length; start += pageSize) {
    const extra = start === 0 && salt !== null ? salt : null
    parent = createHash('sha256')
      .update(JSON.stringify([parent, extra, tokens.slice(start, start + pageSize)]))
      .digest('hex')
    hashes.push(parent)
  }
  return hashes
}
