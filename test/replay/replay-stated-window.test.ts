import {afterEach, describe, expect, it} from 'vitest'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {seededRng} from '../../src/util/rng.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe report (hostile servers), defect 4: a stack with no /tokenize and no max_model_len in
// its model list refuses triggers past its own window (2048), below --advertised-tokens. Those
// refusals are the window's, not a fix of the fault: not judged (never "rejected", never a
// negative control by default), as the probe reads the window its refusal names.

const MARKER = 'CANARY-0000aaaa0000aaaa'
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const isPrimer = (ask: Ask): boolean => ask.path.includes('completions') && ask.prompt.includes('probe-primer')
const refusal = {status: 400, json: {error: {message: "This model's maximum context length is 2048 tokens. However, you requested 3032 tokens.", type: 'BadRequestError', code: 400}}}

async function replay(promptTokens: number) {
  const script = (ask: Ask): Reply | undefined => (!ask.path.includes('completions') ? undefined : isPrimer(ask) ? {json: chatAnswer('ok')} : ask.prompt.length > 6000 ? refusal : {json: chatAnswer('fine')})
  server = await startScriptedServer(script)
  const {db} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: promptTokens, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
  const notes: string[] = []
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, primers: 2, advertisedTokens: 16384, poolTokens: 1024, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z'), onProgress: (m) => notes.push(m)})
    return {result, stored: listReplayResults(db), notes}
  } finally {
    db.close()
  }
}

describe("replay reads the window a refusal names (QA probe #4)", () => {
  it('triggers past it refused by it are not judged: inconclusive, a confirmation, said once', async () => {
    const {result, stored, notes} = await replay(3000)
    expect(result.results[0]).toMatchObject({verdict: 'inconclusive', rejected: 0, errors: 3, window_rejections: 3})
    expect(result.purpose).toBe('confirmation')
    expect(stored[0]).toMatchObject({verdict: 'inconclusive'})
    expect(notes.filter((n) => n.includes('run again with --advertised-tokens 2048'))).toHaveLength(1)
  }, 60_000)
})
