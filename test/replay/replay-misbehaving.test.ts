import {afterEach, describe, expect, it} from 'vitest'
import {replayFacts} from '../../src/notify/facts.js'
import {listReplayResults, type StoredReplayResult} from '../../src/replay/replay-store.js'
import {runReplay, type ReplayOptions} from '../../src/replay/run-replay.js'
import {wilsonInterval} from '../../src/replay/wilson.js'
import {openCase} from '../../src/store/open-case.js'
import {tokenize} from '../../src/testbed/tokenizer.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {chatAnswer, delta, SERVER_ERROR_EVENT, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// Replays against servers that misbehave as QA's did. A primer's marker with an error beside or
// after it still confirms; a trigger that hung or errored, or that no served primer preceded, is
// no trial; refused credentials and wrong routes are no rejection (nor a negative control).

const MARKER = 'CANARY-0000aaaa0000aaaa'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const isTrigger = (ask: Ask): boolean => ask.path.includes('completions') && !ask.prompt.includes('probe-primer')
const isPrimer = (ask: Ask): boolean => ask.path.includes('completions') && ask.prompt.includes('probe-primer')

async function replay(script: (ask: Ask) => Reply | undefined, extra: Partial<ReplayOptions> = {}, seeds = [{request_id: 'req-chat', prompt_tokens: 120, stream: false}, {request_id: 'req-stream', prompt_tokens: 120, stream: true}]) {
  server = await startScriptedServer(script)
  const {db, path} = await caseWithRecords(seeds.map((s) => ({...s, response_text: `leak ${MARKER}`})), [[MARKER, 'tenant-x', 'sx']])
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 1000, rng: seededRng(9), now: () => new Date('2026-11-02T07:00:00.000Z'), ...extra})
    return {result, stored: listReplayResults(db), path}
  } finally {
    db.close()
  }
}

describe('replay: a primer\'s marker with an error beside or after it confirms', () => {
  it('marker then an in-stream 500 (stream), error key beside choices (plain): confirmed, stored, a confirmation', async () => {
    const {result, stored} = await replay((ask) => {
      if (isPrimer(ask)) return {json: chatAnswer('ok')}
      if (!isTrigger(ask)) return undefined
      return ask.stream ? {sse: [delta(`answer ${ask.foreign}`), SERVER_ERROR_EVENT]} : {json: {...chatAnswer(`answer ${ask.foreign}`), error: {message: 'generation failed', code: 500}}}
    })
    expect(result.results.map((r) => [r.request_id, r.verdict, r.reproduced, r.trials])).toEqual([
      ['req-chat', 'confirmed', 3, 3],
      ['req-stream', 'confirmed', 3, 3],
    ])
    expect(stored.map((r) => r.verdict)).toEqual(['confirmed', 'confirmed'])
    expect(result.purpose).toBe('confirmation')
  })
})

describe('replay: hung or errored triggers are not judged', () => {
  it('2 of 4 triggers errored: the rate and interval are over the 2 judged', async () => {
    let triggers = 0
    const {result, stored} = await replay(
      (ask) => {
        if (isPrimer(ask)) return {json: chatAnswer('ok')}
        if (!isTrigger(ask)) return undefined
        return ++triggers % 2 === 1 ? {status: 500, json: {error: {message: 'boom'}}} : {json: chatAnswer('answer none')}
      },
      {trials: 4},
      [{request_id: 'req-chat', prompt_tokens: 120, stream: false}],
    )
    const w = wilsonInterval(0, 2)
    expect(result.results[0]).toMatchObject({verdict: 'not_reproduced', trials: 4, errors: 2, judged: 2, reproduced: 0, wilson_high: w.high})
    expect(stored[0]).toMatchObject({verdict: 'not_reproduced', trials: 4, errors: 2, wilson_high: w.high})
  })

  it('the drafts count judged trials only, and leave out a stored result nothing judged', () => {
    const row = (over: Partial<StoredReplayResult>): StoredReplayResult => ({
      record_id: 1, request_id: 'r1', endpoint: '/v1/chat/completions', stream: false, original_prompt_tokens: 120, replay_prompt_tokens: 120, scaling: 'as_recorded',
      trials: 5, reproduced: 0, rejected: 0, hung: 0, errors: 0, rate: 0, wilson_low: 0, wilson_high: 0, verdict: 'not_reproduced', no_text: 0, incomplete: 0, primer_leaks: 0, other_markers: 0, unprimed: 0, other_owners: [],
      run_id: 1, started_at: '2026-11-02T07:00:00.000Z', finished_at: '2026-11-02T07:01:00.000Z', target: 'http://127.0.0.1:8000/', model: 'm', original_prompt: false,
      target_kind: 'external', target_version: null, purpose: 'confirmation', interrupted: false, ...over,
    })
    // Stored so by an earlier release: every trigger errored, verdict not_reproduced.
    expect(replayFacts([row({errors: 5})])).toBeNull()
    const facts = replayFacts([row({errors: 5}), row({request_id: 'r2', record_id: 2, errors: 3, hung: 0})])!
    expect(facts.groups[0]).toMatchObject({records: 1, not_reproduced: 1, trials: 2, reproduced: 0})
    expect(facts.groups[0]!.wilson_high).toBeCloseTo(wilsonInterval(0, 2).high, 6)
  })
})

