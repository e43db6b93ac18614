import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident, requireIncident, updateIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice, followsInPhases} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// GDPR Art. 33(4): information may be provided in phases. The processor's notice to a
// controller (Art. 33(2)) states its phase as the Article 33 draft does: an initial notice says
// how many points are still being established and that they follow in a follow-up notice; once
// the initial notice is recorded, a new draft is that follow-up, naming the notice it supplements
// from the record, never "this notice was sent on ...", which was the initial one.

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
}, 60_000)
afterAll(() => c?.close())

describe('the processor notice states its phase (Art. 33(4))', () => {
  it('an initial notice: what is still being established, and that it follows in a follow-up notice', () => {
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
    expect(n.phase).toBe('initial')
    expect(n.previous_notice).toBeNull()
    // counted: the points that follow in phases, not our own records to complete before sending
    const open = n.open_items.filter(followsInPhases).length
    expect(open).toBeGreaterThan(0)
    expect(n.still_being_established).toBe(open)
    const own = n.open_items.length - open
    expect(own).toBeGreaterThan(0)
    expect(n.phase_text).toBe(`This is our initial notice (Art. 33(4): information may be provided in phases). ${open} points are still being established (listed under "Still to be completed"); we will send each in a follow-up notice as soon as it is established. ${own} ${own === 1 ? 'point of our own records is' : 'points of our own records are'} still to be completed (listed under "To record before sending").`)
    expect(n.statements.find((s) => s.section === 'phase')?.rests_on).toEqual(['rule:Art. 33(4)'])
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).toContain('| Phase | initial notification (Art. 33(4): information may be provided in phases) |')
    expect(md).toContain(n.phase_text)
    const fr = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'fr'})
    expect(fr.phase_text).toMatch(/^Il s'agit de notre notification initiale \(art\. 33\.4 : .*\)\. \d+ points restent à établir \(listés sous « Encore à compléter »\)/)
    expect(renderProcessorNoticeMarkdown(fr)).toContain('| Phase | notification initiale (art. 33.4')
  })

  it('asked for a follow-up with no initial notice recorded: the notice it supplements is an open item', () => {
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en', phase: 'follow-up'})
    expect(n.phase).toBe('follow-up')
    expect(n.previous_notice).toBeNull()
    expect(n.open_items.find((o) => o.section === 'phase')).toMatchObject({item: expect.stringMatching(/^the initial notice to this controller that this follow-up supplements/), record_with: expect.stringMatching(/^crosstalk notify record --recipient acme --phase initial /)})
    // Nothing says an initial notice was sent: none is recorded.
    expect(n.phase_text).toMatch(/^This is a follow-up notice, with what has been established since \(Art\. 33\(4\)\); the initial notice it supplements is not recorded here\./)
    expect(n.phase_text).not.toMatch(/our initial notice/)
    const fr = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'fr', phase: 'follow-up'})
    expect(fr.phase_text).toMatch(/^Il s'agit d'une notification complémentaire, .* la notification initiale qu'elle complète n'est pas enregistrée ici\./)
  })

  it('once the initial notice is recorded, a new draft is the follow-up, naming it from the record', () => {
    recordNotification(c.db, requireIncident(c.db), {phase: 'initial', at: new Date('2026-10-23T11:00:00Z'), reference: 'N-1', recipient: 'acme', now: new Date('2026-10-23T11:30:00Z')})
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const n = buildProcessorNotice(facts, 'acme', {language: 'en'})
    expect(n.phase).toBe('follow-up')
    // No contractual period is recorded: whether it was late is not known (null), as clock says, never false.
    expect(n.previous_notice).toEqual({at: '2026-10-23T11:00:00.000Z', reference: 'N-1', late: null})
    expect(n.phase_text).toMatch(/^This notice follows up our initial notice sent on 2026-10-23T11:00:00.000Z \(reference N-1\), with what has been established since \(Art\. 33\(4\)\)\. \d+ points are still being established/)
    expect(n.statements.find((s) => s.section === 'phase')?.rests_on).toEqual([expect.stringMatching(/^notification#\d+$/)])
    // the initial notice's deadline and sending are not this draft's
    expect(n.due.text).toBeNull()
    expect(n.due.sent_text).toBeNull()
    expect(renderProcessorNoticeMarkdown(n)).toContain('| Phase | follow-up notification (Art. 33(4)')
    // regenerating the initial notice as sent is still possible
    const initial = buildProcessorNotice(facts, 'acme', {language: 'en', phase: 'initial'})
    expect(initial.due.sent_text).toBe('This notice was sent on 2026-10-23T11:00:00.000Z.')
    // The controller became aware with the initial notice (EDPB 9/2022): a follow-up never says its 72 hours start on receiving it.
    const next = n.statements.filter((s) => s.section === 'next').map((s) => s.text).join('\n')
    expect(next).not.toContain('start when you receive this notice')
    expect(next).toContain('your 72 hours ran from our initial notice of 2026-10-23T11:00:00.000Z, which made you aware of this breach (deadline 2026-10-26T11:00:00.000Z;')
    expect(n.statements.find((s) => s.section === 'next')?.rests_on).toEqual([expect.stringMatching(/^notification#\d+$/), 'rule:EDPB 9/2022'])
    const frNext = buildProcessorNotice(facts, 'acme', {language: 'fr'}).statements.filter((s) => s.section === 'next').map((s) => s.text).join('\n')
    expect(frNext).not.toContain('courent à réception de cette notification')
    expect(frNext).toContain('vos 72 heures ont couru à compter de notre notification initiale du 2026-10-23T11:00:00.000Z')
    expect(frNext).toContain('échéance le 2026-10-26T11:00:00.000Z')
    // the initial notice itself still says they start on receiving it
    expect(initial.statements.find((s) => s.section === 'next')?.text).toContain('your 72 hours start when you receive this notice')
    // another controller, with no notice recorded, still gets an initial one
    expect(buildProcessorNotice(facts, 'globex', {language: 'en'}).phase).toBe('initial')
  })

  it('our own records still open (the contact point) are counted: never "nothing is still open" beside an open item', async () => {
    const {EN} = await import('../../src/notify/phrases-en.js')
    const {FR} = await import('../../src/notify/phrases-fr.js')
    // the follow-up of the QA report: nothing follows in phases, the contact point is open
    const en = EN.notice.phaseFollowUp({at: '2026-11-02T20:00:00.000Z', reference: 'N-1', late: false}, 0, 1)
    expect(en).not.toContain('Nothing recorded for this notice is still open.')
    expect(en).toContain('1 point of our own records is still to be completed (listed under "To record before sending").')
    expect(EN.notice.phaseInitial(0, 0)).toContain('Nothing recorded for this notice is still open.')
    const fr = FR.notice.phaseFollowUp({at: '2026-11-02T20:00:00.000Z', reference: 'N-1', late: false}, 0, 2)
    expect(fr).not.toContain('ne reste ouvert')
    expect(fr).toContain("2 points de nos propres enregistrements restent à compléter (listés sous « À consigner avant l'envoi »).")
    // and a notice built from the case: whenever it lists an open item, its phase text does not deny it
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
    expect(n.open_items.length).toBeGreaterThan(0)
    expect(n.phase_text).not.toContain('Nothing recorded for this notice is still open.')
  })

  it('a next-update time already past when the notice is issued is an open item, never a promise', () => {
    updateIncident(c.db, {next_update_at: new Date('2026-10-23T11:50:00Z')}, new Date('2026-10-23T11:40:00Z'))
    const ahead = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), new Date('2026-10-23T11:45:00Z')), 'acme', {language: 'en'})
    expect(ahead.next_update.text).toBe('We will send our next update by 2026-10-23T11:50:00.000Z (UTC), with what has been established by then (Art. 33(4)).')
    // issued at 12:00, after the recorded 11:50
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
    expect(n.next_update).toEqual({at: '2026-10-23T11:50:00.000Z', text: null})
    expect(n.statements.map((s) => s.text).join('\n')).not.toContain('We will send our next update by')
    expect(n.open_items).toContainEqual(expect.objectContaining({section: 'phase', item: 'when our next update to you will follow (Art. 33(4)): the date recorded, 2026-10-23T11:50:00.000Z, has passed'}))
    expect(renderProcessorNoticeMarkdown(n)).not.toContain('We will send our next update by')
    const fr = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'fr'})
    expect(fr.next_update.text).toBeNull()
    expect(fr.open_items.map((o) => o.item)).toContain('la date de notre prochaine mise à jour (art. 33.4) : la date enregistrée, 2026-10-23T11:50:00.000Z, est passée')
  })
})
