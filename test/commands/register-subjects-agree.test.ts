import {beforeAll, describe, expect, it} from 'vitest'
import {buildNotifyCase, HOSTILE_TENANT} from '../helpers/notify-case.js'
import {run} from '../helpers/commands.js'

// A processor's register counted the data subjects as the whole case's Article 33 draft does
// (sessions whose data reached another session: 4 here), while the Article 33 drafts it prepares
// for each controller count that controller's end users on either side (those served another's
// data too): summed, a larger figure, and the register said nothing of it. The register now gives
// both, the either-side count equal to the sum of the per-controller drafts' counts.

const NOW = '2026-10-25T12:00:00Z'

interface Register {
  data_subjects: string
  data_subjects_either_side: number | null
  controllers_affected: number | null
}

describe('the register counts data subjects as the Article 33 drafts do, and says where they differ', () => {
  let processorDb: string
  let controllerDb: string
  beforeAll(async () => {
    ;({db: processorDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', processorDb, '--title', 'KV', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'processor'])).code).toBe(0)
    ;({db: controllerDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', controllerDb, '--title', 'KV', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller'])).code).toBe(0)
  })

  it("a processor's register: the whole case's count, and the sum of the per-controller drafts' counts beside it", async () => {
    const reg = JSON.parse((await run(['report', 'register', '--db', processorDb, '--format', 'json'])).stdout) as Register
    let sum = 0
    const controllers = ['acme', 'globex', HOSTILE_TENANT]
    expect(reg.controllers_affected).toBe(controllers.length)
    for (const t of controllers) {
      const r = await run(['report', 'article33', '--db', processorDb, '--format', 'json', '--now', NOW, '--on-behalf-of-controller', t])
      expect(r.code, r.stderr).toBe(0)
      sum += (JSON.parse(r.stdout) as {data_subjects: {approximate: {low: number}}}).data_subjects.approximate.low
    }
    expect(reg.data_subjects_either_side).toBe(sum)
    const whole = JSON.parse((await run(['report', 'article33', '--db', controllerDb, '--format', 'json', '--now', NOW])).stdout) as {data_subjects: {approximate: {low: number}}}
    expect(reg.data_subjects).toMatch(new RegExp(`^at least ${whole.data_subjects.approximate.low} `))
    expect(reg.data_subjects).toContain(`Over all controllers that is ${sum} sessions (a session on both sides counted once), where the ${whole.data_subjects.approximate.low} above count`)
    const md = (await run(['report', 'register', '--db', processorDb])).stdout
    expect(md).toContain(`Over all controllers that is ${sum} sessions`)
  }, 120_000)

  it("a controller's register counts as its Article 33 draft, with nothing added", async () => {
    const reg = JSON.parse((await run(['report', 'register', '--db', controllerDb, '--format', 'json'])).stdout) as Register
    expect(reg.data_subjects_either_side).toBeNull()
    expect(reg.data_subjects).not.toMatch(/either side/)
  })
})
