import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {buildTimeline} from '../../src/scope/build-timeline.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {computeTenantView} from '../../src/scope/tenant-view.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderArticle33Markdown, renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {defaultInputs} from '../../src/notify/assess.js'
import {renderScan} from '../../src/cli/render-detect.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'
import {makeCase} from '../helpers/case-builder.js'
import {chatLine} from '../helpers/log-lines.js'

// Scope over records as the real ingest writes them: timestamps with offsets and
// microseconds or in epoch milliseconds, usage-derived prompt_tokens, a marker found by scan.
describe('scope over ingested logs', () => {
  it('counts at-risk responses and reports first/last seen in UTC to the millisecond', async () => {
    const dir = tempDir()
    const marker = 'CANARY-aaaaaaaaaaaaaaaa'
    const log = path.join(dir, 'gw.jsonl')
    fs.writeFileSync(
      log,
      [
        chatLine({request_id: 'r1', ts: '2026-11-02T08:00:00.123456+02:00', tenant_id: 'acme', session_id: 's1', decode_node: 'd1', prompt_tokens: 681280, answer: `here: ${marker}`}),
        chatLine({request_id: 'r2', ts: 1793606400999, tenant_id: 'beta', session_id: 's2', decode_node: 'd1', prompt_tokens: 700000, status: 413}),
        chatLine({request_id: 'r3', ts: '2026-11-02T07:30:00Z', tenant_id: 'beta', session_id: 's3', decode_node: 'd2', prompt_tokens: 5}),
      ].join('\n') + '\n',
    )
    const registry = path.join(dir, 'canaries.csv')
    fs.writeFileSync(registry, `marker,tenant_id,session_id,issued_at\n${marker},beta,s3,\n`)
    const db = openCase(path.join(dir, 'case.db'), {create: true})
    try {
      const now = () => new Date('2026-11-03T00:00:00.000Z')
      expect(await ingestLogs(db, {paths: [log], now, workers: 0})).toMatchObject({records: 3})
      await ingestCanaries(db, {path: registry, now})
      scanCase(db, {now: now(), poolTokens: 681280})
      expect(computeScope(loadScopeInputs(db))).toMatchObject({
        contaminated_responses: 1,
        first_seen: '2026-11-02T06:00:00.123Z',
        last_seen: '2026-11-02T06:00:00.123Z',
        at_risk_responses: 1,
        pool_basis: 'recorded',
        flows: [{source_tenant: 'beta', recipient_tenant: 'acme', responses: 1}],
      })
    } finally {
      db.close()
    }
  })
})

describe('scope over logs that record no HTTP status', () => {
  it('gives every at-risk figure as unknown (null), never 0: per node, per hour, per tenant, in the timeline and the bounds built on them', async () => {
    const tc = makeCase()
    try {
      await tc.addCanaries([['CANARY-bbbbbbbbbbbbbbbb', 'acme', 's1']])
      await tc.addFile([
        {request_id: 'a', tenant_id: 'acme', session_id: 's1', status: null, decode_node: 'd1', prompt_tokens: 900_000, request_text: 'mine CANARY-bbbbbbbbbbbbbbbb', response_text: 'ok'},
        {request_id: 'b', tenant_id: 'beta', session_id: 's2', status: null, decode_node: 'd1', prompt_tokens: 900_000, response_text: 'yours: CANARY-bbbbbbbbbbbbbbbb'},
      ])
      const scanned = scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z'), poolTokens: 681_280})
      // The scan's own figure too: unknown, never the 0 a count over no judgeable record gives.
      expect(scanned).toMatchObject({at_risk: null, pool_tokens: 681_280, above_advertised: null})
      expect(renderScan(scanned)).toContain('At risk (status 200, prompt >= pool): unknown at pool 681280: no record gives both its HTTP status and its prompt size.')
      const inputs = loadScopeInputs(tc.db)
      const scope = computeScope(inputs)
      expect(scope).toMatchObject({contaminated_responses: 1, at_risk_responses: null, at_risk_unknown_records: 2, pool_tokens: 681_280})
      expect(scope.by_node.map((n) => n.at_risk_responses)).toEqual([null])
      expect(scope.by_hour.map((h) => h.at_risk_responses)).toEqual([null])
      expect(scope.records_concerned.high).toBeNull()
      expect(scope.data_subjects.high).toBeNull()
      // The pool is known: the methods say what is missing instead (never "give --pool-tokens").
      for (const e of [scope.records_concerned, scope.data_subjects]) {
        expect(e.method).toContain('high: not bounded: no record gives both its HTTP status and its prompt size, so no response can be judged at risk.')
        expect(e.method).not.toContain('--pool-tokens')
      }
      const draft = buildArticle33(buildFacts(loadFactsInputs(tc.db), new Date('2026-11-03T00:00:00Z')))
      expect(draft.open_items.map((o) => o.item)).toContain(
        'upper bound of the number of data subjects and records: no log record gives both its HTTP status and its prompt size, so no response can be judged at risk (logs that record both would bound it)',
      )
      expect(draft.open_items.map((o) => o.item).join('\n')).not.toContain('the KV pool size is not known')
      // The assessment's default number of individuals says the same.
      const individuals = defaultInputs(buildFacts(loadFactsInputs(tc.db), new Date('2026-11-03T00:00:00Z'))).find((i) => i.name === 'individuals')!
      expect(individuals.why).toBe("the scope's LOW bound (1 session), because its high bound is not known (no record gives both its HTTP status and its prompt size): at least 1 individual, maybe more; set --individuals if you know the number")
      expect(computeTenantView(inputs, {tenant: 'beta'}).at_risk_responses).toBeNull()
      expect(buildTimeline(inputs, []).hours.map((h) => h.at_risk_responses)).toEqual([null])
    } finally {
      tc.db.close()
    }
  })
})

