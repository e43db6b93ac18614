import {createServer} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {caseWithRecords} from '../helpers/replay-case.js'
import {startCountingServer, startHostileServer, type HostileMode, type HostileServer} from '../helpers/hostile-server.js'
import {runMeasured, type MeasuredRun} from '../helpers/measured-cli.js'

// The real CLI (bin/run.js, built dist/) against loopback servers that misbehave: every run must
// end within 3x --timeout plus start-up, in bounded memory, exit 3 under --fail-on-leak, and name
// what the target did. Before the fix, several of these never ended (fetch's composite abort
// signal stopped firing after garbage collection) or grew without bound (an endless stream).

const TIMEOUT_S = 1
const HARD_KILL_MS = 40_000
// A node CLI holds ~100 MB; an 8 MiB response cap keeps an endless stream far below this.
const RSS_LIMIT_MIB = 250

let startupMs = 0
let closedPort = 0

beforeAll(async () => {
  // Start-up: the same command against a port nobody listens on (fails at once, exit 1).
  closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const {port} = probe.address() as {port: number}
      probe.close(() => resolve(port))
    })
  })
  const run = await runMeasured(['probe', '--target', `http://127.0.0.1:${closedPort}`, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--json'], {killAfterMs: HARD_KILL_MS})
  expect(run.code).toBe(1)
  expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_TARGET_UNREACHABLE'}})
  // The same with --model: the reachability check is not skipped (it was: the run failed with exit 3).
  const named = await runMeasured(['probe', '--target', `http://127.0.0.1:${closedPort}`, '--model', 'm', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--json'], {killAfterMs: HARD_KILL_MS})
  expect(named.code).toBe(1)
  expect(JSON.parse(named.stdout)).toMatchObject({error: {code: 'E_TARGET_UNREACHABLE'}})
  startupMs = run.elapsedMs
})

/** 3x --timeout plus start-up, with start-up counted twice for a loaded machine. */
const bound = (): number => 3 * TIMEOUT_S * 1000 + Math.max(2000, 2 * startupMs)

function expectBounded(run: MeasuredRun): void {
  expect(run.killed, `still running after ${HARD_KILL_MS} ms; stderr: ${run.stderr}`).toBe(false)
  expect(run.elapsedMs).toBeLessThan(bound())
  if (run.peakRssMiB !== null) expect(run.peakRssMiB).toBeLessThan(RSS_LIMIT_MIB)
}

const cases: Array<{mode: HostileMode; outcome: 'hung' | 'error'; request: string; error: RegExp}> = [
  {mode: 'silent', outcome: 'hung', request: 'GET /v1/models', error: /no response headers within the 1000 ms timeout/},
  {mode: 'models-then-silent', outcome: 'hung', request: 'POST /tokenize', error: /no response headers/},
  {mode: 'headers-then-stall', outcome: 'hung', request: 'POST /tokenize', error: /headers but no end to the response/},
  {mode: 'endless-sse', outcome: 'error', request: 'POST /v1/chat/completions', error: /response body over \d+ bytes; stopped reading/},
  {mode: 'slow-sse', outcome: 'hung', request: 'POST /v1/chat/completions', error: /headers but no end/},
  {mode: 'garbage', outcome: 'error', request: 'GET /v1/models', error: /not an HTTP response \(HPE_/},
  {mode: 'reset', outcome: 'error', request: 'GET /v1/models', error: /ECONNRESET|EPIPE|socket hang up/},
  {mode: 'overloaded', outcome: 'error', request: 'POST /v1/chat/completions', error: /HTTP 503 after 1 attempt \(Retry-After "10"\)/},
]

describe('probe against misbehaving targets (spawned CLI)', () => {
  for (const {mode, outcome, request, error} of cases) {
    it(`${mode}: ends in bounded time and memory, exit 3, target.responsive ${outcome}`, async () => {
      const server = await startHostileServer(mode)
      try {
        const run = await runMeasured(
          ['probe', '--target', server.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', String(TIMEOUT_S), '--fail-on-leak', '--json'],
          {killAfterMs: HARD_KILL_MS},
        )
        expectBounded(run)
        expect(run.code, run.stderr).toBe(3)
        const result = JSON.parse(run.stdout)
        expect(result.verdict).toBe('fail')
        expect(result.target_failure).toMatchObject({request, outcome})
        expect(result.target_failure.error).toMatch(error)
        expect(result.checks.find((c: {name: string}) => c.name === 'target.responsive')).toMatchObject({outcome, ok: false})
        expect(result.not_run.length).toBeGreaterThan(0)
        expect(run.stderr).toContain('Gate: probe verdict fail')
      } finally {
        await server.close()
      }
    })
  }

  it('redirect: not followed (the other host sees no connection), exit 3, the Location named', async () => {
    const elsewhere = await startCountingServer()
    const server = await startHostileServer('redirect', elsewhere.url)
    try {
      const run = await runMeasured(
        ['probe', '--target', server.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', String(TIMEOUT_S), '--fail-on-leak', '--json'],
        {killAfterMs: HARD_KILL_MS},
      )
      expectBounded(run)
      expect(run.code, run.stderr).toBe(3)
      const result = JSON.parse(run.stdout)
      expect(result.target_failure).toMatchObject({request: 'POST /v1/chat/completions', outcome: 'error', httpStatus: 307})
      expect(result.target_failure.error).toContain(`redirect to "${elsewhere.url}/v1/chat/completions" not followed`)
      expect(elsewhere.connections()).toBe(0)
    } finally {
      await server.close()
      await elsewhere.close()
    }
  })
})

describe('replay against misbehaving targets (spawned CLI)', () => {
  let dbPath = ''
  const servers: HostileServer[] = []
  beforeAll(async () => {
    const {db, path: built} = await caseWithRecords([{request_id: 'req-1', prompt_tokens: 3000, request_text: 'Dear support, my IBAN is DE00 1234'}])
    db.close()
    dbPath = built
  })
  afterAll(async () => {
    for (const server of servers) await server.close()
  })
  const replay = (url: string, extra: string[] = []): Promise<MeasuredRun> =>
    runMeasured(
      ['replay', '--db', dbPath, '--target', url, '--request-id', 'req-1', '--trials', '2', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', String(TIMEOUT_S), '--fail-on-leak', '--json', ...extra],
      {killAfterMs: HARD_KILL_MS},
    )

  it('silent: the run cannot start; exit 3 with E_TARGET_HUNG', async () => {
    const server = await startHostileServer('silent')
    servers.push(server)
    const run = await replay(server.url)
    expectBounded(run)
    expect(run.code, run.stderr).toBe(3)
    expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_TARGET_HUNG'}})
    expect(JSON.parse(run.stdout).error.message).toContain('GET /v1/models')
  })

  for (const {mode, outcome, request} of [
    {mode: 'endless-sse', outcome: 'error', request: 'POST /v1/chat/completions'},
    {mode: 'slow-sse', outcome: 'hung', request: 'POST /v1/chat/completions'},
    {mode: 'overloaded', outcome: 'error', request: 'POST /v1/chat/completions'},
  ] as const) {
    it(`${mode}: stops, stores the run as interrupted, exit 3, target_failure ${outcome}`, async () => {
      const server = await startHostileServer(mode)
      servers.push(server)
      const run = await replay(server.url)
      expectBounded(run)
      expect(run.code, run.stderr).toBe(3)
      const result = JSON.parse(run.stdout)
      expect(result).toMatchObject({interrupted: true, target_failure: {request, outcome}})
      // No trial completed, so no verdict is claimed for the record.
      expect(result.results).toEqual([])
      expect(run.stderr).toContain('replay could not judge')
    })
  }

  it('models-then-silent: /tokenize hangs; exit 3 with E_TARGET_HUNG, in bounded time', async () => {
    const server = await startHostileServer('models-then-silent')
    servers.push(server)
    const run = await replay(server.url)
    expectBounded(run)
    expect(run.code, run.stderr).toBe(3)
    expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_TARGET_HUNG'}})
  })

  it('redirect with --original-prompt: the prompt never reaches the other host', async () => {
    const elsewhere = await startCountingServer()
    const server = await startHostileServer('redirect', elsewhere.url)
    servers.push(server, elsewhere)
    const run = await replay(server.url, ['--original-prompt'])
    expectBounded(run)
    expect(run.code, run.stderr).toBe(3)
    const result = JSON.parse(run.stdout)
    expect(result.target_failure).toMatchObject({outcome: 'error', httpStatus: 307})
    expect(elsewhere.connections()).toBe(0)
  })
})
