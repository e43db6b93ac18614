import {afterEach, describe, expect, it} from 'vitest'
import {replayFacts} from '../../src/notify/facts.js'
import {PHRASES} from '../../src/notify/phrases.js'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay, type ReplayOptions} from '../../src/replay/run-replay.js'
import {seededRng} from '../../src/util/rng.js'
import {run, runJson} from '../helpers/commands.js'
import {caseWithRecords, type RecordSeed} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA's replay findings: what a run stores and the drafts say must be what was sent and seen.
// --original-prompt on a record whose log holds no prompt text sends a stand-in (said so, per
// record); a primer's answer carrying another synthetic tenant's marker is a leak observed; a
// marker the run gave no one is stored with the owner the case's registry names; no trigger
// judged is no rate (not 0).

const MARKER = 'CANARY-0000aaaa0000aaaa'
const REGISTERED = 'CANARY-bbbbbbbbbbbbbbbbbbbb'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const isPrimer = (ask: Ask): boolean => ask.path.includes('completions') && ask.prompt.includes('probe-primer')
const isTrigger = (ask: Ask): boolean => ask.path.includes('completions') && !isPrimer(ask)

async function replay(script: (ask: Ask) => Reply | undefined, seeds: RecordSeed[], extra: Partial<ReplayOptions> = {}) {
  server = await startScriptedServer(script)
  const {db, path} = await caseWithRecords(
    seeds.map((s) => ({response_text: `leak ${MARKER}`, ...s})),
    [
      [MARKER, 'tenant-x', 'sx'],
      [REGISTERED, 'tenant-b', 'sess-b'],
    ],
  )
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 2, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 2000, rng: seededRng(3), now: () => new Date('2026-11-02T07:00:00.000Z'), ...extra})
    const runFlag = db.prepare('SELECT original_prompt FROM replay_runs').pluck().all()
    return {result, stored: listReplayResults(db), path, runFlag}
  } finally {
    db.close()
  }
}

type Draft = {statements: Array<{section: string; text: string}>}
const investigation = async (path: string): Promise<string> =>
  (await runJson<Draft>(['report', 'article33', '--db', path, '--lang', 'en'])).statements
    .filter((s) => s.section === 'investigation')
    .map((s) => s.text)
    .join(' ')

describe('replay --original-prompt on a record whose log holds no request text', () => {
  it('is sent a stand-in, stored and drafted as such (the run is not stored as re-sending originals)', async () => {
    const {result, stored, path, runFlag} = await replay((ask) => (isTrigger(ask) || isPrimer(ask) ? {json: chatAnswer('fine')} : undefined), [{request_id: 'req-b', prompt_tokens: 200, request_text: null}], {originalPrompt: true})
    expect(result.results.map((r) => r.scaling)).toEqual(['as_recorded'])
    expect(result.original_prompt).toBe(false)
    expect(result.original_prompt_requested).toBe(true)
    expect(runFlag).toEqual([0])
    expect(stored[0]!.scaling).toBe('as_recorded')
    const said = await investigation(path)
    expect(said).not.toContain('The original prompts were re-sent')
    expect(said).toContain('The original prompts were not re-sent (same-length stand-ins).')
  }, 60_000)

  it('with one record that has text and one that has none: the draft says which were re-sent', async () => {
    const {result, path, runFlag} = await replay((ask) => (isTrigger(ask) || isPrimer(ask) ? {json: chatAnswer('fine')} : undefined), [{request_id: 'req-a', prompt_tokens: 20, request_text: 'a logged prompt of some words'}, {request_id: 'req-b', prompt_tokens: 200, request_text: null}], {originalPrompt: true})
    expect(result.results.map((r) => [r.request_id, r.scaling])).toEqual([
      ['req-a', 'original_prompt'],
      ['req-b', 'as_recorded'],
    ])
    expect(runFlag).toEqual([1])
    expect(await investigation(path)).toContain('The original prompts of 1 of these 2 requests were re-sent (an explicit, audited opt-in); the others were not (same-length stand-ins: the log held no prompt text).')
  }, 60_000)
})

describe("replay searches the primers' answers", () => {
  it("primers answered with another synthetic tenant's marker, triggers clean: a leak observed, confirmed, stored, drafted, gate fails", async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer(ask.foreign ? `ok ${ask.foreign}` : 'ok')} : isTrigger(ask) ? {json: chatAnswer('clean answer')} : undefined)
    const {result, stored, path} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}], {trials: 3})
    const r = result.results[0]!
    expect(r.reproduced).toBe(0)
    expect(r.primer_leaks).toBeGreaterThan(0)
    expect(r.verdict).toBe('confirmed')
    expect(stored[0]).toMatchObject({verdict: 'confirmed', primer_leaks: r.primer_leaks})
    expect(await investigation(path)).toContain(`${r.primer_leaks} answers to the replay's priming requests carried another synthetic tenant's marker: the target leaked during the replay`)
    // The command's gate: exit 3, not 0.
    const {db, path: p2} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 200, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const cli = await run(['replay', '--db', p2, '--from-sightings', '--target', server!.url, '--trials', '2', '--advertised-tokens', '4096', '--pool-tokens', '1024', '--timeout', '2', '--fail-on-leak'])
    expect(cli.code).toBe(3)
  }, 60_000)
})

