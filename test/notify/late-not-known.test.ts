import {afterEach, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident, requireIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {renderArticle33Markdown} from '../../src/notify/render-markdown.js'
import {giveOtherTenantLabels} from '../../src/scope/tenant-view.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA (upgrade, defect 2): a processor with no contractual deadline notified a controller; `clock` said its lateness is
// not known (late: null), yet the Article 33 draft's table said "Late: no" and its JSON
// "late": false: the regulator's document asserted a fact the case does not hold.

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

describe("a notification's lateness where it has no fixed deadline", () => {
  it('is not known (null) in the Article 33 draft for the controller, its table and its statement, in en and fr, never "no"', async () => {
    c = await processorCase()
    giveOtherTenantLabels(c.db, new Date('2026-10-23T09:00:00Z'))
    notify(c, '2026-10-23T11:30:00Z')
    const facts = buildFacts(loadFactsInputs(c.db, {tenant: 'acme'}), NOW, {tenant: 'acme'})
    const a33 = buildArticle33(facts, {language: 'en', onBehalfOf: 'acme'})
    expect(a33.notifications).toHaveLength(1)
    expect(a33.notifications[0]!.late).toBeNull()
    const md = renderArticle33Markdown(a33)
    const row = md.split('\n').find((l) => l.includes('| REF1 |'))!
    expect(row).toContain('| REF1 | not known (no fixed deadline: without undue delay) |')
    expect(row).not.toMatch(/\| REF1 \| no \|/)
    expect(md).toMatch(/\(reference REF1\); whether it was late is not known: no fixed deadline/)
    const fr = renderArticle33Markdown(buildArticle33(facts, {language: 'fr', onBehalfOf: 'acme'}))
    expect(fr.split('\n').find((l) => l.includes('| REF1 |'))).toContain("| REF1 | non connu (pas d'échéance fixe : dans les meilleurs délais) |")
  })

  it('is not known in the register (its lateness and its notification line) and in the notice that follows up', async () => {
    c = await processorCase()
    giveOtherTenantLabels(c.db, new Date('2026-10-23T09:00:00Z'))
    notify(c, '2026-10-23T11:30:00Z')
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const register = buildRegisterEntry(facts, {language: 'en'})
    expect(facts.clock!.late).toBeNull()
    expect(register.late).toBeNull()
    expect(register.notification_references).toContain('ref REF1')
    expect(register.notification_references).toContain('(late: not known, no fixed deadline)')
    expect(buildRegisterEntry(facts, {language: 'fr'}).notification_references).toContain("(retard : non connu, pas d'échéance fixe)")
    const followUp = buildProcessorNotice(facts, 'acme', {language: 'en'})
    expect(followUp.previous_notice).toEqual({at: '2026-10-23T11:00:00.000Z', reference: 'REF1', late: null})
  })

  it('stays a fact where there is one: within a contractual period, late is false and the table says no', async () => {
    c = await processorCase()
    c.db.prepare('UPDATE incident SET controller_deadline_hours = 24').run()
    notify(c, '2026-10-23T11:30:00Z')
    const facts = buildFacts(loadFactsInputs(c.db, {tenant: 'acme'}), NOW, {tenant: 'acme'})
    // Aware 08:00, notified 11:00, 24 contractual hours: in time.
    expect(facts.notifications[0]!.late).toBe(false)
    const md = renderArticle33Markdown(buildArticle33(facts, {language: 'en', onBehalfOf: 'acme'}))
    expect(md.split('\n').find((l) => l.includes('| REF1 |'))).toContain('| REF1 | no |')
  })
})
