import {afterEach, describe, expect, it} from 'vitest'
import {replayFacts} from '../../src/notify/facts.js'
import {PHRASES} from '../../src/notify/phrases.js'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {replayVerdict, runReplay, scalePromptSize, type ReplayOptions} from '../../src/replay/run-replay.js'
import {seededRng} from '../../src/util/rng.js'
import {run, runJson} from '../helpers/commands.js'
import {caseWithRecords, type RecordSeed} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe report, defects 2, 3, 4, 5, 7 and 8: what a replay stores, gates on and drafts must be
// what its synthetic clients were sent. A primer answered with a customer's marker counts; a marker
// cut short by max_tokens is read as the scan reads one (the trigger's own: an echo; a primer's:
// that primer's); stand-ins scaled or clamped are not "same-length"; a trial served among
// rejected ones keeps the record "not reproduced" and the run a confirmation.

const MARKER = 'CANARY-0000aaaa0000aaaa'
const CUSTOMER = 'CANARY-bbbbbbbbbbbbbbbbbbbb'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const isPrimer = (ask: Ask): boolean => ask.path.includes('completions') && ask.prompt.includes('probe-primer')
const isTrigger = (ask: Ask): boolean => ask.path.includes('completions') && !isPrimer(ask)
/** A marker cut short at max_tokens: `CANARY-` and its first 10 hex digits. */
const cut = (marker: string): string => marker.slice(0, 'CANARY-'.length + 10)

async function replay(script: (ask: Ask) => Reply | undefined, seeds: RecordSeed[], extra: Partial<ReplayOptions> = {}) {
  server = await startScriptedServer(script)
  const {db, path} = await caseWithRecords(
    seeds.map((s) => ({response_text: `leak ${MARKER}`, ...s})),
    [
      [MARKER, 'tenant-x', 'sx'],
      [CUSTOMER, 'tenant-b', 'sess-b'],
    ],
  )
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z'), ...extra})
    return {result, stored: listReplayResults(db), path}
  } finally {
    db.close()
  }
}

type Draft = {statements: Array<{section: string; text: string}>}
const investigation = async (path: string, lang = 'en'): Promise<string> =>
  (await runJson<Draft>(['report', 'article33', '--db', path, '--lang', lang])).statements
    .filter((s) => s.section === 'investigation')
    .map((s) => s.text)
    .join(' ')

describe("replay: primers answered with a customer's marker (QA #2)", () => {
  it('are counted, stored and drafted, and trip --fail-on-leak', async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer(`stale text of another customer: ${CUSTOMER}`)} : isTrigger(ask) ? {json: chatAnswer('OK.')} : undefined)
    const {result, stored, path} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    const r = result.results[0]!
    expect(r.other_markers).toBe(9)
    expect(r.other_owners).toEqual([{tenant: 'tenant-b', session: 'sess-b'}])
    expect(stored[0]).toMatchObject({other_markers: 9})
    expect(await investigation(path)).toContain("9 answers (to triggers or to priming requests) carried a marker the replay gave no synthetic tenant")
    expect(await investigation(path, 'fr')).toContain("9 réponses (à des déclencheurs ou à des requêtes d'amorçage) portaient un marqueur")
    const {db, path: p2} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 200, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const cli = await run(['replay', '--db', p2, '--from-sightings', '--target', server!.url, '--trials', '2', '--advertised-tokens', '4096', '--pool-tokens', '1024', '--timeout', '2', '--fail-on-leak'])
    expect(cli.code).toBe(3)
    expect(cli.stderr).toContain('6 answers with a marker the run gave no one (owner unknown)')
  }, 60_000)

  it("with --original-prompt, the trigger's own marker reaching a later primer is the fault reproduced", async () => {
    const prompt = `my account note ${CUSTOMER} please summarise`
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer(ask.foreign === CUSTOMER ? `stale: ${CUSTOMER}` : 'ok')} : isTrigger(ask) ? {json: chatAnswer('OK.')} : undefined)
    const {result} = await replay(script, [{request_id: 'req-b', prompt_tokens: 20, request_text: prompt}], {originalPrompt: true})
    expect(result.results[0]).toMatchObject({scaling: 'original_prompt', verdict: 'confirmed'})
    expect(result.results[0]!.primer_leaks).toBeGreaterThan(0)
  }, 60_000)
})