describe('replay: a marker the run gave no one', () => {
  it('is stored with the owner the case registry names, and the drafts say so', async () => {
    const {result, stored, path} = await replay((ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: chatAnswer(`answer ${REGISTERED}`)} : undefined), [{request_id: 'req-b', prompt_tokens: 200}])
    const r = result.results[0]!
    expect(r.other_markers).toBe(2)
    expect(r.other_owners).toEqual([{tenant: 'tenant-b', session: 'sess-b'}])
    expect(r.other_unowned).toBe(0)
    expect(stored[0]).toMatchObject({other_markers: 2, unprimed: 0, primer_leaks: 0, other_owners: [{tenant: 'tenant-b', session: 'sess-b'}]})
    expect(await investigation(path)).toContain("2 answers (to triggers or to priming requests) carried a marker the replay gave no synthetic tenant, or one cut short so that whose it is cannot be told (not judged, and no sign that the target is clean), the case's canary registry assigns such markers to 1 customer session")
  }, 60_000)
})

describe('replay: no trigger judged is no rate', () => {
  it('rate null in the result and the row, "not known" on the console', async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {status: 500, json: {error: {message: 'boom'}}} : undefined)
    const {result, stored} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'inconclusive', judged: 0, rate: null})
    expect(stored[0]!.rate).toBeNull()
    expect(replayFacts(stored)).not.toBeNull()
    const {db, path} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 200, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const cli = await run(['replay', '--db', path, '--from-sightings', '--target', server!.url, '--trials', '2', '--advertised-tokens', '4096', '--timeout', '2'])
    expect(cli.stdout).toContain('rate not known (no trigger judged)')
    expect(cli.stdout).not.toContain('0/0 = 0%')
    expect(PHRASES.en.replayGroup(replayFacts(stored)!.groups[0]!)).not.toContain('0 %')
  }, 60_000)
})

describe("replay: the target's own window below --advertised-tokens", () => {
  it('is refused before anything is sent, naming the window to pass; no run is stored as a negative control', async () => {
    const script = (ask: Ask): Reply | undefined => {
      if (ask.path === '/v1/models') return {json: {object: 'list', data: [{id: 'm', object: 'model', max_model_len: 1200}]}}
      if (!isTrigger(ask) && !isPrimer(ask)) return undefined
      return ask.prompt.split(/\s+/).length > 1100 ? {status: 400, json: {error: {message: "This model's maximum context length is 1200 tokens. However, your request has 5000 input tokens.", type: 'BadRequestError', code: 400}}} : {json: chatAnswer('fine')}
    }
    server = await startScriptedServer(script)
    const {db} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 5000, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    try {
      await expect(runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: 8192, timeoutMs: 2000, rng: seededRng(3), now: () => new Date('2026-11-02T07:00:00.000Z')})).rejects.toThrow(/max_model_len 1200.*--advertised-tokens 1200/)
      expect(listReplayResults(db)).toEqual([])
      expect(server.asks.filter((a) => isTrigger(a) || isPrimer(a))).toEqual([])
    } finally {
      db.close()
    }
  }, 60_000)
})

describe('replay: a target that hangs on the first completion request', () => {
  it('nothing replayed: exit 1, not 0 with "0 of 0 records"', async () => {
    server = await startScriptedServer((ask) => (ask.path.includes('completions') ? 'hang' : undefined))
    const {db, path} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 200, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const cli = await run(['replay', '--db', path, '--from-sightings', '--target', server.url, '--trials', '2', '--advertised-tokens', '4096', '--timeout', '1'])
    expect(cli.code).toBe(1)
    expect(cli.stdout + cli.stderr).toMatch(/hung on POST \/v1\/chat\/completions/)
    expect(cli.stdout).not.toContain('0 of 0 records')
  }, 60_000)
})

describe('article33.md names the replay target readably', () => {
  it('host, port and path with the scheme apart, never "http:\\/\\/"', async () => {
    const {path} = await replay((ask) => (isTrigger(ask) || isPrimer(ask) ? {json: chatAnswer('fine')} : undefined), [{request_id: 'req-b', prompt_tokens: 200}])
    const md = await run(['report', 'article33', '--db', path, '--lang', 'en'])
    const port = new URL(server!.url).port
    expect(md.stdout).toContain(`127.0.0.1:${port}/ (http)`)
    expect(md.stdout).not.toContain(':\\/\\/127.0.0.1')
  }, 60_000)
})

describe("replay: a proxy's 413 page and text before a 400 event are no rejection", () => {
  it('413 HTML on every trigger: inconclusive, not rejected, and no negative control by default', async () => {
    const page = '<html><head><title>413 Request Entity Too Large</title></head><body><center>nginx</center></body></html>'
    const {result} = await replay((ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {status: 413, headers: {'content-type': 'text/html'}, raw: page} : undefined), [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'inconclusive', rejected: 0})
    expect(result.purpose).toBe('confirmation')
  }, 60_000)

  it('a stream of text then a 400 error event: served and judged, not rejected', async () => {
    const {result} = await replay(
      (ask) => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {sse: [{object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: 'Sure, here it is'}}]}, {error: {message: 'too long', type: 'BadRequestError', code: 400}}]} : undefined),
      [{request_id: 'req-b', prompt_tokens: 200, stream: true}],
    )
    expect(result.results[0]).toMatchObject({verdict: 'not_reproduced', rejected: 0, judged: 2})
  }, 60_000)
})
