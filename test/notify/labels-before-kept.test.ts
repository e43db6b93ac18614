import {afterEach, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident, requireIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {giveOtherTenantLabels} from '../../src/scope/tenant-view.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA (upgrade, defect 4): a case from before migration 022 kept no labels for the other
// customers a notice names (tenant#N); the first scan after the upgrade numbered them afresh, and
// the follow-up notice gave the same customers other labels than the initial notice sent,
// without a word. Where a notice to the controller was recorded before its labels were kept, the
// follow-up says that its labels may differ.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const G1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const NOW = new Date('2026-10-24T12:00:00Z')

let c: TestCase | undefined
afterEach(() => {
  c?.close()
  c = undefined
})

/** acme's marker in globex's and initech's answers: acme's notice names two other customers by label. */
async function processorCase(): Promise<TestCase> {
  const t = makeCase()
  await t.addCanaries([[A1, 'acme', 'acme-s1'], [G1, 'globex', 'globex-s1']])
  await t.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T10:05:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: `hi ${G1}`, response_text: `Sure ${A1}`},
    {request_id: 'r3', ts_ms: Date.parse('2026-10-22T10:25:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: 'hey', response_text: `Here ${A1}`},
  ])
  scanCase(t.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  // No --controller-deadline-hours: a notice to a controller is due "without undue delay".
  openIncident(t.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
  return t
}

const notify = (t: TestCase, recordedAt: string): void => {
  recordNotification(t.db, requireIncident(t.db), {phase: 'initial', at: new Date('2026-10-23T11:00:00Z'), reference: 'REF1', recipient: 'acme', now: new Date(recordedAt)})
}

describe('labels of other customers given after an earlier notice was recorded', () => {
  it('the follow-up says its labels may differ from the earlier notice\'s (en, fr), naming that notice', async () => {
    c = await processorCase()
    // The notice was recorded first (a case from before migration 022), the labels stored after (the first scan after the upgrade).
    notify(c, '2026-10-23T11:30:00Z')
    giveOtherTenantLabels(c.db, new Date('2026-10-24T09:00:00Z'))
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const n = buildProcessorNotice(facts, 'acme', {language: 'en'})
    expect(n.phase).toBe('follow-up')
    expect(n.your_data_reached_others.other_customers_detail.map((o) => o.label).sort()).toEqual(['tenant#1', 'tenant#2'])
    expect(n.labels_note).toMatch(/^Other customers are named in this notice only by labels .* after our earlier notice to you of 2026-10-23T11:00:00.000Z \(reference REF1\) was recorded, and may differ from the labels that notice used: a label here may name another customer than the same label there/)
    expect(n.statements.find((s) => s.text === n.labels_note)?.rests_on).toEqual([expect.stringMatching(/^notification#\d+$/)])
    expect(renderProcessorNoticeMarkdown(n)).toContain('These labels were given after our earlier notice to you of 2026-10-23T11:00:00.000Z (reference REF1) was recorded, and may differ from the labels that notice used')
    const fr = buildProcessorNotice(facts, 'acme', {language: 'fr'})
    expect(fr.labels_note).toMatch(/^Les autres clients ne sont désignés .* notre notification précédente du 2026-10-23T11:00:00.000Z \(référence REF1\), et peuvent différer/)
    expect(renderProcessorNoticeMarkdown(fr)).toContain('et peuvent différer de ceux qu\'elle employait')
  })

  it('says it too where no label was stored at all when the notice was recorded and none is now', async () => {
    c = await processorCase()
    notify(c, '2026-10-23T11:30:00Z')
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
    expect(n.labels_note).toMatch(/may differ from the labels that notice used/)
  })

  it('says nothing where the labels were kept before the notice was recorded (the same labels throughout)', async () => {
    c = await processorCase()
    giveOtherTenantLabels(c.db, new Date('2026-10-23T09:00:00Z'))
    notify(c, '2026-10-23T11:30:00Z')
    const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
    expect(n.labels_note).toBeNull()
    expect(renderProcessorNoticeMarkdown(n)).not.toMatch(/may differ from the labels/)
  })
})