describe('replay: refused credentials and wrong routes are no rejection', () => {
  it('401 on /v1/models: the run does not start (no "default" model, nothing stored)', async () => {
    await expect(replay((ask) => (ask.path === '/v1/models' || ask.path.includes('completions') ? {status: 401, json: {error: {message: 'Unauthorized'}}} : undefined))).rejects.toThrow(/HTTP 401.*pass --api-key/)
  })

  it('404 on every trigger: inconclusive, stored so (never not reproduced), never a negative control', async () => {
    const {result, stored} = await replay((ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {status: 404, json: {error: {message: 'no route'}}} : undefined))
    expect(result.results.map((r) => [r.verdict, r.rejected, r.errors])).toEqual([
      ['inconclusive', 0, 3],
      ['inconclusive', 0, 3],
    ])
    expect(result.purpose).toBe('confirmation')
    expect(stored.map((r) => [r.verdict, r.errors])).toEqual([['inconclusive', 3], ['inconclusive', 3]])
  })

  it('the command: 401 on every request, --fail-on-leak: exit 3 and nothing stored', async () => {
    server = await startScriptedServer(() => ({status: 401, json: {error: {message: 'Unauthorized'}}}))
    const {db, path} = await caseWithRecords([{request_id: 'req-chat', prompt_tokens: 120, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const r = await run(['replay', '--db', path, '--target', server.url, '--from-sightings', '--trials', '2', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json'])
    expect(r.code).toBe(3)
    const again = openCase(path)
    expect(listReplayResults(again)).toEqual([])
    again.close()
  })
})

describe('replay: primers that were not served', () => {
  it('every primer answered 500: no trial ran, the record is stored as inconclusive; the gate exits 3', async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {status: 500, json: {error: {message: 'boom'}}} : isTrigger(ask) ? {json: chatAnswer('answer none')} : undefined)
    const {result, stored, path} = await replay(script)
    for (const r of result.results) expect(r).toMatchObject({verdict: 'inconclusive', trials: 0, unprimed: 3})
    expect(stored.map((r) => [r.verdict, r.trials])).toEqual([['inconclusive', 0], ['inconclusive', 0]])
    const gate = await run(['replay', '--db', path, '--target', server!.url, '--from-sightings', '--trials', '2', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json'])
    expect(gate.code).toBe(3)
    expect(gate.stderr).toMatch(/could not judge: .*not run: no primer was served/)
  })
})

describe('replay: the target\'s window', () => {
  const tokenizer = (maxModelLen: unknown, listed?: number) => (ask: Ask): Reply | undefined => {
    if (ask.path === '/v1/models') return {json: {object: 'list', data: [{id: 'm', object: 'model', ...(listed !== undefined ? {max_model_len: listed} : {})}]}}
    if (ask.path === '/tokenize' || ask.path === '/v1/tokenize') return {json: {count: ask.prompt.split(/\s+/).length, max_model_len: maxModelLen}}
    if (isPrimer(ask)) return {json: chatAnswer('ok')}
    return isTrigger(ask) ? {json: chatAnswer('answer none')} : undefined
  }

  it('SGLang\'s 1e30 from /tokenize is no window: without --advertised-tokens, one clear error naming the flag (not a SQLite error)', async () => {
    await expect(replay(tokenizer(1e30), {advertisedTokens: undefined})).rejects.toThrow(/max_model_len 1e\+30, which is no context window.*pass --advertised-tokens/)
  })

  it('the window /v1/models lists is taken when /tokenize gives none that is real', async () => {
    const {result} = await replay(tokenizer(1e30, 4096), {advertisedTokens: undefined})
    expect(result.target_max_model_len).toBe(4096)
  })
})

describe('replay --original-prompt', () => {
  it('stores the size of the text actually sent, not the recorded prompt_tokens', async () => {
    const text = 'Dear support, my order 1234 has not arrived yet, please help'
    const {result, stored} = await replay(
      (ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: chatAnswer('answer none')} : undefined),
      {originalPrompt: true, trials: 1},
      [{request_id: 'req-chat', prompt_tokens: 3000, stream: false, request_text: text} as never],
    )
    expect(server!.asks.some((a) => isTrigger(a) && a.prompt === text)).toBe(true)
    expect(result.results[0]).toMatchObject({original_prompt_tokens: 3000, replay_prompt_tokens: tokenize(text).length, scaling: 'original_prompt'})
    expect(stored[0]!.replay_prompt_tokens).toBe(tokenize(text).length)
  })
})

describe('crosstalk replay (the command): credentials in --target', () => {
  it('a user:password@ in --target is never stored, audited or printed', async () => {
    server = await startScriptedServer((ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: chatAnswer('answer none')} : undefined))
    const {db, path} = await caseWithRecords([{request_id: 'req-chat', prompt_tokens: 120, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const target = server.url.replace('http://', 'http://admin:S3cretPW@')
    for (const json of [true, false]) {
      const r = await run(['replay', '--db', path, '--target', target, '--from-sightings', '--trials', '1', '--advertised-tokens', '4096', '--timeout', '2', ...(json ? ['--json'] : [])])
      expect(r.code).toBe(0)
      expect(r.stdout + r.stderr).not.toContain('S3cretPW')
      expect(r.stderr).toMatch(/--target held credentials/)
    }
    const again = openCase(path)
    const texts = JSON.stringify([again.prepare('SELECT * FROM replay_runs').all(), again.prepare('SELECT * FROM audit_log').all(), listReplayResults(again)])
    again.close()
    expect(texts).not.toContain('S3cretPW')
    expect(texts).not.toContain('admin')
    expect(server.asks.find(isTrigger)!.headers.authorization).toBe(`Basic ${Buffer.from('admin:S3cretPW').toString('base64')}`)
  })
})
