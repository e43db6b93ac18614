import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildArticle34} from '../../src/notify/article34.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA lifecycle #6: the data subjects were informed when the case showed one affected session; a
// log ingested later showed more. The Art. 33 follow-up still said "The data subjects were informed",
// and the next Art. 34 draft ignored the communication already made.

const A1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const NOW = new Date('2026-10-25T12:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'acme', session_id: 'acme-s2', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const facts = () => buildFacts(loadFactsInputs(c.db), NOW)

describe('a communication to the data subjects made before the case grew', () => {
  it('is stated as is while the case has not changed since, and makes the next letter a further communication', () => {
    expect(buildArticle34(facts(), {language: 'en'}).phase).toBe('initial')
    recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DS-1', recipient: 'data-subjects', now: new Date('2026-10-24T10:00:00Z')})
    const a33 = buildArticle33(facts(), {language: 'en'})
    expect(a33.article34.status).toBe('The data subjects were informed on 2026-10-24T09:00:00.000Z (reference DS-1).')
    expect(a33.open_items.map((o) => o.item).join('\n')).not.toMatch(/found since the communication/)
    const a34 = buildArticle34(facts(), {language: 'en'})
    expect(a34.phase).toBe('follow-up')
    expect(a34.notes.join('\n')).toMatch(/already informed on 2026-10-24T09:00:00.000Z \(reference DS-1\): this letter is a further communication\./)
  })

  it('after a log adds affected sessions, says whom it informed as recorded, and the ones found since are open', async () => {
    await c.addFile([{request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'acme', session_id: 'acme-s3', request_text: 'yo', response_text: `Here ${A1}`}])
    scanCase(c.db, {now: new Date('2026-10-25T09:00:00.000Z')})
    const a33 = buildArticle33(facts(), {language: 'en'})
    expect(a33.article34.status).not.toMatch(/^The data subjects were informed/)
    expect(a33.article34.status).toMatch(/known on 2026-10-24T09:00:00.000Z were informed then \(reference DS-1\).*found since may not have been informed/)
    expect(a33.open_items.filter((o) => o.section === 'article34').map((o) => o.item).join('\n')).toMatch(/found since the communication of 2026-10-24T09:00:00.000Z \(reference DS-1\): a scan since it was recorded \(the last on 2026-10-25T09:00:00.000Z\)/)
    const a34 = buildArticle34(facts(), {language: 'en'})
    expect(a34.phase).toBe('follow-up')
    expect(a34.notes.join('\n')).toMatch(/further communication, for those found since/)
    expect(a34.open_items.map((o) => o.item).join('\n')).toMatch(/found since the communication of 2026-10-24T09:00:00.000Z \(reference DS-1\)/)
    const fr = buildArticle33(facts(), {language: 'fr'})
    expect(fr.article34.status).toMatch(/connues le 2026-10-24T09:00:00.000Z ont été informées/)
  })
})
