import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {noRegistryOrphanCase} from '../helpers/orphan-case.js'

// With no canary registry and marker-shaped tokens in answers (orphans), `scope --json` gives the
// exposure as null (whose data the tokens carry is not known), but `scope --tenant T --json` still
// gave each side's exposure as a number: a lower bound read as a total. Both now give null.

describe('scope --tenant --json over orphan markers without a registry', () => {
  it("gives each side's exposure as null, as scope --json gives the case's", async () => {
    const db = await noRegistryOrphanCase()
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as {exposure: unknown}
    expect(scope.exposure).toBeNull()
    for (const t of ['tn-a', 'tn-b']) {
      const r = await run(['scope', '--tenant', t, '--db', db, '--json'])
      expect(r.code, r.stderr).toBe(0)
      const v = JSON.parse(r.stdout) as {received: {exposure: unknown; counterparts: Array<{exposure_responses: unknown}>}; leaked: {exposure: unknown; counterparts: Array<{exposure_responses: unknown}>}}
      expect(v.received.exposure).toBeNull()
      expect(v.leaked.exposure).toBeNull()
      for (const c of [...v.received.counterparts, ...v.leaked.counterparts]) expect(c.exposure_responses).toBeNull()
    }
  })
})
