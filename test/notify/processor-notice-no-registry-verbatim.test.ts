import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice, processorNoticeJson, processorNoticeJsonSchema} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA docs #5: with no canary registry no marker was ever checked, so how many responses carried
// "verbatim text, no marker" is not known: the processor notice and its JSON gave the verbatim
// count as that figure (the Article 33 draft of the same case says "not known").

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'
let c: TestCase
const NOW = new Date('2026-11-02T12:00:00Z')

beforeAll(async () => {
  c = makeCase()
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-11-01T10:00:00Z'), tenant_id: 'tn-a', session_id: 'sa', request_text: `please note: ${TEXT}`, response_text: 'noted'},
    {request_id: 'r2', ts_ms: Date.parse('2026-11-01T10:05:00Z'), tenant_id: 'tn-b', session_id: 'sb', request_text: 'hello', response_text: `Sure. ${TEXT}`},
  ])
  scanCase(c.db, {now: new Date('2026-11-02T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T08:00:00Z'), now: new Date('2026-11-02T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

describe('no canary registry: the processor notice gives no "verbatim, no marker" count', () => {
  it('null in the notice and its JSON, "not known" in its table', () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const a = buildProcessorNotice(facts, 'tn-a', {language: 'en'})
    expect(a.canary_registry).toBe(false)
    expect(a.your_data_reached_others.responses).toBe(1)
    expect(a.your_data_reached_others.by_canary).toBeNull()
    expect(a.your_data_reached_others.verbatim_only_responses).toBeNull()
    const b = buildProcessorNotice(facts, 'tn-b', {language: 'en'})
    expect(b.you_received_other_data.responses).toBe(1)
    expect(b.you_received_other_data.verbatim_only_responses).toBeNull()
    expect(processorNoticeJsonSchema.parse(processorNoticeJson(a)).your_data_reached_others.verbatim_only_responses).toBeNull()
    // the per-customer rows: responses, marker not known, "no marker" not known either
    expect(renderProcessorNoticeMarkdown(a)).toMatch(/^\| tenant\\#1 \| 1 \| not known \| not known \| /m)
    expect(renderProcessorNoticeMarkdown(b)).toMatch(/^\| tenant\\#1 \| 1 \| not known \| not known \| /m)
    expect(renderProcessorNoticeMarkdown(buildProcessorNotice(facts, 'tn-a', {language: 'fr'}))).toMatch(/^\| \S+ \| 1 \| non connu \| non connu \| /m)
  })
})
