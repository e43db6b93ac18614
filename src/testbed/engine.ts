import {KvPool, pageHashes} from './kv-pool.js'
import {detokenize} from './tokenizer.js'

// The scheduler, prefill and decode of the simulated engine. One request is processed start to
// finish in one call (no interleaving), so every run is deterministic; the pool persists
// between requests, which is all the leak needs.

export type OverflowMode = 'reject' | 'hang' | 'stale'

export interface EngineOptions {
  poolTokens: number
  pageSize: number
  maxModelLen: number
  onOverflow: OverflowMode
  disaggregated: boolean
  prefixCache: boolean
  ignoreCacheSalt: boolean
}

export interface EngineRequest {
  tokens: readonly string[]
  maxTokens: number
  cacheSalt: string | null
}

export type RejectReason = 'max_model_len' | 'max_tokens' | 'pool'

export type EngineOutcome =
  | {kind: 'rejected'; reason: RejectReason; promptTokens: number; maxTokens: number}
  | {kind: 'hang'; promptTokens: number}
  | {
      kind: 'served'
      text: string
      promptTokens: number
      completionTokens: number
      cachedTokens: number
      finishReason: 'stop' | 'length'
      /** True when decode read pages this request never wrote (the incident). */
      stale: boolean
    }

export interface EngineCounters {
  requests: number
  served: number
  stale: number
  hung: number
  rejected: Record<RejectReason, number>
  prefixQueryTokens: number
  prefixHitTokens: number
  handoffs: number
}

const MARKER = /^CANARY-[0-9a-f]{8}[0-9a-f]*$/i
const ANSWER_WORDS = 8

export class Engine {
  /** The prefill worker's pool; also the only pool when not disaggregated. */
  readonly prefill: KvPool
  /** The decode worker's pool (disaggregated only). */
  readonly decode: KvPool | null
  readonly counters: EngineCounters = {
    requests: 0,
    served: 0,
    stale: 0,
    hung: 0,
    rejected: {max_model_len: 0, max_tokens: 0, pool: 0},
    prefixQueryTokens: 0,
    prefixHitTokens: 0,
    handoffs: 0,
  }

  constructor(readonly options: EngineOptions) {
    this.prefill = new KvPool(options.poolTokens, options.pageSize)
    this.decode = options.disaggregated ? new KvPool(options.poolTokens, options.pageSize) : null
  }

  process(request: EngineRequest): EngineOutcome {
    this.counters.requests++
    const n = request.tokens.length
    const {maxModelLen, pageSize} = this.options
    // The frontend's length checks (vLLM _validate_input): a prompt may be at most max_model_len-1 tokens.
    if (n >= maxModelLen) return this.reject('max_model_len', n, request.maxTokens)
    if (n + request.maxTokens > maxModelLen) return this.reject('max_tokens', n, request.maxTokens)

    const needed = Math.ceil(n / pageSize)
    if (needed > this.prefill.pageCount) {
      // The gap between pool and advertised window: the three behaviours seen in the wild.
      if (this.options.onOverflow === 'reject') return this.reject('pool', n, request.maxTokens)
      if (this.options.onOverflow === 'hang') {
        this.counters.hung++
        return {kind: 'hang', promptTokens: n}
      }
      return this.serveStale(request)
    }
    return this.serve(request, needed)
  }

  private serve(request: EngineRequest, needed: number): EngineOutcome {
    const pool = this.prefill
    const {pageSize} = this.options
    const salt = this.options.ignoreCacheSalt ? null : request.cacheSalt
    const hashes = this.options.prefixCache ? pageHashes(request.tokens, pageSize, salt) : []
    const cached = pool.acquirePrefix(hashes)
    this.counters.prefixQueryTokens += request.tokens.length
    this.counters.prefixHitTokens += cached.length * pageSize
    const fresh = pool.allocate(needed - cached.length)
    if (fresh === null) throw new Error('KV pool exhausted by a request that fits: engine bug')
    fresh.forEach((id, i) => {
      const index = cached.length + i
      pool.write(id, request.tokens.slice(index * pageSize, (index + 1) * pageSize), hashes[index] ?? null)
    })
    const table = [...cached, ...fresh]
    const tokens = this.decodeFrom(table).slice(0, request.tokens.length)
    pool.release(table)
    return this.answer(tokens, request, cached.length * pageSize, false)
  }

  /**
   * The incident (vllm#52234 pattern): the request is admitted although it cannot fit, prefill
   * bails out without writing, and the block table still points at recycled pages. Nobody checks
   * that the pages hold this request's tokens, so decode answers from the previous tenants' KV.
   */
  private serveStale(request: EngineRequest): EngineOutcome {
    const table = this.prefill.allocateAll()
    const context = this.decodeFrom(table)
    this.prefill.release(table)
    this.counters.stale++
    return this.answer(context, request, 0, true)
  }

  /**
   * What the decode step reads for a prefill block table. Disaggregated: the decode worker
   * copies the pages named by the prefill worker's block ids into its own pool (a NIXL-style
   * pull, no check that they still hold this request's tokens), reads them and frees them.
   */
  private decodeFrom(table: readonly number[]): string[] {
    const decode = this.decode
    if (decode === null) return table.flatMap((id) => this.prefill.read(id))
    this.counters.handoffs++
    const local = decode.allocate(Math.min(table.length, decode.pageCount)) ?? []
    local.forEach((id, i) => decode.write(id, this.prefill.read(table[i]!), null))
    const tokens = local.flatMap((id) => decode.read(id))
    decode.release(local)
    return tokens
  }

  /**
   * The "model": deterministic, and it can only write from the KV it reads. It restates the
   * first words of its context and every reference marker in it, so a canary in stale pages
   * surfaces in someone else's answer exactly as it did in the incident.
   */
  private answer(context: readonly string[], request: EngineRequest, cachedTokens: number, stale: boolean): EngineOutcome {
    const markers = [...new Set(context.filter((token) => MARKER.test(token)))]
    const words = context.filter((token) => !MARKER.test(token) && /^[\p{L}\p{N}]/u.test(token)).slice(0, ANSWER_WORDS)
    const full = ['Noted', ':', ...words, '.', ...(markers.length > 0 ? ['Reference', ':', ...markers, '.'] : [])]
    const kept = full.slice(0, Math.max(1, request.maxTokens))
    this.counters.served++
    return {
      kind: 'served',
      text: detokenize(kept),
      promptTokens: request.tokens.length,
      completionTokens: kept.length,
      cachedTokens,
      finishReason: kept.length < full.length ? 'length' : 'stop',
      stale,
    }
  }

  private reject(reason: RejectReason, promptTokens: number, maxTokens: number): EngineOutcome {
    this.counters.rejected[reason]++
    return {kind: 'rejected', reason, promptTokens, maxTokens}
  }
}
