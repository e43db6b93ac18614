import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'
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
