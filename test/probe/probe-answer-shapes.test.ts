import {afterEach, describe, expect, it} from 'vitest'
import {runProbe, type ProbeResult} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {startShapedServer, type AnswerShape, type ShapedServer} from '../helpers/shaped-answers.js'

// The probe reads every text an answer carries, in every shape an OpenAI-compatible server
// gives it; an answer with no text it could read is no clean observation.

const POOL = 1024
const WINDOW = 4096
let server: ShapedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function probe(shape: AnswerShape): Promise<ProbeResult> {
  server = await startShapedServer(shape, {rejectAboveWords: POOL})
  return runProbe({target: server.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(11), now: () => new Date('2026-11-02T06:48:30.289Z')})
}
const check = (result: ProbeResult, name: string) => result.checks.find((c) => c.name === name)!

describe('probe: answer shapes', () => {
  it.each(['plain', 'parts', 'reasoning_content', 'reasoning', 'tool_call', 'refusal'] as const)('another tenant\'s marker in %s (plain and streamed) is a leak: verdict fail', async (shape) => {
    const result = await probe(shape)
    expect(result.verdict).toBe('fail')
    const small = check(result, 'contamination.small')
    expect(small.outcome).toBe('leak')
    expect(small.counts!.leaks).toBe(small.counts!.served)
    expect(small.counts!.no_text).toBe(0)
    expect(small.leak_flows!.length).toBeGreaterThan(0)
    // The first request (context.below_pool) had no earlier marker to be answered with.
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
  })

  it.each(['empty', 'null'] as const)('content %s: nothing read, so nothing is clean: inconclusive, never ok', async (shape) => {
    const result = await probe(shape)
    expect(server!.served()).toBeGreaterThan(0)
    expect(result.verdict).toBe('inconclusive')
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'served', ok: false, inconclusive: true})
    expect(check(result, 'context.below_pool').detail).toMatch(/no text the probe could read/)
    for (const name of ['contamination.small', 'contamination.below_pool']) {
      const c = check(result, name)
      expect(c).toMatchObject({outcome: 'clean', ok: false, inconclusive: true})
      expect(c.counts!.served).toBeGreaterThan(0)
      expect(c.counts!.no_text).toBe(c.counts!.served)
      expect(c.detail).toMatch(new RegExp(`^${c.counts!.served} served \\(0 read, ${c.counts!.served} with no readable text\\).*no served answer carried text the probe could read`))
    }
  })
})

describe('probe: each check says how many answers it read', () => {
  it('some answers with no text: each contamination check counts those it read and those it could not; one with any unread answer is not known clean', async () => {
    server = await startShapedServer('plain', {rejectAboveWords: POOL, leak: false, noTextEvery: 3})
    const result = await runProbe({target: server.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(11), now: () => new Date('2026-11-02T06:48:30.289Z')})
    const contamination = result.checks.filter((c) => c.name.startsWith('contamination.') && c.counts!.served > 0)
    expect(contamination.length).toBeGreaterThan(0)
    let read = 0
    let unread = 0
    for (const c of contamination) {
      const {served, no_text} = c.counts!
      expect(c.detail).toMatch(new RegExp(`^${served} served \\(${served - no_text} read, ${no_text} with no readable text\\)`))
      // What the unread answers held is not known: the check is inconclusive, never ok, while any is unread.
      expect(c.ok).toBe(served - no_text > 0 && no_text === 0)
      expect(c.inconclusive).toBe(no_text > 0)
      if (c.ok) expect(c.detail).toMatch(new RegExp(`no foreign markers in the ${served - no_text} read$`))
      else if (served - no_text > 0) expect(c.detail).toMatch(new RegExp(`no foreign markers in the ${served - no_text} read, but ${no_text} served answers? carried no text the probe could read: not known clean$`))
      read += served - no_text
      unread += no_text
    }
    expect(read).toBeGreaterThan(0)
    expect(unread).toBeGreaterThan(0)
    expect(check(result, 'context.below_pool').detail).toBe('served below the pool; its answer was read: no foreign markers')
  })
})

describe('probe: a stream not read whole (QA: a stream cut off, or with a malformed event, was taken as complete: verdict pass)', () => {
  it.each(['cut', 'malformed'] as const)('every answer a stream %s, no marker in what was read: each served answer inconclusive, never ok', async (fault) => {
    server = await startShapedServer('plain', {rejectAboveWords: POOL, leak: false, streamFault: fault})
    const result = await runProbe({target: server.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(11), now: () => new Date('2026-11-02T06:48:30.289Z')})
    expect(result.verdict).toBe('inconclusive')
    const why = fault === 'cut' ? 'the stream ended without data: \\[DONE\\]; 1 event whose data was no JSON document' : '1 event whose data was no JSON document'
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'served', ok: false, inconclusive: true})
    expect(check(result, 'context.below_pool').detail).toMatch(new RegExp(`not read whole \\(${why}\\)`))
    for (const name of ['contamination.small', 'contamination.below_pool']) {
      const c = check(result, name)
      expect(c).toMatchObject({outcome: 'clean', ok: false, inconclusive: true})
      expect(c.counts!.served).toBeGreaterThan(0)
      expect(c.counts!.incomplete).toBe(c.counts!.served)
      expect(c.counts!.no_text).toBe(0)
      expect(c.detail).toMatch(new RegExp(`^${c.counts!.served} served \\(0 read, 0 with no readable text, ${c.counts!.served} not read whole\\).*; no served answer was read whole \\(a stream cut off, or an event that was no JSON document\\): no foreign markers in what was read, the rest not known$`))
    }
  })
})

describe('crosstalk probe --fail-on-leak (the command)', () => {
  it('exits 3 against a server whose answers carry no text, and 3 on a marker given only as reasoning', async () => {
    for (const shape of ['null', 'reasoning'] as const) {
      server = await startShapedServer(shape, {rejectAboveWords: POOL})
      const r = await run(['probe', '--target', server.url, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--timeout', '2', '--fail-on-leak', '--json'])
      expect(r.code).toBe(3)
      expect(JSON.parse(r.stdout).verdict).toBe(shape === 'null' ? 'inconclusive' : 'fail')
      await server.close()
      server = null
    }
  })
})
