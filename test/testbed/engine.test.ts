import {describe, expect, it} from 'vitest'
import {Engine, type EngineOptions} from '../../src/testbed/engine.js'
import {KvPool, pageHashes} from '../../src/testbed/kv-pool.js'
import {tokenize} from '../../src/testbed/tokenizer.js'

const base: EngineOptions = {poolTokens: 64, pageSize: 16, maxModelLen: 256, onOverflow: 'reject', disaggregated: false, prefixCache: true, ignoreCacheSalt: false}
const words = (n: number, prefix = 'w'): string[] => Array.from({length: n}, (_, i) => `${prefix}${i}`)

describe('tokenizer', () => {
  it('keeps a canary as one token and splits punctuation', () => {
    expect(tokenize('Hi, CANARY-00ff12ab34cd56ef there.')).toEqual(['Hi', ',', 'CANARY-00ff12ab34cd56ef', 'there', '.'])
  })
})

describe('KV pool', () => {
  it('does not zero freed pages', () => {
    const pool = new KvPool(32, 16)
    const [a] = pool.allocate(1)!
    pool.write(a!, ['secret'], null)
    pool.release([a!])
    const again = pool.allocateAll()
    expect(again).toContain(a)
    expect(pool.read(a!)).toEqual(['secret'])
  })

  it('salts only change the hash chain when given', () => {
    const tokens = words(32)
    expect(pageHashes(tokens, 16, 'a')).not.toEqual(pageHashes(tokens, 16, 'b'))
    expect(pageHashes(tokens, 16, null)).toEqual(pageHashes(tokens, 16, null))
    expect(pageHashes(tokens, 16, null)).toHaveLength(2)
  })
})

describe('engine', () => {
  it('serves a fitting prompt from its own pages and echoes its own marker', () => {
    const engine = new Engine(base)
    const out = engine.process({tokens: ['hello', 'CANARY-aaaaaaaaaaaaaaaa', ...words(20)], maxTokens: 32, cacheSalt: null})
    expect(out.kind).toBe('served')
    if (out.kind === 'served') expect(out.text).toContain('CANARY-aaaaaaaaaaaaaaaa')
  })

  it.each([false, true])('stale overflow answers from the previous tenant (disaggregated=%s)', (disaggregated) => {
    const engine = new Engine({...base, onOverflow: 'stale', disaggregated})
    engine.process({tokens: ['tenantA', 'CANARY-aaaaaaaaaaaaaaaa', ...words(30)], maxTokens: 32, cacheSalt: null})
    const out = engine.process({tokens: ['tenantB', 'CANARY-bbbbbbbbbbbbbbbb', ...words(100)], maxTokens: 32, cacheSalt: null})
    expect(out.kind).toBe('served')
    if (out.kind !== 'served') return
    expect(out.stale).toBe(true)
    expect(out.text).toContain('CANARY-aaaaaaaaaaaaaaaa')
    expect(out.text).not.toContain('CANARY-bbbbbbbbbbbbbbbb')
  })

  it('rejects or hangs on overflow, and always rejects above max-model-len', () => {
    const reject = new Engine(base)
    expect(reject.process({tokens: words(100), maxTokens: 8, cacheSalt: null})).toMatchObject({kind: 'rejected', reason: 'pool'})
    expect(new Engine({...base, onOverflow: 'hang'}).process({tokens: words(100), maxTokens: 8, cacheSalt: null}).kind).toBe('hang')
    for (const mode of ['reject', 'hang', 'stale'] as const) {
      expect(new Engine({...base, onOverflow: mode}).process({tokens: words(256), maxTokens: 8, cacheSalt: null})).toMatchObject({kind: 'rejected', reason: 'max_model_len'})
    }
    expect(reject.process({tokens: words(250), maxTokens: 8, cacheSalt: null})).toMatchObject({kind: 'rejected', reason: 'max_tokens'})
  })

  it('prefix cache: same salt hits, different salt misses unless salts are ignored, nothing when off', () => {
    const prompt = words(40)
    const hit = (options: Partial<EngineOptions>, salts: [string, string]): number => {
      const engine = new Engine({...base, ...options})
      engine.process({tokens: prompt, maxTokens: 8, cacheSalt: salts[0]})
      const out = engine.process({tokens: prompt, maxTokens: 8, cacheSalt: salts[1]})
      return out.kind === 'served' ? out.cachedTokens : -1
    }
    expect(hit({}, ['a', 'a'])).toBe(32)
    expect(hit({}, ['a', 'b'])).toBe(0)
    expect(hit({ignoreCacheSalt: true}, ['a', 'b'])).toBe(32)
    expect(hit({prefixCache: false}, ['a', 'a'])).toBe(0)
  })
})
