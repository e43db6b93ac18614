import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {replayVerdict, runReplay, scalePromptSize, type ReplayOptions} from '../../src/replay/run-replay.js'
import {wilsonInterval} from '../../src/replay/wilson.js'
import {startTestbed, type TestbedOptions} from '../../src/testbed/server.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'

const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))

describe('wilson interval and verdicts', () => {
  it('matches known values', () => {
    const five = wilsonInterval(5, 5)
    expect(five.low).toBeCloseTo(0.5655, 3)
    expect(five.high).toBe(1)
    const none = wilsonInterval(0, 10)
    expect(none.low).toBe(0)
    expect(none.high).toBeCloseTo(0.2775, 3)
    const half = wilsonInterval(5, 10)
    expect(half.low).toBeCloseTo(0.2366, 3)
    expect(half.high).toBeCloseTo(0.7634, 3)
  })

  it('decides confirmed / rejected / not_reproduced', () => {
    expect(replayVerdict({trials: 5, reproduced: 1, rejected: 4})).toBe('confirmed')
    expect(replayVerdict({trials: 5, reproduced: 0, rejected: 5})).toBe('rejected')
    expect(replayVerdict({trials: 5, reproduced: 0, rejected: 1})).toBe('not_reproduced')
    // Triggers that all hung or errored tested nothing: inconclusive, never not_reproduced.
    expect(replayVerdict({trials: 3, reproduced: 0, rejected: 0, hung: 2, errors: 1})).toBe('inconclusive')
    expect(replayVerdict({trials: 3, reproduced: 0, rejected: 0, hung: 2, errors: 0})).toBe('not_reproduced')
  })

  it('scales a 700k-token record onto a small target and says how', () => {
    const target = {poolTokens: 1024, maxModelLen: 4096, maxTokens: 32, sourcePoolTokens: null}
    expect(scalePromptSize(700_000, target)).toEqual({tokens: Math.floor((1025 + 4063) / 2), scaling: 'clamped_to_gap'})
    expect(scalePromptSize(300, target)).toEqual({tokens: 300, scaling: 'as_recorded'})
    expect(scalePromptSize(700_000, {...target, sourcePoolTokens: 536_826})).toEqual({tokens: 1335, scaling: 'scaled_to_pool'})
    expect(scalePromptSize(700_000, {...target, poolTokens: null})).toEqual({tokens: 4063, scaling: 'clamped_to_window'})
    // No recorded size: the window's largest prompt is sent, and never labelled as the recorded size or scaled from it.
    expect(scalePromptSize(null, target)).toEqual({tokens: 4063, scaling: 'unrecorded_window_max'})
    expect(scalePromptSize(null, {...target, sourcePoolTokens: 536_826})).toEqual({tokens: 4063, scaling: 'unrecorded_window_max'})
  })
})

async function replayAgainst(tb: TestbedOptions, extra: Partial<ReplayOptions> & Pick<ReplayOptions, 'requestIds'>) {
  const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, ...tb})
  const {db} = await caseWithRecords([
    {request_id: 'req-leaky', prompt_tokens: 700_000, stream: true, request_text: 'Dear support, my IBAN is ...'},
    {request_id: 'req-small', prompt_tokens: 120, endpoint: '/v1/completions'},
  ])
  try {
    const result = await runReplay(db, {fromSightings: false, trials: 4, poolTokens: 1024, timeoutMs: 1000, rng: seededRng(3), now: () => new Date('2026-11-02T07:00:00.000Z'), target: testbed.url, ...extra})
    return {result, db}
  } finally {
    await testbed.close()
  }
}