describe('scope over logs where some records leave their at-risk test open', () => {
  it('counts only the records whose missing field decides it, keeps the bounds upper bounds, and every document says the count beside the at-risk figure', async () => {
    const tc = makeCase()
    try {
      const t0 = Date.parse('2026-11-02T06:00:00Z')
      await tc.addCanaries([['CANARY-cccccccccccccccc', 'acme', 's1']])
      await tc.addFile([
        // known at risk: status 200, prompt over the pool
        {request_id: 'r1', tenant_id: 'acme', session_id: 's1', decode_node: 'd1', prompt_tokens: 900_000, request_text: 'mine CANARY-cccccccccccccccc', response_text: 'ok', ts_ms: t0},
        // known not at risk whatever they lack: refused without a prompt size; no status but a prompt below the pool
        {request_id: 'r2', tenant_id: 'beta', session_id: 's2', status: 404, decode_node: 'd1', prompt_tokens: null, response_text: 'no', ts_ms: t0 + 1000},
        {request_id: 'r3', tenant_id: 'beta', session_id: 's3', status: null, decode_node: 'd1', prompt_tokens: 100, response_text: 'fine', ts_ms: t0 + 2000},
        // open: no status and a prompt over the pool; status 200 and no prompt size (this one carries a leak)
        {request_id: 'r4', tenant_id: 'beta', session_id: 's4', status: null, decode_node: 'd2', prompt_tokens: 900_000, response_text: 'fine', ts_ms: t0 + 3000},
        {request_id: 'r5', tenant_id: 'beta', session_id: 's5', status: 200, decode_node: 'd2', prompt_tokens: null, response_text: 'yours: CANARY-cccccccccccccccc', ts_ms: t0 + 9000},
        // served by d2 inside the window the open records span: counted in the data-subject bound
        {request_id: 'r6', tenant_id: 'gamma', session_id: 's6', decode_node: 'd2', prompt_tokens: 50, response_text: 'hello', ts_ms: t0 + 5000},
      ])
      scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z'), poolTokens: 681_280})
      const inputs = loadScopeInputs(tc.db)
      const scope = computeScope(inputs)
      expect(scope).toMatchObject({at_risk_responses: 1, at_risk_unknown_records: 2, contaminated_responses: 1})
      // r1 known at risk, r4 and r5 open (r5 the confirmed leak, counted once)
      expect(scope.records_concerned.high).toBe(3)
      expect(scope.records_concerned.method).toContain('every record whose status or prompt size is not recorded where that leaves open whether it was one (2)')
      // d1's window is r1 alone; d2's runs from r4 to r5 and takes in s6 served between them: s1, s4, s5, s6
      expect(scope.data_subjects.high).toBe(4)
      expect(computeTenantView(inputs, {tenant: 'beta'})).toMatchObject({at_risk_responses: 0, at_risk_unknown_records: 2})
      const facts = buildFacts(loadFactsInputs(tc.db), new Date('2026-11-03T00:00:00Z'))
      const draft = buildArticle33(facts)
      expect(draft.scope?.at_risk_unknown_records).toBe(2)
      expect(renderArticle33Markdown(draft)).toMatch(/\| Responses at risk \(prompt at or over the KV pool of 681280 tokens\) \| 1 \(and 2 records whose HTTP status or prompt size the logs do not give, so whether they were at risk is not known\) \|/)
      expect(renderArticle33Markdown(buildArticle33(facts, {language: 'fr'}))).toContain("1 (et 2 enregistrements dont les journaux ne donnent pas le statut HTTP ou la taille de la requête : on ne sait pas s'ils étaient à risque)")
      const notice = buildProcessorNotice(facts, 'beta')
      expect(notice.at_risk_unknown_records).toBe(2)
      expect(renderProcessorNoticeMarkdown(notice)).toContain('whether or not a marker shows it): 0 (and 2 records whose HTTP status or prompt size the logs do not give, so whether they were at risk is not known).')
    } finally {
      tc.db.close()
    }
  })
})