describe('replay: markers cut short by max_tokens (QA #3, #4)', () => {
  it("the trigger's own marker cut short is an echo: not reproduced, no marker the run gave no one", async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: chatAnswer(`You said: ${cut(ask.own[0]!)}`)} : undefined)
    const {result, path} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'not_reproduced', other_markers: 0, reproduced: 0, judged: 3})
    expect(await investigation(path)).not.toContain('a marker the replay gave no synthetic tenant')
  }, 60_000)

  it("a primer's marker cut short in the trigger's answer is that marker: confirmed", async () => {
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {json: chatAnswer(`stale: ${cut(ask.foreign!)}`)} : undefined)
    const {result, stored} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'confirmed', reproduced: 3, other_markers: 0})
    expect(stored[0]).toMatchObject({verdict: 'confirmed', reproduced: 3})
  }, 60_000)
})

describe('replay: stand-ins scaled or clamped are not "same-length" (QA #5, #7)', () => {
  it('a scaled size past the window is labelled clamped, not scaled_to_pool', () => {
    // 733,103 tokens on a 681,280-token pool scale to 1076 on a 1000-token pool: past a 1000-token window.
    expect(scalePromptSize(733_103, {poolTokens: 1000, maxModelLen: 1000, maxTokens: 32, sourcePoolTokens: 681_280})).toEqual({tokens: 967, scaling: 'clamped_to_window'})
    expect(scalePromptSize(733_103, {poolTokens: 1000, maxModelLen: 4000, maxTokens: 32, sourcePoolTokens: 681_280})).toEqual({tokens: 1076, scaling: 'scaled_to_pool'})
    expect(scalePromptSize(7_331_030, {poolTokens: 1000, maxModelLen: 4000, maxTokens: 32, sourcePoolTokens: 681_280}).scaling).toBe('clamped_to_gap')
  })

  it('the drafts say how the sizes were mapped, in English and French', async () => {
    const script = (ask: Ask): Reply | undefined => (isTrigger(ask) || isPrimer(ask) ? {json: chatAnswer('fine')} : undefined)
    const {stored, path} = await replay(script, [{request_id: 'req-b', prompt_tokens: 733_103}], {trials: 1})
    expect(stored[0]!.scaling).toBe('clamped_to_gap')
    const en = await investigation(path)
    expect(en).not.toContain('same-length')
    expect(en).toContain("stand-ins clamped to a size between the test target's pool and its window")
    const fr = await investigation(path, 'fr')
    expect(fr).not.toContain('de même longueur')
    expect(fr).toContain("ramenés à une taille entre le pool de la cible d'essai et sa fenêtre")
    const g = replayFacts(stored)!.groups[0]!
    expect(g.stand_in_sizes).toEqual([{scaling: 'clamped_to_gap', records: 1}])
    expect(PHRASES.en.replayGroup({...g, stand_in_sizes: [{scaling: 'as_recorded', records: 1}, {scaling: 'scaled_to_pool', records: 2}]})).toContain(
      "(1 request: same-length stand-ins; 2 requests: stand-ins scaled to the test target's KV pool",
    )
  }, 60_000)
})

describe('replay: one trial served, two rejected (QA #8)', () => {
  it('is not reproduced, and the run stays a confirmation', async () => {
    expect(replayVerdict({trials: 3, reproduced: 0, rejected: 2})).toBe('not_reproduced')
    expect(replayVerdict({trials: 3, reproduced: 0, rejected: 3})).toBe('rejected')
    let triggers = 0
    const reject = {status: 400, json: {error: {message: "This model's maximum context length is 1000 tokens. However, your request has 2000 input tokens.", type: 'BadRequestError', code: 400}}}
    const script = (ask: Ask): Reply | undefined => (isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? (triggers++ % 3 === 2 ? {json: chatAnswer('clean')} : reject) : undefined)
    const {result} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'not_reproduced', rejected: 2, judged: 3})
    expect(result.purpose).toBe('confirmation')
  }, 60_000)

  it('every trial rejected is still a negative control by default', async () => {
    const script = (ask: Ask): Reply | undefined =>
      isPrimer(ask) ? {json: chatAnswer('ok')} : isTrigger(ask) ? {status: 400, json: {error: {message: "This model's maximum context length is 1000 tokens.", type: 'BadRequestError', code: 400}}} : undefined
    const {result} = await replay(script, [{request_id: 'req-b', prompt_tokens: 200}])
    expect(result.results[0]).toMatchObject({verdict: 'rejected', rejected: 3})
    expect(result.purpose).toBe('negative-control')
  }, 60_000)
})
