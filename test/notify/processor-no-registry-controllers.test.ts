import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {noRegistryOrphanCase} from '../helpers/orphan-case.js'

// QA docs #3: a processor's case with no canary registry whose answers hold a marker-shaped token
// (an orphan): whose data it carries is not known, so neither is which controllers are affected.
// clock said "0 of 0 notified / none: ... no controller is affected", the register "0 of 0",
// processor-notice --all wrote 0 notices silently and --tenant said "has no exposure".

describe('processor, no canary registry, a marker in an answer', () => {
  it('says the controllers to notify are not known, never none', async () => {
    const db = await noRegistryOrphanCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])).code).toBe(0)

    const clock = await run(['clock', '--db', db, '--now', '2026-11-02T10:00:00Z'])
    expect(clock.code, clock.stderr).toBe(0)
    expect(clock.stdout).not.toMatch(/0 of 0 notified|no controller is affected/)
    expect(clock.stdout).toMatch(/how many are to be notified is not known yet: marker-shaped tokens found in answers could not be attributed/)
    const json = JSON.parse((await run(['clock', '--db', db, '--now', '2026-11-02T10:00:00Z', '--json'])).stdout)
    expect(json.controllers_known).toBe(false)
    expect(json.controllers_unknown_because).toBe('markers')

    const register = await run(['report', 'register', '--db', db])
    expect(register.stdout).not.toMatch(/\| Controllers notified \| 0 of 0 \|/)
    expect(register.stdout).toMatch(/\| Controllers notified \| 0 of 0 found so far; how many controllers are to be notified is not known \(marker-shaped tokens/)
    const registerJson = JSON.parse((await run(['report', 'register', '--db', db, '--format', 'json'])).stdout)
    expect(registerJson.controllers_known).toBe(false)

    const all = await run(['report', 'processor-notice', '--db', db, '--all', '--out', join(dirname(db), 'n'), '--json'])
    expect(all.code, all.stderr).toBe(0)
    expect(JSON.parse(all.stdout).controllers_known).toBe(false)
    expect(all.stderr).toMatch(/the controllers affected are not known: 1 marker-shaped token found in answers could not be attributed/)

    const one = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-b'])
    expect(one.code).toBe(1)
    expect(one.stderr).not.toMatch(/has no exposure in this case/)
    expect(one.stderr).toMatch(/is not known; ingest the canary registry/)
  }, 120_000)
})
