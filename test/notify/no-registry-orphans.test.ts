import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {noRegistryOrphanCase} from '../helpers/orphan-case.js'

// With no canary registry, a marker found in another tenant's answer is attributed to no session
// (an orphan): whether it carries another session's data is not known. No draft may say that none
// was found over it (QA repro-noregistry-allclear: every draft did), and the exposure is not known.

describe('no canary registry, a marker in another tenant\'s answer', () => {
  it('is an open item wherever a draft would say none was found, and the exposure is not known', async () => {
    const db = await noRegistryOrphanCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)

    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout)
    expect(scope.orphan_sightings).toBe(1)
    expect(scope.contaminated_responses).toBeNull()
    expect(scope.exposure).toBeNull()
    const console = (await run(['scope', '--db', db])).stdout
    expect(console).toMatch(/responses carrying another session's data\s+unknown/)

    const item = /1 marker-shaped token found in answers is attributed to no session because the case holds no canary registry/
    const a33 = await run(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(a33.code, a33.stderr).toBe(0)
    expect(a33.stdout).not.toContain("found no response carrying another session's data")
    expect(a33.stdout).toMatch(/\| 60 \| Nature of incident \| to be completed: 1 marker-shaped token/)
    expect(a33.stdout).toMatch(/\| Responses carrying another session's data \| not known: 1 marker-shaped token with no canary registry/)
    const a33json = JSON.parse((await run(['report', 'article33', '--db', db, '--lang', 'en', '--format', 'json'])).stdout)
    expect(a33json.open_items.map((o: {item: string}) => o.item).join('\n')).toMatch(item)

    const a34 = await run(['report', 'article34', '--db', db, '--lang', 'en'])
    expect(a34.code, a34.stderr).toBe(0)
    expect(a34.stdout).not.toContain('found no answer that showed text from another person')
    expect(a34.stdout).toMatch(item)

    const register = await run(['report', 'register', '--db', db, '--lang', 'en'])
    expect(register.code, register.stderr).toBe(0)
    expect(register.stdout).not.toMatch(/none: detection/)
    expect(register.stdout).toMatch(/\| Effects \| to be completed: 1 marker-shaped token/)

    const fr = await run(['report', 'article34', '--db', db, '--lang', 'fr'])
    expect(fr.stdout).toMatch(/1 jeton en forme de marqueur trouvé dans des réponses n'est attribué à aucune session/)
  }, 60_000)
})
