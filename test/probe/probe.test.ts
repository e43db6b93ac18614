import {afterEach, describe, expect, it} from 'vitest'
import {renderJunit} from '../../src/probe/junit.js'
import {runProbe, type ProbeOptions, type ProbeResult} from '../../src/probe/run-probe.js'
import {assertSafeTarget, isPrivateAddress} from '../../src/probe/target-guard.js'
import {startTestbed, type Testbed, type TestbedOptions} from '../../src/testbed/server.js'
import {seededRng} from '../../src/util/rng.js'

const POOL = 1024
const WINDOW = 4096
let testbed: Testbed | null = null
afterEach(async () => {
  await testbed?.close()
  testbed = null
})

async function probeAgainst(tb: TestbedOptions, extra: Partial<ProbeOptions> = {}): Promise<ProbeResult> {
  testbed = await startTestbed({port: 0, poolTokens: POOL, maxModelLen: WINDOW, ...tb})
  return runProbe({target: testbed.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 1000, rng: seededRng(7), now: () => new Date('2026-11-02T06:48:30.289Z'), ...extra})
}
const check = (result: ProbeResult, name: string) => result.checks.find((c) => c.name === name)!

describe('probe against the testbed', () => {
  it('stale + disaggregated: gap prompts served with cross-tenant markers, verdict fail', async () => {
    const result = await probeAgainst({onOverflow: 'stale', disaggregated: true})
    expect(result.verdict).toBe('fail')
    expect(result.sizing).toBe('tokenize')
    expect(result.started_at).toBe('2026-11-02T06:48:30.289Z')
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'leak', ok: false, http_status: 200})
    expect(check(result, 'context.above_window')).toMatchObject({outcome: 'rejected', ok: true})
    const gap = check(result, 'contamination.gap')
    expect(gap.outcome).toBe('leak')
    expect(gap.leak_flows!.some((f) => f.source_tenant !== f.recipient_tenant && f.source_tenant !== 'unknown')).toBe(true)
    expect(check(result, 'contamination.small')).toMatchObject({outcome: 'clean', ok: true})
    // The gap size is exact: the server's /tokenize says so.
    expect(check(result, 'context.gap').size_tokens).toBeGreaterThan(POOL)
    expect(check(result, 'context.gap').size_tokens).toBeLessThan(WINDOW)
  })

  it.each(['vllm', 'sglang'] as const)('reject with %s error bodies: pass, streaming rejections included', async (errorStyle) => {
    const result = await probeAgainst({onOverflow: 'reject', errorStyle})
    expect(result.verdict).toBe('pass')
    const streamed = check(result, 'context.gap_stream')
    expect(streamed).toMatchObject({outcome: 'rejected', ok: true, http_status: errorStyle === 'sglang' ? 200 : 400})
    if (errorStyle === 'sglang') expect(streamed.detail).toContain('error event inside an HTTP 200 stream')
    expect(check(result, 'contamination.gap')).toMatchObject({outcome: 'clean', counts: {rejected: 8, served: 0}})
  })

  it('hang: the gap prompt is reported hung within the timeout, the run stops there, verdict fail', async () => {
    const started = Date.now()
    const result = await probeAgainst({onOverflow: 'hang'}, {timeoutMs: 600, concurrency: 8})
    expect(result.verdict).toBe('fail')
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
    const gap = check(result, 'context.gap')
    expect(gap).toMatchObject({outcome: 'hung', ok: false, http_status: null})
    expect(gap.elapsed_ms).toBeGreaterThanOrEqual(550)
    expect(gap.elapsed_ms).toBeLessThan(3000)
    // A hung request stops the run: each further one could only cost another timeout.
    expect(check(result, 'target.responsive')).toMatchObject({outcome: 'hung', ok: false, inconclusive: false})
    expect(result.target_failure).toMatchObject({request: 'POST /v1/chat/completions', outcome: 'hung'})
    expect(result.not_run).toEqual(expect.arrayContaining(['context.gap_stream', 'contamination.gap', 'cache_isolation.same_salt']))
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('cache isolation: pass with salts honoured, fail when ignored, inconclusive with caching off', async () => {
    const honoured = await probeAgainst({onOverflow: 'reject'})
    expect(check(honoured, 'cache_isolation.same_salt')).toMatchObject({ok: true, inconclusive: false})
    expect(check(honoured, 'cache_isolation.different_salt')).toMatchObject({outcome: 'clean', ok: true, cached_tokens: 0})
    await testbed!.close()

    const ignored = await probeAgainst({onOverflow: 'reject', ignoreCacheSalt: true})
    expect(check(ignored, 'cache_isolation.different_salt')).toMatchObject({outcome: 'leak', ok: false, inconclusive: false})
    expect(ignored.verdict).toBe('fail')
    await testbed!.close()

    const off = await probeAgainst({onOverflow: 'reject', prefixCache: false})
    expect(check(off, 'cache_isolation.same_salt')).toMatchObject({ok: false, inconclusive: true})
    expect(check(off, 'cache_isolation.different_salt')).toMatchObject({outcome: 'clean', ok: false, inconclusive: true})
    expect(off.verdict).toBe('inconclusive')
  })

  it('writes JUnit with failures and skips', async () => {
    const result = await probeAgainst({onOverflow: 'stale', prefixCache: false})
    const xml = renderJunit(result)
    expect(xml).toMatch(/<testsuites name="crosstalk probe" tests="11" failures="5" skipped="2"/)
    expect(xml).toContain('<testcase name="context.gap" classname="crosstalk.probe"')
    // The size just past the pool is a testcase of its own (QA probe #1: one gap size was not enough).
    expect(xml).toContain('<testcase name="context.gap_low" classname="crosstalk.probe"')
    expect(xml).toContain('<failure message="leak: ')
  })

  it('sends the bearer token', async () => {
    const result = await probeAgainst({onOverflow: 'reject', apiKey: 'tok'}, {apiKey: 'tok'})
    expect(result.verdict).toBe('pass')
  })
})

describe('target guard', () => {
  it('accepts loopback and private ranges, refuses the rest without --allow-remote', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '::1', 'fd00::1', '::ffff:10.0.0.1']) expect(isPrivateAddress(address)).toBe(true)
    for (const address of ['8.8.8.8', '172.32.0.1', '169.254.169.254', '2001:db8::1']) expect(isPrivateAddress(address)).toBe(false)
    await expect(assertSafeTarget('http://api.example.com', {allowRemote: false, resolve: async () => ['93.184.216.34']})).rejects.toThrow(/--allow-remote/)
    await expect(assertSafeTarget('http://gpu.internal', {allowRemote: false, resolve: async () => ['10.0.0.5']})).resolves.toBeInstanceOf(URL)
    await expect(assertSafeTarget('http://api.example.com', {allowRemote: true})).resolves.toBeInstanceOf(URL)
    await expect(assertSafeTarget('file:///etc/passwd', {allowRemote: true})).rejects.toThrow(/http/)
  })
})
