import {afterAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase} from '../helpers/case-builder.js'

// A customer's session served another of the same customer's sessions' data is a breach of its
// data too (its users saw each other's conversations): the notice states it, with the personal
// data in it, apart from what other customers received or sent.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const A2 = 'CANARY-a2a2a2a2a2a2a2a2a2a2'
const c = makeCase()
afterAll(() => c.close())

describe('the processor notice states exposure within the customer\'s own sessions', () => {
  it('counts the responses and the personal data passed between its own sessions, apart from other customers', async () => {
    await c.addCanaries([[A1, 'acme', 'acme-s1'], [A2, 'acme', 'acme-s2']])
    await c.addFile([
      {request_id: 'r1', ts_ms: Date.parse('2026-10-22T10:05:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
      {request_id: 'r1b', ts_ms: Date.parse('2026-10-22T10:06:00Z'), tenant_id: 'acme', session_id: 'acme-s2', request_text: `${A2} my mails: carol@example.com, dave@example.com`, response_text: 'ok'},
      {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1} mail bob@example.com`},
      {request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:15:00Z'), tenant_id: 'acme', session_id: 'acme-s3', request_text: 'hi', response_text: `Here ${A2}, write to carol@example.com or dave@example.com`},
    ])
    scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
    openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
    const facts = buildFacts(loadFactsInputs(c.db), new Date('2026-10-23T12:00:00Z'))
    const n = buildProcessorNotice(facts, 'acme', {language: 'en'})
    expect(n.within_your_own_sessions).toEqual({responses: 1, receiving_sessions: 1, source_sessions: 1, personal_data_found: [{label: expect.stringMatching(/e-mail/), count: 2}], personal_data_none: null})
    // what other customers sent acme stays apart: none here
    expect(n.you_received_other_data.personal_data_found.reduce((k, p) => k + p.count, 0)).toBe(0)
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).toContain('## Within your own organisation')
    expect(md).toContain("- Responses to your sessions that carried another of your sessions' data: **1**")
    expect(md).toMatch(/\| [^|]*e-mail[^|]* \| 2 \|/)
    const fr = renderProcessorNoticeMarkdown(buildProcessorNotice(facts, 'acme', {language: 'fr'}))
    expect(fr).toContain('## Au sein de votre propre organisation')
    expect(buildProcessorNotice(facts, 'globex', {language: 'en'}).within_your_own_sessions.responses).toBe(0)
  })
})
