import http from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {caseWithRecords} from '../helpers/replay-case.js'
import {startServeProcess, type ServeProcess} from '../helpers/serve-process.js'
import {runMeasured} from '../helpers/measured-cli.js'

// Real processes on both ends: `crosstalk testbed serve --on-overflow hang` (vLLM with a pool
// shrunk below its window: gap prompts never answer) and the CLI's probe and replay. The issue:
// probe printed "context.gap: hung" and then never returned (killed after 300 s).

const TIMEOUT_S = 1
const HARD_KILL_MS = 40_000
const POOL = ['--pool-tokens', '1024', '--max-model-len', '4096']

describe('probe and replay against a hanging testbed serve process', () => {
  let serve: ServeProcess
  let startupMs = 0
  beforeAll(async () => {
    serve = await startServeProcess([...POOL, '--on-overflow', 'hang'])
    const run = await runMeasured(['probe', '--target', 'http://127.0.0.1:9', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--json'], {killAfterMs: HARD_KILL_MS})
    startupMs = run.elapsedMs
  })
  afterAll(() => serve?.stop())
  const bound = (): number => 3 * TIMEOUT_S * 1000 + Math.max(2000, 2 * startupMs)

  it('probe --fail-on-leak: context.gap hung, the run stops, exit 3 within 3x --timeout plus start-up', async () => {
    const run = await runMeasured(['probe', '--target', serve.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', String(TIMEOUT_S), '--fail-on-leak', '--json'], {killAfterMs: HARD_KILL_MS})
    expect(run.killed).toBe(false)
    expect(run.elapsedMs).toBeLessThan(bound())
    expect(run.code, run.stderr).toBe(3)
    const result = JSON.parse(run.stdout)
    expect(result.verdict).toBe('fail')
    expect(result.checks.find((c: {name: string}) => c.name === 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
    expect(result.checks.find((c: {name: string}) => c.name === 'context.gap')).toMatchObject({outcome: 'hung', ok: false})
    expect(result.target_failure).toMatchObject({request: 'POST /v1/chat/completions', outcome: 'hung'})
  })

  it('replay --fail-on-leak: the hung trigger is not judged, the run stops and is stored interrupted, exit 3', async () => {
    const {db, path: built} = await caseWithRecords([{request_id: 'req-1', prompt_tokens: 700_000}])
    db.close()
    const run = await runMeasured(
      ['replay', '--db', built, '--target', serve.url, '--request-id', 'req-1', '--trials', '3', '--pool-tokens', '1024', '--timeout', String(TIMEOUT_S), '--fail-on-leak', '--json'],
      {killAfterMs: HARD_KILL_MS},
    )
    expect(run.killed).toBe(false)
    expect(run.elapsedMs).toBeLessThan(bound())
    expect(run.code, run.stderr).toBe(3)
    const result = JSON.parse(run.stdout)
    expect(result).toMatchObject({interrupted: true, target_failure: {outcome: 'hung'}})
    // The hung trigger tested nothing: inconclusive (not stored), and the testbed is still recorded as the simulator.
    expect(result.results[0]).toMatchObject({request_id: 'req-1', trials: 1, hung: 1, judged: 0, reproduced: 0, verdict: 'inconclusive'})
    expect(result).toMatchObject({target_kind: 'simulator'})
    expect(run.stderr).toContain('replay could not judge: 1 trial hung or errored')
  })
})

describe('probe interrupted', () => {
  let serve: ServeProcess
  beforeAll(async () => {
    serve = await startServeProcess([...POOL, '--on-overflow', 'hang'])
  })
  afterAll(() => serve?.stop())
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} while a request hangs: the measured checks are printed, interrupted, exit ${code}`, async () => {
      const run = await runMeasured(['probe', '--target', serve.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '60', '--json'], {
        killAfterMs: HARD_KILL_MS, signalOn: {when: /context\.below_pool: served/, signal},
      })
      expect(run.killed).toBe(false)
      expect(run.code, run.stderr).toBe(code)
      const result = JSON.parse(run.stdout)
      expect(result.interrupted).toBe(true)
      expect(result.checks.find((c: {name: string}) => c.name === 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
    })
  }
})

describe('testbed serve stops on a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: closes its connections (a hung request included), prints one line, exits 0`, async () => {
      const serve = await startServeProcess([...POOL, '--on-overflow', 'hang'])
      const agent = new http.Agent({keepAlive: true})
      // One idle keep-alive connection and one request the testbed will never answer.
      await new Promise<void>((resolve) => http.get(`${serve.url}/health`, {agent}, (res) => res.resume().on('end', resolve)))
      const hung = new Promise<string>((resolve) => {
        const req = http.request(`${serve.url}/v1/chat/completions`, {method: 'POST'}, () => resolve('answered'))
        req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
        req.end(JSON.stringify({messages: [{role: 'user', content: Array.from({length: 2000}, (_, i) => `w${i}`).join(' ')}], max_tokens: 8}))
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const stopped = await serve.stop(signal)
      agent.destroy()
      expect(stopped.code).toBe(0)
      // The hung request never ends on its own: exiting at all proves the testbed did not wait for it (the bound is loose for a loaded CI machine).
      expect(stopped.elapsedMs).toBeLessThan(10_000)
      expect(await hung).toBe('ECONNRESET')
      const lines = stopped.stderr.trim().split('\n')
      expect(lines).toHaveLength(2)
      expect(lines[1]).toBe(`crosstalk testbed stopped on ${signal}; closed 2 connections`)
    })
  }
})
