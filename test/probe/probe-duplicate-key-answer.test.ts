import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {runProbe} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'

// QA: an answer that gives a key twice ({"message": {"content": "CANARY-…", "content": "a normal
// answer"}}) crashed probe and replay with a bare "duplicate key" error (exit 1 under
// --fail-on-leak, the replay run left interrupted with nothing stored). Which content the
// server's client reads cannot be told: the answer is unreadable, counted as such, and the gate
// fails closed.

const POOL = 1024
const WINDOW = 4096
const MARKER = 'CANARY-0123456789abcdef'
let server: Server | null = null
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()))
  server = null
})

/** /v1/models lists `m`; completions give `content` twice (a marker, then plain text), plain or streamed; past POOL words 400. */
async function duplicateKeyServer(): Promise<string> {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString('utf8')))
    req.on('end', () => {
      if (req.url === '/v1/models') return res.writeHead(200, {'content-type': 'application/json'}).end('{"object":"list","data":[{"id":"m"}]}')
      if (!req.url?.includes('completions')) return res.writeHead(404).end('{}')
      const ask = JSON.parse(body) as {stream?: boolean; messages?: Array<{content: string}>}
      const words = (ask.messages ?? []).map((m) => m.content).join(' ').split(/\s+/).length
      if (words > POOL) return res.writeHead(400, {'content-type': 'application/json'}).end('{"object":"error","message":"too long","code":400}')
      if (ask.stream) {
        res.writeHead(200, {'content-type': 'text/event-stream'})
        return res.end(`data: {"choices":[{"delta":{"content":"${MARKER}","content":"ok"},"index":0}]}\n\ndata: [DONE]\n\n`)
      }
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(`{"choices":[{"message":{"role":"assistant","content":"${MARKER}","content":"a normal answer"},"finish_reason":"stop"}]}`)
    })
  })
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', () => done()))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('probe: an answer that gives a key twice', () => {
  it('is not read as an answer: the run completes, never ok; its body is searched, so the marker in one value is a leak', async () => {
    const target = await duplicateKeyServer()
    const result = await runProbe({target, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(3), now: () => new Date('2026-11-02T06:48:30.289Z')})
    expect(result.target_failure).toBeNull()
    expect(result.verdict).not.toBe('pass')
    // Neither value is read as the answer, but the body is searched: the marker in one of them is a leak (QA probe, lower note).
    const below = result.checks.find((c) => c.name === 'context.below_pool')!
    expect(below).toMatchObject({outcome: 'leak', ok: false, inconclusive: false})
    const small = result.checks.find((c) => c.name === 'contamination.small')!
    expect(small).toMatchObject({outcome: 'leak', ok: false})
    expect(small.counts!.served).toBeGreaterThan(0)
    expect(small.counts!.no_text).toBe(small.counts!.served)
  })

  it('the command under --fail-on-leak exits 3 and its JUnit file holds the checks, not "the probe did not run"', async () => {
    const target = await duplicateKeyServer()
    const junit = join(mkdtempSync(join(tmpdir(), 'ct-dupkey-')), 'j.xml')
    const r = await run(['probe', '--target', target, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--timeout', '2', '--fail-on-leak', '--junit', junit])
    expect(r.stderr).not.toMatch(/Error: duplicate key/)
    expect(r.code).toBe(3)
    const xml = readFileSync(junit, 'utf8')
    expect(xml).not.toContain('the probe did not run')
    expect(xml).toContain('<testcase name="context.below_pool"')
  })
})

describe('replay: a trigger answered with a key given twice', () => {
  it('is counted as unreadable: the run ends (not interrupted), nothing judged, stored as inconclusive only (never a finding)', async () => {
    const target = await duplicateKeyServer()
    const {db} = await caseWithRecords([{request_id: 'req-a', prompt_tokens: 120, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    try {
      const result = await runReplay(db, {target, requestIds: [], fromSightings: true, trials: 2, advertisedTokens: WINDOW, poolTokens: POOL, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')})
      expect(result.interrupted).toBe(false)
      // Its text is not read, but its whole body is searched (as the probe's is): the marker in one
      // value is one the run gave no one (the case's registry names its owner), not judged.
      expect(result.results.map((r) => [r.request_id, r.verdict, r.trials, r.other_markers > 0])).toEqual([['req-a', 'inconclusive', 0, true]])
      // Stored so that the drafts count its trials as not judged, never as reproduced or not.
      expect(listReplayResults(db).map((r) => [r.verdict, r.reproduced, r.trials])).toEqual([['inconclusive', 0, 0]])
    } finally {
      db.close()
    }
  })

  it('the command under --fail-on-leak exits 3 with the gate naming the answers it could not judge', async () => {
    const target = await duplicateKeyServer()
    const {db, path} = await caseWithRecords([{request_id: 'req-a', prompt_tokens: 120, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const r = await run(['replay', '--db', path, '--from-sightings', '--target', target, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--trials', '2', '--timeout', '2', '--fail-on-leak'])
    expect(r.stderr).not.toMatch(/duplicate key/)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/replay could not judge: \d+ answers with a marker the run gave no one/)
  })
})
