import {afterEach, describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay, type ReplayOptions} from '../../src/replay/run-replay.js'
import {seededRng} from '../../src/util/rng.js'
import {caseWithRecords, type RecordSeed} from '../helpers/replay-case.js'
import {chatAnswer, delta, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe report (hostile servers), defects 1 and 2: replay searches everything the target
// delivered, as the probe does: the whole body (a member no answer shape reads), and the bytes a
// stream delivered before it stalled or reset. A primer's marker in them reproduces the leak.

const MARKER = 'CANARY-0000aaaa0000aaaa'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const isPrimer = (ask: Ask): boolean => ask.path.includes('completions') && ask.prompt.includes('probe-primer')
const isTrigger = (ask: Ask): boolean => ask.path.includes('completions') && !isPrimer(ask)

async function replay(script: (ask: Ask) => Reply | undefined, seeds: RecordSeed[], extra: Partial<ReplayOptions> = {}) {
  server = await startScriptedServer(script)
  const {db} = await caseWithRecords(seeds.map((s) => ({response_text: `leak ${MARKER}`, ...s})), [[MARKER, 'tenant-x', 'sx']])
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, primers: 2, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 1500, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z'), ...extra})
    return {result, stored: listReplayResults(db)}
  } finally {
    db.close()
  }
}

describe("replay searches the whole body (QA probe #1)", () => {
  it("a primer's marker in a member no answer shape reads (\"note\") reproduces the leak", async () => {
    const script = (ask: Ask): Reply | undefined =>
      isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: {...chatAnswer('Sure, here you go.'), note: `previous output: ${ask.foreign}`}} : undefined
    const {result, stored} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'confirmed', reproduced: 3})
    expect(stored[0]).toMatchObject({verdict: 'confirmed'})
  }, 60_000)

  it("a primer's answer with another primer's marker in system_fingerprint is a primer leak", async () => {
    const script = (ask: Ask): Reply | undefined =>
      isPrimer(ask) ? {json: {...chatAnswer('ok'), system_fingerprint: ask.foreign ?? 'fp'}} : isTrigger(ask) ? {json: chatAnswer('fine')} : undefined
    const {result} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]!.primer_leaks).toBeGreaterThan(0)
    expect(result.results[0]!.verdict).toBe('confirmed')
  }, 60_000)
})

describe('replay searches what a stalled stream delivered (QA probe #2)', () => {
  it("a streamed trigger that delivers a primer's marker and then stalls: confirmed, never not reproduced", async () => {
    let triggers = 0
    const script = (ask: Ask): Reply | undefined => {
      if (isPrimer(ask)) return {json: chatAnswer('ok')}
      if (!isTrigger(ask)) return undefined
      if (triggers++ === 0) return {sse: [delta('clean')]}
      return {headers: {'content-type': 'text/event-stream'}, raw: `data: ${JSON.stringify(delta(`stale: ${ask.foreign}`))}\n\n`, keepOpen: true}
    }
    const {result, stored} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200, stream: true}])
    expect(result.results[0]).toMatchObject({verdict: 'confirmed', reproduced: 1})
    expect(result.interrupted).toBe(true)
    expect(stored[0]).toMatchObject({verdict: 'confirmed', reproduced: 1})
  }, 60_000)
})
