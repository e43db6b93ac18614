import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// `assess --decide X` without --rationale exited 1 where its mirror (--rationale without --decide)
// exits 2; and a DPC held to its 1-4 scale printed an equation that does not hold ("4 + 1 + 1 = 4").

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaaaaaa'
let db: string

beforeAll(async () => {
  const dir = tempDir()
  db = join(dir, 'x.db')
  writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n`)
  writeFileSync(join(dir, 'app.jsonl'), `${bareLine('r1', 'tn-a', 's-a', `${A} hi`, 'ok', '2026-11-02T08:00:00Z')}\n`)
  expect((await run(['triage', join(dir, 'app.jsonl'), '--canaries', join(dir, 'reg.csv'), '--db', db])).code).toBe(0)
})

describe('crosstalk assess', () => {
  it('--decide without --rationale is a usage error (exit 2), as --rationale without --decide is', async () => {
    const r = await run(['assess', '--db', db, '--decide', 'notify'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--decide needs --rationale/)
    expect((await run(['assess', '--db', db, '--decide', 'notify', '--rationale', '  '])).code).toBe(2)
    expect((await run(['assess', '--db', db, '--rationale', 'because'])).code).toBe(2)
  })

  it('a DPC sum outside 1-4 is shown with where it was held, never as a false equation', async () => {
    const up = await run(['assess', '--db', db, '--dpc', '4', '--vulnerable-subjects', '--data-volume', 'high', '--reason', 'vulnerable_subjects=x'])
    expect(up.code, up.stderr).toBe(0)
    expect(up.stdout).toMatch(/^DPC = 4 \+ 1 \+ 1 = 6, capped at 4 \(DPC is 1 to 4\)$/m)
    const down = await run(['assess', '--db', db, '--dpc', '1', '--public-data', '--inaccurate-data'])
    expect(down.code, down.stderr).toBe(0)
    expect(down.stdout).toMatch(/^DPC = 1 - 1 - 1 = -1, held at 1 \(DPC is 1 to 4\)$/m)
    // Within the scale the sum is the DPC, said once.
    const within = await run(['assess', '--db', db, '--dpc', '2', '--vulnerable-subjects', '--reason', 'vulnerable_subjects=x'])
    expect(within.stdout).toMatch(/^DPC = 2 \+ 1 = 3$/m)
  })
})
