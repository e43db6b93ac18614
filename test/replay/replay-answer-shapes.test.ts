import {describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {openCase} from '../../src/store/open-case.js'
import {seededRng} from '../../src/util/rng.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {startShapedServer, type AnswerShape} from '../helpers/shaped-answers.js'

// A replay reads every text the trigger's answer carries; a trigger answered with no readable
// text is judged by nothing, so it never counts as "not reproduced".

const MARKER = 'CANARY-0000aaaa0000aaaa'
const contaminatedCase = () =>
  caseWithRecords(
    [
      {request_id: 'req-chat', prompt_tokens: 120, stream: false, response_text: `leak ${MARKER}`},
      {request_id: 'req-stream', prompt_tokens: 120, stream: true, response_text: `leak ${MARKER}`},
    ],
    [[MARKER, 'tenant-x', 'sx']],
  )

async function replay(shape: AnswerShape, options: Parameters<typeof startShapedServer>[1] = {}) {
  const server = await startShapedServer(shape, options)
  const {db} = await contaminatedCase()
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')})
    return {result, stored: listReplayResults(db), served: server.served()}
  } finally {
    db.close()
    await server.close()
  }
}

describe('replay: answer shapes', () => {
  it.each(['parts', 'reasoning_content', 'reasoning', 'tool_call', 'refusal'] as const)('a primer\'s marker in %s (plain and streamed) confirms the record', async (shape) => {
    const {result, stored} = await replay(shape)
    expect(result.results.map((r) => [r.request_id, r.verdict, r.reproduced, r.trials, r.no_text])).toEqual([
      ['req-chat', 'confirmed', 3, 3, 0],
      ['req-stream', 'confirmed', 3, 3, 0],
    ])
    expect(stored.map((r) => r.verdict)).toEqual(['confirmed', 'confirmed'])
  })

  it.each(['empty', 'null'] as const)('content %s: no trial judged, inconclusive, and stored so, never as not reproduced', async (shape) => {
    const {result, stored, served} = await replay(shape)
    expect(served).toBeGreaterThan(0)
    for (const r of result.results) expect(r).toMatchObject({verdict: 'inconclusive', trials: 0, reproduced: 0, no_text: 3})
    expect(result.results).toHaveLength(2)
    expect(stored.map((r) => [r.verdict, r.no_text, r.incomplete])).toEqual([['inconclusive', 3, 0], ['inconclusive', 3, 0]])
  })
})

describe('replay: a trigger answered with a stream not read whole (QA: stored not_reproduced, the draft said 0 of N reproduced)', () => {
  it.each(['cut', 'malformed'] as const)('a stream %s, no marker in what was read: not a trial, inconclusive, stored so', async (fault) => {
    const {result, stored, served} = await replay('plain', {leak: false, streamFault: fault})
    expect(served).toBeGreaterThan(0)
    expect(result.results).toHaveLength(2)
    for (const r of result.results) expect(r).toMatchObject({verdict: 'inconclusive', trials: 0, reproduced: 0, no_text: 0, incomplete: 3})
    expect(stored.map((r) => [r.verdict, r.no_text, r.incomplete])).toEqual([['inconclusive', 0, 3], ['inconclusive', 0, 3]])
  })

  it('the command with --fail-on-leak: exit 3, the replay could not judge; no not_reproduced stored', async () => {
    const server = await startShapedServer('plain', {leak: false, streamFault: 'malformed'})
    const {db, path: dbPath} = await contaminatedCase()
    db.close()
    try {
      const gate = await run(['replay', '--db', dbPath, '--target', server.url, '--from-sightings', '--trials', '2', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json'])
      expect(gate.code).toBe(3)
      expect(gate.stderr).toMatch(/could not judge: 4 answers not read whole/)
      const again = openCase(dbPath)
      expect(listReplayResults(again).map((r) => [r.verdict, r.incomplete])).toEqual([['inconclusive', 2], ['inconclusive', 2]])
      again.close()
    } finally {
      await server.close()
    }
  })
})

describe('crosstalk replay --from-sightings --fail-on-leak (the command)', () => {
  it('answers with no text: exit 3, the replay could not judge, no negative result stored', async () => {
    const server = await startShapedServer('null')
    const {db, path: dbPath} = await contaminatedCase()
    db.close()
    try {
      const gate = await run(['replay', '--db', dbPath, '--target', server.url, '--from-sightings', '--trials', '2', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json'])
      expect(gate.code).toBe(3)
      expect(JSON.parse(gate.stdout).results.map((r: {verdict: string}) => r.verdict)).toEqual(['inconclusive', 'inconclusive'])
      expect(gate.stderr).toContain('replay could not judge: 4 answers with no readable text')
      const human = await run(['replay', '--db', dbPath, '--target', server.url, '--from-sightings', '--trials', '2', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2'])
      expect(human.stdout).toMatch(/req-chat\s+inconclusive\s+0\/0 .*2 answers with no readable text \(not counted\)/)
      expect(human.stdout).toContain('2 inconclusive: no trigger was judged (each hung, errored, had no readable text, was not read whole or no primer served), stored as inconclusive')
      const again = openCase(dbPath)
      // Two runs, each storing its two records as inconclusive (none as not reproduced).
      expect(listReplayResults(again).map((r) => [r.verdict, r.no_text])).toEqual([['inconclusive', 2], ['inconclusive', 2], ['inconclusive', 2], ['inconclusive', 2]])
      again.close()
    } finally {
      await server.close()
    }
  })
})
