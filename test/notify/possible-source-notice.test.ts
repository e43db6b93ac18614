import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildFacts, loadFactsInputs, type CaseFacts, type FactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, rng, type TestCase} from '../helpers/case-builder.js'

// Verbatim text whose source provenance cannot name (the same text in two customers' prompts:
// ambiguous) reached a third customer. Its possible sources may only be told it is possible;
// the customer that received it must not be told it came from "another customer" (it may be
// its own), nor see a customer label standing for a source nobody knows.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
let c: TestCase
let inputs: FactsInputs
const NOW = new Date('2026-10-23T12:00:00Z')

function words(n: number): string {
  const rand = rng(71)
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    let w = ''
    const len = 3 + Math.floor(rand() * 6)
    for (let j = 0; j < len; j++) w += String.fromCharCode(97 + Math.floor(rand() * 26))
    out.push(w)
  }
  return out.join(' ')
}

beforeAll(async () => {
  c = makeCase()
  const article = words(60)
  const shared = article.split(' ').slice(0, 40).join(' ')
  await c.addCanaries([[A1, 'ta', 'sa']])
  await c.addFile([
    {request_id: 'pa', tenant_id: 'ta', session_id: 'sa', request_text: `summarise: ${article} ${A1}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:00:00Z')},
    {request_id: 'pb', tenant_id: 'tb', session_id: 'sb', request_text: `please read ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:01:00Z')},
    // tr receives the text both ta and tb had sent (source ambiguous), and ta's marker (source named)
    {request_id: 'r', tenant_id: 'tr', session_id: 'sr', request_text: 'hello', response_text: `here ${shared} end`, ts_ms: Date.parse('2026-10-22T10:05:00Z')},
    {request_id: 'r2', tenant_id: 'tr', session_id: 'sr2', request_text: 'hello', response_text: `see ${A1}`, ts_ms: Date.parse('2026-10-22T10:06:00Z')},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
  inputs = loadFactsInputs(c.db)
}, 60_000)
afterAll(() => c?.close())

describe('processor notices where a source is not established (ambiguous provenance)', () => {
  it('the recipient: counted as received, attributed to no customer, said as possibly its own', () => {
    const facts: CaseFacts = buildFacts(inputs, NOW)
    expect(facts.scope?.exposure.source_not_named).toBe(1)
    const n = buildProcessorNotice(facts, 'tr', {language: 'en'})
    const got = n.you_received_other_data
    expect(got).toMatchObject({responses: 2, source_not_named: 1, from_customers: 1, from_sessions_of_other_customers: 1})
    // one customer (ta, by its marker): no label stands for the unknown source
    expect(got.other_customers_detail.map((o) => [o.label, o.exposure_responses])).toEqual([['tenant#1', 1]])
    const received = n.what_happened[1]!
    expect(received).toMatch(/^2 responses your users received .*, from 1 session of 1 other customer between /)
    expect(received).toMatch(/1 of them carried verbatim text whose source is not established .*: it may hold another customer's data or your own, and no customer is named as its source\.$/)
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).toContain('- Of these responses, verbatim text whose source is not established (possibly another customer\'s data, possibly your own; attributed to no customer): 1')
    expect(md).not.toContain('tenant\\#2')
    const fr = renderProcessorNoticeMarkdown(buildProcessorNotice(facts, 'tr', {language: 'fr'}))
    expect(fr).toMatch(/1 d'entre elles contenait un texte mot pour mot dont la source n'est pas établie .* : il peut s'agir des données d'un autre client ou des vôtres/)
    expect(fr).toContain("- Parmi ces réponses, texte mot pour mot dont la source n'est pas établie")
  })

  it('a possible source: told it is possible (an open item), never that its data was the source', () => {
    const facts = buildFacts(inputs, NOW)
    const n = buildProcessorNotice(facts, 'ta', {language: 'en'})
    // its marker is the only evidence naming it: the ambiguous text is not counted as its leak
    expect(n.your_data_reached_others).toMatchObject({responses: 1, by_canary: 1, verbatim_only_responses: 0})
    // scan recorded the possible sources (ta's and tb's sessions): ta is told it is one of them
    expect(n.possible_source).toEqual({responses: 1, sessions: ['sa'], possible_sources: {min: 2, max: 2}, not_recorded: 0})
    const possible = n.open_items.find((o) => o.item.startsWith('whether your data was the source'))
    expect(possible).toMatchObject({ref: 'Art. 33(2), 33(4)', record_with: 'crosstalk provenance'})
    expect(possible!.item).toMatch(/\(1 response; you are one of 2 possible sources\) is not established/)
    expect(n.statements.some((s) => /source is not established/.test(s.text))).toBe(false)
    expect(n.statements.some((s) => /was the source/.test(s.text))).toBe(false)
    expect(renderProcessorNoticeMarkdown(n)).toContain('- to be completed: whether your data was the source of the verbatim text served to another customer')
    const fr = buildProcessorNotice(facts, 'ta', {language: 'fr'}).open_items.map((o) => o.item).join('\n')
    expect(fr).toMatch(/si vos données étaient la source du texte mot pour mot servi à un autre client .* n'est pas établi/)
  })

  it('the Article 33 draft a processor prepares for the recipient says the same of its received side', () => {
    const d = buildArticle33(buildFacts(inputs, NOW, {tenant: 'tr'}), {onBehalfOf: 'tr', language: 'en'})
    const received = d.nature.summary.find((s) => s.includes("served to this controller's end users"))!
    expect(received).toMatch(/, from 1 session of 1 other customer between /)
    expect(received).toMatch(/it may hold another customer's data or this controller's own, and no customer is named as its source\.$/)
  })
})
