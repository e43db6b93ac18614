import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {listProvenance} from '../../src/detect/list.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {affectedTenants, buildProcessorNotice, followsInPhases} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, rng, type TestCase} from '../helpers/case-builder.js'

// The same passage in two customers' prompts (tn-alpha, tn-bravo) reached a third (tn-charlie):
// provenance cannot name its source (ambiguous). tn-bravo is involved in nothing else. Its data
// may have been disclosed, so the processor notifies it (Art. 33(2)): that it may be the source,
// one of 2 possible sources, not established; never who the other customers are. Where the
// possible sources were not recorded (a case scanned before schema 13), every notice says so as
// an open item, never "none".

const C1 = 'CANARY-c1c1c1c1c1c1c1c1c1c1'
const NOW = new Date('2026-10-23T12:00:00Z')
let c: TestCase

function words(seed: number, n: number): string {
  const rand = rng(seed)
  return Array.from({length: n}, () => Array.from({length: 3 + Math.floor(rand() * 6)}, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('')).join(' ')
}

beforeAll(async () => {
  c = makeCase()
  const article = words(83, 60)
  const shared = article.split(' ').slice(0, 40).join(' ')
  await c.addCanaries([[C1, 'tn-charlie', 'sess-charlie']])
  await c.addFile([
    {request_id: 'pa', tenant_id: 'tn-alpha', session_id: 'sess-alpha', request_text: `summarise: ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:00:00Z')},
    {request_id: 'pb', tenant_id: 'tn-bravo', session_id: 'sess-bravo', request_text: `please read ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:01:00Z')},
    {request_id: 'r', tenant_id: 'tn-charlie', session_id: 'sess-charlie', request_text: 'hello', response_text: `here ${shared} end`, ts_ms: Date.parse('2026-10-22T10:05:00Z')},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

describe('possible sources of ambiguous text (processor notices)', () => {
  it('scan records the possible sources of the finding, sessions with their tenants', () => {
    const row = c.db.prepare('SELECT source_status, source_tenants, source_candidates FROM provenance').get() as {source_status: string; source_tenants: number; source_candidates: string | null}
    expect(row).toMatchObject({source_status: 'ambiguous', source_tenants: 2})
    expect(JSON.parse(row.source_candidates!)).toEqual([
      {tenant_id: 'tn-alpha', session_id: 'sess-alpha'},
      {tenant_id: 'tn-bravo', session_id: 'sess-bravo'},
    ])
    // crosstalk provenance --json lists them (the responder's own listing, not a notice)
    expect(listProvenance(c.db)[0]).toMatchObject({source_status: 'ambiguous', possible_sources: [{tenant: 'tn-alpha', session: 'sess-alpha'}, {tenant: 'tn-bravo', session: 'sess-bravo'}]})
  })

  it('a possible source involved in nothing else gets a notice: it may be the source, one of 2, not established; no other customer named', () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    expect(affectedTenants(facts)).toEqual(['tn-alpha', 'tn-bravo', 'tn-charlie'])
    for (const language of ['en', 'fr'] as const) {
      const n = buildProcessorNotice(facts, 'tn-bravo', {language})
      expect(n.possible_source).toEqual({responses: 1, sessions: ['sess-bravo'], possible_sources: {min: 2, max: 2}, not_recorded: 0})
      // nothing of it reached anyone as far as the evidence names a source
      expect(n.your_data_reached_others.responses).toBe(0)
      const md = renderProcessorNoticeMarkdown(n)
      for (const other of ['tn-alpha', 'sess-alpha', 'tn-charlie', 'sess-charlie']) {
        expect(JSON.stringify(n)).not.toContain(other)
        expect(md).not.toContain(other)
      }
      const open = n.open_items.find((o) => o.section === 'investigation' && o.record_with === 'crosstalk provenance')!
      expect(followsInPhases(open)).toBe(true)
      if (language === 'en') {
        expect(n.what_happened).toContain(
          "1 response served to another customer's users carried verbatim text that 1 session of yours also held: your data may be the source of that text. You are one of 2 possible sources (customers whose sessions held the same text); which of them it came from is still open.",
        )
        expect(open.item).toBe('whether your data was the source of the verbatim text served to another customer (1 response; you are one of 2 possible sources) is not established; we will tell you once it is')
        expect(md).toContain('(you are one of 2 possible sources): 1; your sessions among them: sess-bravo')
      } else {
        expect(n.what_happened.join('\n')).toContain("vos données peuvent être la source de ce texte. Vous êtes l'une de 2 sources possibles")
        expect(open.item).toMatch(/^si vos données étaient la source du texte mot pour mot servi à un autre client \(1 réponse ; vous êtes l'une de 2 sources possibles\) n'est pas établi/)
        expect(md).toContain("(vous êtes l'une de 2 sources possibles) : 1 ; vos sessions concernées : sess-bravo")
      }
    }
  })

  it('the recipient is not told it is a possible source of what it received', () => {
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'tn-charlie', {language: 'en'})
    expect(n.possible_source).toEqual({responses: 0, sessions: [], possible_sources: null, not_recorded: 0})
    expect(n.you_received_other_data.source_not_named).toBe(1)
    expect(JSON.stringify(n)).not.toMatch(/tn-alpha|tn-bravo/)
  })

  it('possible sources not recorded (a case scanned before schema 13): every notice has it as an open item, never none', () => {
    c.db.prepare('UPDATE provenance SET source_candidates = NULL').run()
    try {
      expect(listProvenance(c.db)[0]!.possible_sources).toBeNull()
      const facts = buildFacts(loadFactsInputs(c.db), NOW)
      // nobody can be told it is a possible source: only the recipient is known
      expect(affectedTenants(facts)).toEqual(['tn-charlie'])
      const n = buildProcessorNotice(facts, 'tn-charlie', {language: 'en'})
      expect(n.possible_source).toEqual({responses: 0, sessions: [], possible_sources: null, not_recorded: 1})
      const open = n.open_items.find((o) => o.record_with === 'crosstalk scan')!
      expect(open.item).toMatch(/^1 response in this incident carried verbatim text that several customers' sessions held alike, and its possible sources were not recorded when the case was scanned .*: whether your data was among them is not established/)
      expect(renderProcessorNoticeMarkdown(n)).toContain(`- to be completed: ${open.item}`)
      const fr = buildProcessorNotice(facts, 'tn-charlie', {language: 'fr'})
      expect(fr.open_items.map((o) => o.item).join('\n')).toMatch(/ses sources possibles n'ont pas été enregistrées lors de l'analyse du dossier/)
    } finally {
      scanCase(c.db, {now: new Date('2026-10-23T09:30:00.000Z')})
    }
  })
})

describe('what the notice counts as still being established', () => {
  it('counts the points listed under "Still to be completed", not our own records (processor name, contact point, next update)', () => {
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'tn-charlie', {language: 'en'})
    const items = n.open_items.map((o) => o.item)
    expect(items).toContain('the processor: name and contact details')
    const md = renderProcessorNoticeMarkdown(n)
    const still = md.split('## Still to be completed')[1]!.split('\n## ')[0]!
    const listed = still.split('\n').filter((l) => l.startsWith('- '))
    expect(n.phase_text).toContain(`${listed.length} points are still being established (listed under "Still to be completed")`)
    expect(n.still_being_established).toBe(listed.length)
    expect(still).not.toContain('the processor: name and contact details')
    expect(still).toContain('the cause of the breach')
    // our own records stay listed, apart
    const before = md.split('## To record before sending')[1]!
    expect(before).toContain('- to be completed: the processor: name and contact details')
    expect(before).toContain('- to be completed: when our next update to you will follow')
  })
})
