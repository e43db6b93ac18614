import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {defaultInputs} from '../../src/notify/assess.js'
import {buildFacts, loadFactsInputs, type FactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {renderArticle33Markdown} from '../../src/notify/render-markdown.js'
import {makeCase, rng, type TestCase} from '../helpers/case-builder.js'

// A response repeats text that two customers' prompts hold alike (provenance: source ambiguous).
// No session, no customer is its source as far as the evidence goes: the drafts must not count
// "the data of 0 sessions of 0 customers", credit its receiver to a named source, or say the data
// went to "the same organisation".

const B1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const NOW = new Date('2026-10-23T12:00:00Z')

function words(seed: number, n: number): string {
  const rand = rng(seed)
  return Array.from({length: n}, () => Array.from({length: 3 + Math.floor(rand() * 6)}, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('')).join(' ')
}

async function build(withNamedLeak: boolean): Promise<{c: TestCase; inputs: FactsInputs}> {
  const c = makeCase()
  const article = words(71, 60)
  const shared = article.split(' ').slice(0, 40).join(' ')
  await c.addCanaries([[B1, 'tb', 'sb']])
  await c.addFile([
    {request_id: 'pa', tenant_id: 'ta', session_id: 'sa', request_text: `summarise: ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:00:00Z')},
    {request_id: 'pb', tenant_id: 'tb', session_id: 'sb', request_text: `please read ${article} ${B1}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:01:00Z')},
    {request_id: 'r', tenant_id: 'tc', session_id: 'sc', request_text: 'hello', response_text: `here ${shared} end`, ts_ms: Date.parse('2026-10-22T10:05:00Z')},
    // tb's marker served to td: a named source, and its receiver
    ...(withNamedLeak ? [{request_id: 'r2', tenant_id: 'td', session_id: 'sd', request_text: 'hello', response_text: `see ${B1}`, ts_ms: Date.parse('2026-10-22T10:06:00Z')}] : []),
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
  return {c, inputs: loadFactsInputs(c.db)}
}

describe('drafts where the only source is not established', () => {
  let c: TestCase
  let inputs: FactsInputs
  beforeAll(async () => ({c, inputs} = await build(false)), 60_000)
  afterAll(() => c?.close())

  it('the Article 33 draft counts no session or customer as the source, says why, and never says "the same organisation"', () => {
    const facts = buildFacts(inputs, NOW)
    expect(facts.scope?.exposure).toMatchObject({responses: 1, sessions: 0, source_tenants: 0, recipient_tenants: 1, source_not_named: 1})
    const md = renderArticle33Markdown(buildArticle33(facts, {language: 'en'}))
    expect(md).not.toMatch(/The data of 0 sessions/)
    expect(md).toContain("It carried verbatim text whose source is not established (the same text in several customers' prompts, or only in answers whose prompts were not logged): no customer is named as its source.")
    expect(md).not.toContain('of the same organisation')
    expect(md).toContain('whether to users of other organisations is not established')
    const fr = renderArticle33Markdown(buildArticle33(facts, {language: 'fr'}))
    expect(fr).not.toMatch(/Les données de 0 session/)
    expect(fr).toContain("Elle contenait un texte mot pour mot dont la source n'est pas établie")
    expect(fr).not.toContain('du même organisme')
  })

  it('assess does not state that no cross-tenant corruption was found', () => {
    const integrity = defaultInputs(buildFacts(inputs, NOW)).find((i) => i.name === 'cb_integrity')!
    expect(integrity.value).toBe(0.25)
    expect(integrity.why).toMatch(/^1 response repeats text whose source is not established, so cross-tenant corruption cannot be ruled out/)
  })
})

describe('drafts with a named source beside one not established', () => {
  let c: TestCase
  let inputs: FactsInputs
  beforeAll(async () => ({c, inputs} = await build(true)), 60_000)
  afterAll(() => c?.close())

  it('the named session is said to reach its own receiver only, and the other response is said apart', () => {
    const facts = buildFacts(inputs, NOW)
    expect(facts.scope?.exposure).toMatchObject({responses: 2, sessions: 1, source_tenants: 1, recipient_tenants: 2, source_not_named: 1})
    const md = renderArticle33Markdown(buildArticle33(facts, {language: 'en'}))
    // the count of receiving customers is the table's (2), the named source's receiver said apart (QA life 07)
    expect(md).toContain('1 of them carried verbatim text whose source is not established')
    expect(md).toContain('They reached 2 receiving customers: the data of 1 session of 1 customer reached 1 of them, and 1 other received only responses whose source is not named.')
    expect(md).not.toContain('1 customer reached 2 receiving customers')
  })
})

describe('the open item of an incomplete detection', () => {
  it('states no count of unscanned files that is not the gap (a scan that did not finish)', async () => {
    const {c} = await build(false)
    // A scan begun after the last finished one and never finished (killed).
    c.db.prepare(`INSERT INTO scan_runs (started_at, registry_version, extract_scheme, full_rescan, provenance_state, min_words, boilerplate_tenants, pool_tokens, advertised_tokens, sighting_rules)
                  SELECT '2026-10-23T09:30:00.000Z', registry_version, extract_scheme, 0, 'stale', min_words, boilerplate_tenants, pool_tokens, advertised_tokens, sighting_rules FROM scan_runs ORDER BY id DESC LIMIT 1`).run()
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    expect(facts.detection).toMatchObject({complete: false, files_not_scanned: 0, unfinished_scan_started_at: '2026-10-23T09:30:00.000Z'})
    const d = buildArticle33(facts, {language: 'en'})
    const item = d.open_items.find((o) => o.section === 'scope')!.item
    expect(item).not.toMatch(/0 log files not scanned/)
    expect(item).toMatch(/^detection is incomplete \(the detection note and crosstalk status say what is missing\)/)
    c.close()
  })
})
