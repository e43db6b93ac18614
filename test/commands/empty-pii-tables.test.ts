import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// A table of personal data with no row said nothing: a header alone. Where detection covered the
// case, the notice says what was looked for and that none was found; where it did not, the open
// item stands there instead (a "to be completed" that the list of open items names).

const MARKER = 'CANARY-a1a1a1a1a1a1a1a1a1a1'

async function oneWayLeak(unscannedAfter = false): Promise<string> {
  const c = makeCase()
  await c.addCanaries([[MARKER, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'},
    {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `stale ${MARKER}`},
  ])
  scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
  if (unscannedAfter) await c.addFile([{request_id: 'r3', tenant_id: 'acme', session_id: 'acme-s2', request_text: 'x', response_text: 'y'}])
  c.close()
  const opened = await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])
  expect(opened.code, opened.stderr).toBe(0)
  return c.path
}

describe('personal-data tables with no row', () => {
  it('a processor notice says what was searched for and that none was found, never a bare header', async () => {
    const db = await oneWayLeak()
    const md = await run(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--lang', 'en'])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).not.toMatch(/\| Category of personal data in what you received \| Distinct values \|/)
    expect(md.stdout).not.toMatch(/\| Category \| Distinct values \|/)
    expect(md.stdout).toContain('None found: the responses your users received were searched for e-mail addresses, phone numbers, IBANs, payment card numbers and IP addresses')
    expect(md.stdout).toContain('None: no response to another session carried your data.')
    const json = JSON.parse((await run(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--format', 'json'])).stdout) as {
      you_received_other_data: {personal_data_found: unknown[]; personal_data_none: string | null}
    }
    expect(json.you_received_other_data.personal_data_found).toEqual([])
    expect(json.you_received_other_data.personal_data_none).toMatch(/^None found/)
    const fr = await run(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--lang', 'fr'])
    expect(fr.stdout).not.toMatch(/\| Catégorie de données personnelles reçues \| Valeurs distinctes \|/)
    expect(fr.stdout).toContain('Aucune trouvée : les réponses reçues par vos utilisateurs ont été analysées')
  })

  it('where detection did not cover the case, the open item stands in its place', async () => {
    const db = await oneWayLeak(true)
    const r = await run(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--format', 'json', '--allow-incomplete'])
    expect(r.code, r.stderr).toBe(0)
    const n = JSON.parse(r.stdout) as {you_received_other_data: {personal_data_none: string}; open_items: Array<{item: string}>}
    expect(n.you_received_other_data.personal_data_none).toMatch(/^to be completed: detection is incomplete/)
    expect(n.open_items.map((o) => `to be completed: ${o.item}`)).toContain(n.you_received_other_data.personal_data_none)
  })

  it('an Article 33 draft with nothing found says so where the category table was', async () => {
    const c = makeCase()
    await c.addCanaries([[MARKER, 'acme', 'acme-s1']])
    await c.addFile([{request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: `own ${MARKER}`}])
    scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    c.close()
    expect((await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'controller'])).code).toBe(0)
    const draft = await run(['report', 'article33', '--db', c.path, '--lang', 'en'])
    expect(draft.stdout).not.toMatch(/\| Category \| Count \| Responses \|/)
    expect(draft.stdout).toMatch(/never reproduced here; content categories: responses\):\n\n[^|\n]*found no/)
  })
})
