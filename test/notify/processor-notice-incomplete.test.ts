import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA docs #9: a processor notice drafted (--allow-incomplete) while records ingested were never
// scanned said "No response your users received was found ..." and "**0**" over them; the
// scan then found some. Where detection is incomplete, those sentences are the open item.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
let c: TestCase
const NOW = new Date('2026-10-23T12:00:00Z')

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T10:05:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
  // arrives later, never scanned
  await c.addFile([
    {request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'more', response_text: 'ok'},
  ])
}, 60_000)
afterAll(() => c?.close())

describe('processor notice over an incomplete detection', () => {
  it('never "no response ... was found" nor **0** over records never scanned', () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    expect(facts.detection.complete).toBe(false)
    const n = buildProcessorNotice(facts, 'acme', {language: 'en'})
    const happened = n.what_happened.join('\n')
    expect(happened).not.toMatch(/No response your users received was found/)
    expect(happened).toMatch(/to be completed: detection is incomplete \(1 log file not scanned/)
    expect(n.open_items.map((o) => o.item)).toContainEqual(expect.stringMatching(/^detection is incomplete \(1 log file not scanned/))
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).toMatch(/^- Responses your users received that carried another session's data: \*\*not known\*\* \(none found in the records examined\)/m)
    expect(md).toMatch(/^- Responses that carried your data: \*\*at least 1\*\*/m)
    expect(md).not.toMatch(/\*\*0\*\*/)
  })
})
