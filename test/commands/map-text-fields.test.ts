import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `triage --map response=const:hello --fail-on-leak` (or response=status) exited 0 over a log
// holding a leak: every answer read as "hello" (or "200").

const LEAK = 'CANARY-00000000000000000000000000000002'

describe('--map response must name the answer text', () => {
  const setup = () => {
    const dir = tempDir()
    const log = join(dir, 'leak.jsonl')
    writeFileSync(log, `${chatLine({request_id: 'r1'})}\n${chatLine({request_id: 'r2', answer: `code ${LEAK}`})}\n`)
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, `marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tenant-a,sess-1\n${LEAK},tenant-b,sess-9\n`)
    return {dir, log, canaries}
  }

  for (const [map, why] of [
    ['response=const:hello', /const: cannot give the response text/],
    ['response=status', /"status" holds a record's metadata/],
    ['response=model', /"model" holds a record's metadata/],
    ['response=request_id', /"request_id" holds a record's metadata/],
    ['response=regex:model:(m)', /"model" holds a record's metadata/],
  ] as const) {
    it(`${map} is a usage error`, async () => {
      const {dir, log, canaries} = setup()
      const r = await run(['triage', log, '--map', map, '--canaries', canaries, '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(why)
    })
  }

  it('a path to a number is no answer text: the gate does not pass', async () => {
    const {dir, log, canaries} = setup()
    const r = await run(['triage', log, '--map', 'response=response.choices[0].index', '--canaries', canaries, '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/--map response=response\.choices\[0\]\.index: a number, not the response text/)
  })
})
