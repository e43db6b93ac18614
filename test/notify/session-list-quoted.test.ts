import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA tenants #6: acme has sessions "chat 1", "chat 2" and "chat 1, chat 2"; only the last leaked.
// Joined unquoted, the notice read as if sessions "chat 1" and "chat 2" had leaked.

let c: TestCase
beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([['CANARY-1111111111111111', 'acme', 'chat 1, chat 2'], ['CANARY-3333333333333333', 'acme', 'chat 1'], ['CANARY-4444444444444444', 'acme', 'chat 2'], ['CANARY-2222222222222222', 'beta', 'b1']])
  const at = (i: number) => Date.parse(`2026-11-02T06:00:0${i}Z`)
  await c.addFile([
    {request_id: 'q1', ts_ms: at(1), tenant_id: 'acme', session_id: 'chat 1', request_text: 'hi CANARY-3333333333333333', response_text: 'a'},
    {request_id: 'q2', ts_ms: at(2), tenant_id: 'acme', session_id: 'chat 2', request_text: 'hi CANARY-4444444444444444', response_text: 'b'},
    {request_id: 'q3', ts_ms: at(3), tenant_id: 'acme', session_id: 'chat 1, chat 2', request_text: 'hi CANARY-1111111111111111', response_text: 'c'},
    {request_id: 'q4', ts_ms: at(4), tenant_id: 'beta', session_id: 'b1', request_text: 'hi CANARY-2222222222222222', response_text: 'leak CANARY-1111111111111111'},
  ])
  scanCase(c.db, {now: new Date('2026-11-02T11:00:00Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T12:00:00Z'), now: new Date('2026-11-02T12:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

describe('session ids in a processor notice', () => {
  it('are quoted where one holds the separator or white space, so the list is unambiguous', () => {
    const md = renderProcessorNoticeMarkdown(buildProcessorNotice(buildFacts(loadFactsInputs(c.db), new Date('2026-11-02T14:00:00Z')), 'acme', {language: 'en'}))
    const line = md.split('\n').find((l) => l.includes("Your sessions whose data appeared in another session's response"))
    expect(line).toBeDefined()
    expect(line).toMatch(/: "chat 1, chat 2"\s*\|?\s*$/)
  })
})
