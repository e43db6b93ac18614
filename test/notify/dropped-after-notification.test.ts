import {basename} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dropFiles} from '../../src/case/drop-files.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {appendAudit} from '../../src/store/audit.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA lifecycle #9: a log file listed in a notified Art. 33 annex was dropped afterwards; the
// follow-up and the register left it out without a word, and the figures fell with no reason given.

const A1 = 'CANARY-e3e3e3e3e3e3e3e3e3e3'
const NOW = new Date('2026-10-25T12:00:00Z')
let c: TestCase
let second: string

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  second = await c.addFile([{request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: 'yo', response_text: `Here ${A1}`}])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const facts = () => buildFacts(loadFactsInputs(c.db), NOW)
const withdrawn = (texts: readonly string[]) => texts.filter((t) => /withdrawn/i.test(t))

describe('evidence dropped after a notification', () => {
  it('is named in the follow-up and the register, with when and the reason the drop recorded', () => {
    recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DPA-1', recipient: 'authority', now: new Date('2026-10-24T10:00:00Z')})
    expect(withdrawn(buildArticle33(facts(), {language: 'en'}).investigation)).toEqual([])
    // as `crosstalk drop` does: the drop, then its audit entry (files, reason, what was dropped)
    const result = dropFiles(c.db, [second], 'belongs to another incident')
    appendAudit(c.db, {at: new Date('2026-10-24T15:00:00Z'), command: 'drop', args: {files: [second], reason: result.reason}, version: 'test', summary: result})
    scanCase(c.db, {now: new Date('2026-10-24T16:00:00.000Z')})
    const name = basename(second)
    const said = withdrawn(buildArticle33(facts(), {language: 'en'}).investigation)
    expect(said).toHaveLength(1)
    expect(said[0]).toContain(`since the notification of 2026-10-24T09:00:00.000Z (reference DPA-1): the log file ${name}`)
    expect(said[0]).toContain('dropped from the case on 2026-10-24T15:00:00.000Z; reason recorded: belongs to another incident')
    expect(said[0]).not.toContain(second.slice(0, second.length - name.length))
    const register = buildRegisterEntry(facts(), {language: 'en'})
    expect(register.evidence).toContain(`withdrawn after the notification of 2026-10-24T09:00:00.000Z: ${name} sha256 ${result.dropped[0]!.sha256}, dropped on 2026-10-24T15:00:00.000Z (reason recorded: belongs to another incident)`)
  })
})

describe('evidence dropped after a processor notice', () => {
  it('is named in the follow-up notice to that controller', async () => {
    const p = makeCase()
    try {
      await p.addCanaries([[A1, 'acme', 'acme-s1']])
      await p.addFile([
        {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
        {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
      ])
      const extra = await p.addFile([{request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: 'yo', response_text: `Here ${A1}`}])
      scanCase(p.db, {now: new Date('2026-10-23T09:00:00.000Z')})
      openIncident(p.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
      recordNotification(p.db, getIncident(p.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'N-1', recipient: 'acme', now: new Date('2026-10-24T10:00:00Z')})
      const result = dropFiles(p.db, [extra], 'wrong incident')
      appendAudit(p.db, {at: new Date('2026-10-24T15:00:00Z'), command: 'drop', args: {files: [extra], reason: result.reason}, version: 'test', summary: result})
      scanCase(p.db, {now: new Date('2026-10-24T16:00:00.000Z')})
      const {buildProcessorNotice} = await import('../../src/notify/processor-notice.js')
      const n = buildProcessorNotice(buildFacts(loadFactsInputs(p.db), NOW), 'acme', {language: 'en'})
      expect(withdrawn(n.investigation)).toEqual([expect.stringContaining(`since the notification of 2026-10-24T09:00:00.000Z (reference N-1): the log file ${basename(extra)}`)])
      expect(withdrawn(n.investigation)[0]).toContain('reason recorded: wrong incident')
    } finally {
      p.close()
    }
  })
})

describe('a canary registry withdrawn after a notification', () => {
  it('is named as the registry it was in the follow-up and the register, with when and why, and that who received whose data may differ', () => {
    const r = makeCase()
    return (async () => {
      try {
        // The notified registry gave A1 to acme; it is withdrawn, and the corrected one gives it to initech.
        await r.addCanaries([[A1, 'acme', 'acme-s1']])
        await r.addFile([
          {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
          {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
        ])
        scanCase(r.db, {now: new Date('2026-10-23T09:00:00.000Z')})
        openIncident(r.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
        recordNotification(r.db, getIncident(r.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DPA-7', recipient: 'authority', now: new Date('2026-10-24T10:00:00Z')})
        const registryPath = r.db.prepare("SELECT path FROM files WHERE kind = 'canaries'").pluck().get() as string
        const result = dropFiles(r.db, [registryPath], 'registry of another cluster', (summary) =>
          appendAudit(r.db, {at: new Date('2026-10-24T15:00:00Z'), command: 'drop', args: {files: [registryPath], reason: 'registry of another cluster'}, version: 'test', summary}),
        )
        expect(result.registries_dropped).toHaveLength(1)
        await r.addCanaries([[A1, 'initech', 'initech-s1']])
        scanCase(r.db, {now: new Date('2026-10-24T16:00:00.000Z')})
        const said = withdrawn(buildArticle33(facts2(r), {language: 'en'}).investigation)
        expect(said).toHaveLength(1)
        expect(said[0]).toContain(`(reference DPA-7): the canary registry ${basename(registryPath)}`)
        expect(said[0]).toContain('withdrawn from the case on 2026-10-24T15:00:00.000Z; reason recorded: registry of another cluster')
        expect(said[0]).toContain('who received whose data may differ')
        expect(said[0]).not.toContain('the log file')
        const register = buildRegisterEntry(facts2(r), {language: 'en'})
        expect(register.evidence).toContain(`withdrawn after the notification of 2026-10-24T09:00:00.000Z: canary registry ${basename(registryPath)} sha256 ${result.registries_dropped[0]!.sha256}`)
        const fr = buildArticle33(facts2(r), {language: 'fr'}).investigation.filter((t) => t.startsWith('Preuve retirée'))
        expect(fr[0]).toContain(`le registre de canaris ${basename(registryPath)}`)
      } finally {
        r.close()
      }
    })()
  })
})

const facts2 = (t: TestCase) => buildFacts(loadFactsInputs(t.db), NOW)
