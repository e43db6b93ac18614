import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {openCase} from '../../src/store/open-case.js'
import {runCli, tempDir} from '../helpers/cli.js'
import {createDetectionTables} from '../helpers/scope-case.js'
import {chatLine} from '../helpers/log-lines.js'

// Scope over records as the real ingest writes them (timestamps with offsets and
// microseconds, usage-derived prompt_tokens), with the sightings a scan would add.
const dir = tempDir()
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}))

describe('scope over ingested logs', () => {
  it('counts at-risk responses and reports first/last seen in UTC to the millisecond', () => {
    const log = path.join(dir, 'gw.jsonl')
    const lines = [
      chatLine({request_id: 'r1', ts: '2026-11-02T08:00:00.123456+02:00', tenant_id: 'acme', session_id: 's1', decode_node: 'd1', prompt_tokens: 681280}),
      chatLine({request_id: 'r2', ts: 1793606400999, tenant_id: 'beta', session_id: 's2', decode_node: 'd1', prompt_tokens: 700000, status: 413}),
      chatLine({request_id: 'r3', ts: '2026-11-02T07:30:00Z', tenant_id: 'beta', session_id: 's3', decode_node: 'd2', prompt_tokens: 5}),
    ]
    fs.writeFileSync(log, lines.join('\n') + '\n')
    const db = path.join(dir, 'case.db')
    const ingest = runCli(['ingest', 'logs', log, '--db', db, '--json'])
    expect(ingest.code, ingest.stderr).toBe(0)
    expect(JSON.parse(ingest.stdout)).toMatchObject({records: 3})
    const c = openCase(db)
    createDetectionTables(c)
    const r1 = (c.prepare(`SELECT id FROM records WHERE request_id = 'r1'`).get() as {id: number}).id
    c.prepare(`INSERT INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token) VALUES (?, 'CANARY-aaaaaaaaaaaaaaaa', 'CANARY-aaaaaaaaaaaaaaaa', 'cross_tenant', 0, 's3', 'beta', 0, 'CANARY-aaaaaaaaaaaaaaaa')`).run(r1)
    c.close()
    const r = runCli(['scope', '--json', '--db', db, '--pool-tokens', '681280'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({
      contaminated_responses: 1,
      first_seen: '2026-11-02T06:00:00.123Z',
      last_seen: '2026-11-02T06:00:00.123Z',
      at_risk_responses: 1,
      flows: [{source_tenant: 'beta', recipient_tenant: 'acme', responses: 1}],
    })
  })
})
