import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {MIGRATIONS} from '../../src/store/migrations/index.js'
import {LATEST_SCHEMA, openCase} from '../../src/store/open-case.js'
import {makeCase, rng} from '../helpers/case-builder.js'

// Migration 013: a case scanned before it holds no possible sources of an ambiguous text and no
// next-update date. Opened by this release, both read as not recorded: each processor notice
// lists them as open items, never as none or a default date.

describe('migration 013-possible-sources-next-update', () => {
  it('follows 012; a schema-12 case opens with its possible sources and next update not recorded', async () => {
    expect(MIGRATIONS[MIGRATIONS.findIndex((m) => m.version === 13) - 1]?.version).toBe(12)
    expect(MIGRATIONS.find((m) => m.version === 13)).toMatchObject({name: 'possible-sources-next-update'})
    const c = makeCase()
    const rand = rng(5)
    const article = Array.from({length: 50}, () => Array.from({length: 6}, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('')).join(' ')
    await c.addFile([
      {request_id: 'pa', tenant_id: 'tn-a', session_id: 'sa', request_text: `read ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:00:00Z')},
      {request_id: 'pb', tenant_id: 'tn-b', session_id: 'sb', request_text: `see ${article}`, response_text: 'ok', ts_ms: Date.parse('2026-10-22T10:01:00Z')},
      {request_id: 'r', tenant_id: 'tn-c', session_id: 'sc', request_text: 'hi', response_text: `so ${article.split(' ').slice(0, 30).join(' ')} end`, ts_ms: Date.parse('2026-10-22T10:05:00Z')},
    ])
    scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
    openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
    c.close()
    // The same case as schema 12 wrote it: without the two columns (nor what later schemas add).
    const old = new Database(c.path)
    old.exec('ALTER TABLE provenance DROP COLUMN source_candidates; ALTER TABLE incident DROP COLUMN next_update_at; DROP TABLE duplicate_companions; ALTER TABLE case_settings DROP COLUMN ingest_claim; DROP INDEX files_by_continued; DROP INDEX files_by_head; ALTER TABLE files DROP COLUMN continues_file_id; ALTER TABLE files DROP COLUMN read_from; ALTER TABLE files DROP COLUMN head_sha256; ALTER TABLE notifications DROP COLUMN controller; ALTER TABLE notifications DROP COLUMN recipient_kind; ALTER TABLE scan_runs DROP COLUMN provenance_not_comparable_responses; DROP TABLE notification_scopes')
    old.pragma('user_version = 12')
    old.close()
    const db = openCase(c.path)
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.prepare('SELECT source_status, source_candidates FROM provenance').get()).toEqual({source_status: 'ambiguous', source_candidates: null})
      const n = buildProcessorNotice(buildFacts(loadFactsInputs(db), new Date('2026-10-23T12:00:00Z')), 'tn-c', {language: 'en'})
      expect(n.possible_source.not_recorded).toBe(1)
      expect(n.open_items.map((o) => o.record_with)).toEqual(expect.arrayContaining(['crosstalk scan', 'crosstalk incident set --next-update ISO']))
      expect(n.next_update).toEqual({at: null, text: null})
    } finally {
      db.close()
    }
  }, 60_000)
})