describe('replay against the testbed', () => {
  it('confirms a contaminated record on stale+disaggregated and stores the result', async () => {
    const {result, db} = await replayAgainst({onOverflow: 'stale', disaggregated: true}, {requestIds: ['req-leaky', 'req-small']})
    const [leaky, small] = result.results
    expect(leaky).toMatchObject({request_id: 'req-leaky', verdict: 'confirmed', reproduced: 4, trials: 4, rate: 1, scaling: 'clamped_to_gap', stream: true, original_prompt_tokens: 700_000})
    expect(leaky!.replay_prompt_tokens).toBeGreaterThan(1024)
    expect(leaky!.wilson_low).toBeCloseTo(0.5101, 3)
    expect(small).toMatchObject({verdict: 'not_reproduced', reproduced: 0, endpoint: '/v1/completions', scaling: 'as_recorded'})
    expect(result.scaling_note).toContain('gap zone')
    expect(result.target_max_model_len).toBe(4096) // read from /tokenize
    const stored = listReplayResults(db)
    expect(stored).toHaveLength(2)
    expect(stored[0]).toMatchObject({run_id: result.run_id, request_id: 'req-leaky', verdict: 'confirmed', original_prompt: false, started_at: '2026-11-02T07:00:00.000Z'})
  })

  it('a record whose trigger hung is inconclusive and stored so, not not_reproduced', async () => {
    const {result, db} = await replayAgainst({onOverflow: 'hang'}, {requestIds: ['req-leaky'], timeoutMs: 300})
    expect(result.results[0]).toMatchObject({request_id: 'req-leaky', verdict: 'inconclusive', reproduced: 0, hung: 1})
    expect(result.interrupted).toBe(true)
    // The testbed is still known for the simulator it is, though it hung (asked before the run).
    expect(result).toMatchObject({target_kind: 'simulator', target_version: '0.0.0+crosstalk.testbed'})
    expect(listReplayResults(db).map((r) => [r.verdict, r.hung])).toEqual([['inconclusive', 1]])
  })

  it('says rejected against a correct server', async () => {
    const {result} = await replayAgainst({onOverflow: 'reject', errorStyle: 'sglang'}, {requestIds: ['req-leaky']})
    expect(result.results[0]).toMatchObject({verdict: 'rejected', rejected: 4, reproduced: 0})
  })

  it('records the target (the testbed says it is the simulator on /version) and the purpose of each run', async () => {
    const {result, db} = await replayAgainst({onOverflow: 'stale', disaggregated: true}, {requestIds: ['req-leaky']})
    expect(result).toMatchObject({target_kind: 'simulator', target_version: '0.0.0+crosstalk.testbed', purpose: 'confirmation', purpose_given: false})
    expect(listReplayResults(db)[0]).toMatchObject({target_kind: 'simulator', target_version: '0.0.0+crosstalk.testbed', purpose: 'confirmation', model: expect.any(String)})
    // A target that rejects every trial is no evidence of the fault: by default it is a negative control, never pooled with a confirmation.
    const rejecting = await replayAgainst({onOverflow: 'reject'}, {requestIds: ['req-leaky']})
    expect(rejecting.result).toMatchObject({purpose: 'negative-control', purpose_given: false})
    expect(listReplayResults(rejecting.db)[0]).toMatchObject({purpose: 'negative-control'})
    // Given explicitly, the purpose is kept whatever the outcome.
    const given = await replayAgainst({onOverflow: 'stale', disaggregated: true}, {requestIds: ['req-leaky'], purpose: 'negative-control'})
    expect(given.result).toMatchObject({purpose: 'negative-control', purpose_given: true})
  })

  it('--from-sightings picks cross-session and cross-tenant records only', async () => {
    const [m0, m1, m2] = ['CANARY-0000aaaa0000aaaa', 'CANARY-0101aaaa0101aaaa', 'CANARY-0202aaaa0202aaaa']
    const {db} = await caseWithRecords(
      [
        {request_id: 'a', prompt_tokens: 3000, response_text: `leak ${m0}`},
        {request_id: 'b', prompt_tokens: 100, session_id: 's1', response_text: `own ${m1}`},
        {request_id: 'c', prompt_tokens: 2000, response_text: `leak ${m2}`},
      ],
      [[m0, 'tenant-x', 'sx'], [m1, 'tenant-a', 's1'], [m2, 'tenant-a', 's9']],
    )
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale'})
    try {
      const result = await runReplay(db, {target: testbed.url, requestIds: [], fromSightings: true, trials: 2, poolTokens: 1024, timeoutMs: 1000, rng: seededRng(1), now: () => new Date()})
      expect(result.results.map((r) => [r.request_id, r.verdict])).toEqual([
        ['a', 'confirmed'],
        ['c', 'confirmed'],
      ])
    } finally {
      await testbed.close()
    }
  })

  it('refuses an unknown request id and a case without sightings', async () => {
    const {db} = await caseWithRecords([{request_id: 'a'}])
    const base = {target: 'http://127.0.0.1:9', trials: 1, timeoutMs: 500, rng: seededRng(1), now: () => new Date()}
    await expect(runReplay(db, {...base, requestIds: ['nope'], fromSightings: false})).rejects.toThrow(/no record with request_id/)
    await expect(runReplay(db, {...base, requestIds: [], fromSightings: true})).rejects.toThrow(/no records selected|no sightings/)
  })
})

describe('crosstalk replay (the command)', () => {
  it('confirms, stores, audits and exits 3 with --fail-on-leak', async () => {
    const {db, path: dbPath} = await caseWithRecords([{request_id: 'req-1', prompt_tokens: 700_000}])
    db.close()
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale', disaggregated: true})
    try {
      const gate = await run(['replay', '--db', dbPath, '--target', testbed.url, '--request-id', 'req-1', '--trials', '3', '--pool-tokens', '1024', '--timeout', '2', '--fail-on-leak', '--json'])
      expect(gate.code).toBe(3)
      const result = JSON.parse(gate.stdout)
      expect(result.results[0]).toMatchObject({request_id: 'req-1', verdict: 'confirmed', trials: 3, reproduced: 3})
      const human = await run(['replay', '--db', dbPath, '--target', testbed.url, '--request-id', 'req-1', '--trials', '2', '--pool-tokens', '1024', '--timeout', '2'])
      expect(human.code).toBe(0)
      expect(human.stdout).toMatch(/req-1\s+confirmed\s+2\/2 = 100% \[95% CI 34%-100%\]/)
      const {openCase} = await import('../../src/store/open-case.js')
      const again = openCase(dbPath)
      expect(listReplayResults(again)).toHaveLength(2)
      const audit = again.prepare(`SELECT command, args FROM audit_log ORDER BY seq`).all() as Array<{command: string; args: string}>
      expect(audit.map((a) => a.command).filter((c) => c === 'replay')).toEqual(['replay', 'replay'])
      again.close()
    } finally {
      await testbed.close()
    }
  })

  it('needs --request-id or --from-sightings (exit 2)', async () => {
    const r = await run(['replay', '--db', path.join(tmp(), 'x.db'), '--target', 'http://127.0.0.1:9'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--request-id')
  })
})
