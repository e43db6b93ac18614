import {describe, expect, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {runCliAsync} from '../helpers/cli.js'

// Gates fail closed (contract): --fail-on-leak never exits 0 on what the probe could not check.

describe('probe --fail-on-leak on an inconclusive verdict (spawned CLI)', () => {
  it('exits 3 when cache isolation cannot be observed, and 0 with --allow-inconclusive', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'reject', prefixCache: false})
    try {
      const args = ['probe', '--target', testbed.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json']
      const strict = await runCliAsync(args)
      expect(JSON.parse(strict.stdout).verdict).toBe('inconclusive')
      expect(strict.code).toBe(3)
      expect(strict.stderr).toMatch(/probe verdict inconclusive \(undecided: cache_isolation\.same_salt, cache_isolation\.different_salt\)/)
      const accepted = await runCliAsync([...args, '--allow-inconclusive'])
      expect(JSON.parse(accepted.stdout).verdict).toBe('inconclusive')
      expect(accepted.code).toBe(0)
    } finally {
      await testbed.close()
    }
  })

  it('--allow-inconclusive needs --fail-on-leak (usage error)', async () => {
    const run = await runCliAsync(['probe', '--target', 'http://127.0.0.1:9', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--allow-inconclusive'])
    expect(run.code).toBe(2)
  })
})

describe('JUnit for a run the target cut short', () => {
  it('lists the checks not run as skipped test cases, naming why', async () => {
    const {renderJunit} = await import('../../src/probe/junit.js')
    const xml = renderJunit({
      verdict: 'fail',
      target: 'http://127.0.0.1:1/',
      model: 'm',
      pool_tokens: 1024,
      advertised_tokens: 4096,
      server_max_model_len: null,
      stated_max_model_len: null,
      sizing: 'estimate',
      started_at: '2026-11-02T06:48:30.289Z',
      duration_ms: 1000,
      interrupted: false,
      target_failure: {request: 'POST /v1/chat/completions', outcome: 'hung', error: 'no response headers within the 1000 ms timeout', httpStatus: null},
      not_run: ['contamination.gap', 'cache_isolation.same_salt'],
      checks: [
        {name: 'target.responsive', size_tokens: null, outcome: 'hung', ok: false, inconclusive: false, expected: 'an answer', detail: 'hung', stream: false, requests: 1, http_status: null, elapsed_ms: 0},
      ],
    })
    expect(xml).toMatch(/<testsuites name="crosstalk probe" tests="3" failures="1" skipped="2"/)
    expect(xml).toContain('<testcase name="contamination.gap" classname="crosstalk.probe" time="0.000">\n      <skipped message="not run: the target hung on POST /v1/chat/completions"/>')
  })
})
