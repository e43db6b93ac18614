import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// French « aucun » agrees with the noun it stands for: « aucune » for a session, a response, a
// category or a period, « aucun » for a marker or a customer. The drafts fill "none" into fields
// of both genders, so each field takes the form of its own noun.

const MARKER = 'CANARY-a1a1a1a1a1a1a1a1a1a1'

async function oneWayLeak(): Promise<string> {
  const c = makeCase()
  await c.addCanaries([[MARKER, 'acme', 'acme-s1']])
  // acme's marker reaches globex; globex's data reaches nobody, acme receives nothing.
  await c.addFile([
    {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'},
    {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `stale ${MARKER}`},
  ])
  scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
  c.close()
  return c.path
}

describe('French drafts: « aucun » agrees with its noun', () => {
  it('processor notices: no session, no period is « aucune »', async () => {
    const db = await oneWayLeak()
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])).code).toBe(0)
    const globex = await run(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--lang', 'fr'])
    expect(globex.code, globex.stderr).toBe(0)
    expect(globex.stdout).toMatch(/Vos sessions dont les données figurent dans la réponse d'une autre session : aucune\n/)
    expect(globex.stdout).toMatch(/Période \(UTC\) : aucune\n/)
    const acme = await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--lang', 'fr'])
    expect(acme.stdout).toMatch(/Vos sessions concernées : aucune\n/)
    for (const text of [globex.stdout, acme.stdout]) expect(text).not.toMatch(/sessions[^\n]*: aucun\n|Période[^\n]*: aucun\n/)
  })

  it('an Article 33 draft with nothing found: no first or last response, no category is « aucune »', async () => {
    const c = makeCase()
    await c.addCanaries([[MARKER, 'acme', 'acme-s1']])
    await c.addFile([{request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: `own ${MARKER}`}])
    scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    c.close()
    expect((await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'controller'])).code).toBe(0)
    const draft = await run(['report', 'article33', '--db', c.path, '--lang', 'fr'])
    expect(draft.code, draft.stderr).toBe(0)
    expect(draft.stdout).toMatch(/\| Première réponse concernée dans les journaux \| aucune \|/)
    expect(draft.stdout).toMatch(/\| Dernière réponse concernée dans les journaux \| aucune \|/)
    expect(draft.stdout).toMatch(/Catégories de personnes concernées : aucune\n/)
  })
})
