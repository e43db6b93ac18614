import {afterEach, describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {runProbe} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type ScriptedServer} from '../helpers/scripted-server.js'

// QA: a marker no probe tenant was given (a server that always answers with the same
// CANARY-deadbeefdeadbeef) was called "another tenant's" and counted as a "cross-tenant flow" by
// probe, and confirmed a replay (any non-primer marker did, with the synthetic trigger) while
// replay's help says a primer's canary reproduces the leak. Its owner is not known: said so.

const POOL = 1024
const WINDOW = 4096
const STRANGER = 'CANARY-deadbeefdeadbeef'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

/** Completions answer with `text(ask)` (400 past POOL words). */
async function answering(text: (ask: Ask) => string): Promise<string> {
  server = await startScriptedServer((ask) => {
    if (!ask.path.includes('completions')) return undefined
    return ask.prompt.split(/\s+/).length > POOL ? {status: 400, json: {object: 'error', message: 'too long', code: 400}} : {json: chatAnswer(text(ask))}
  })
  return server.url
}

describe('probe: a marker no probe tenant was given', () => {
  it('is a foreign marker of unknown owner: no cross-tenant flow, never "another tenant\'s"', async () => {
    const target = await answering(() => `ok ${STRANGER}`)
    const result = await runProbe({target, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(8), now: () => new Date('2026-11-02T06:48:30.289Z')})
    const small = result.checks.find((c) => c.name === 'contamination.small')!
    expect(small.outcome).toBe('leak')
    expect(small.detail).toMatch(/\(0 cross-tenant flows; 1 marker no probe tenant was given: owner unknown\)/)
    expect(small.leak_flows!.every((f) => f.source_tenant === 'unknown')).toBe(true)
    const cache = result.checks.find((c) => c.name === 'cache_isolation.same_salt')!
    expect(cache.detail).toBe('answered with 1 foreign marker (1 given to no probe tenant: owner unknown)')
    expect(result.checks.map((c) => c.detail).join('\n')).not.toMatch(/another tenant's/)
  })

  it('another probe tenant\'s marker is still a cross-tenant flow, named as such', async () => {
    const target = await answering((ask) => `ok ${ask.foreign ?? ''}`)
    const result = await runProbe({target, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(8), now: () => new Date('2026-11-02T06:48:30.289Z')})
    const small = result.checks.find((c) => c.name === 'contamination.small')!
    expect(small.outcome).toBe('leak')
    expect(small.detail).toMatch(/\([1-9]\d* cross-tenant flows?\)/)
    expect(small.leak_flows!.some((f) => f.source_tenant === 'unknown')).toBe(false)
    expect(result.checks.find((c) => c.name === 'cache_isolation.same_salt')!.detail).toMatch(/given to another probe tenant\)$/)
  })
})

describe('replay: only a canary the run gave a synthetic tenant reproduces the leak', () => {
  const contaminated = () => caseWithRecords([{request_id: 'req-a', prompt_tokens: 120, response_text: `leak CANARY-0000aaaa0000aaaa`}], [['CANARY-0000aaaa0000aaaa', 'tenant-x', 'sx']])
  const options = (target: string) => ({target, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: WINDOW, poolTokens: POOL, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')})

  it('a marker the run gave no one confirms nothing: counted apart, the record not judged, stored as inconclusive only', async () => {
    const target = await answering(() => `ok ${STRANGER}`)
    const {db} = await contaminated()
    try {
      const result = await runReplay(db, options(target))
      // 3 triggers and their 9 primers each answered with it: every answer counted (a primer's too).
      expect(result.results.map((r) => [r.verdict, r.reproduced, r.trials, r.other_markers])).toEqual([['inconclusive', 0, 0, 12]])
      // Stored so that the drafts count it as a trial not judged, never as reproduced or not.
      expect(listReplayResults(db).map((r) => [r.verdict, r.reproduced, r.trials])).toEqual([['inconclusive', 0, 0]])
    } finally {
      db.close()
    }
  })

  it('a primer\'s canary confirms (sanity: the same server shape with the run\'s own markers)', async () => {
    const target = await answering((ask) => `ok ${ask.foreign ?? ''}`)
    const {db} = await contaminated()
    try {
      const result = await runReplay(db, options(target))
      expect(result.results.map((r) => [r.verdict, r.reproduced, r.other_markers])).toEqual([['confirmed', 3, 0]])
    } finally {
      db.close()
    }
  })

  it('the command under --fail-on-leak exits 3 naming the answers with a marker the run gave no one', async () => {
    const target = await answering(() => `ok ${STRANGER}`)
    const {db, path} = await contaminated()
    db.close()
    const r = await run(['replay', '--db', path, '--from-sightings', '--target', target, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--trials', '2', '--timeout', '2', '--fail-on-leak'])
    expect(r.code).toBe(3)
    expect(r.stdout + r.stderr).not.toMatch(/confirmed 1 record/)
    expect(r.stderr).toMatch(/replay could not judge: 8 answers with a marker the run gave no one \(owner unknown\)/)
  })
})
