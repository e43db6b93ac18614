import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {replayFacts} from '../../src/notify/facts.js'
import {PHRASES} from '../../src/notify/phrases.js'
import {insertReplayResult, insertReplayRun, listReplayResults} from '../../src/replay/replay-store.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {MIGRATIONS} from '../../src/store/migrations/index.js'
import {LATEST_SCHEMA, openCase} from '../../src/store/open-case.js'
import {seededRng} from '../../src/util/rng.js'
import {runJson} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {startShapedServer} from '../helpers/shaped-answers.js'

// A replay trigger answered with a stream cut off (no `data: [DONE]`) or with no text is judged by
// nothing: replay says inconclusive, never a negative. But `replay --case` stored neither such a
// record nor, for a record it did store, how many of its triggers went unjudged, so the Article
// 33 draft's account ("N distinct requests were replayed ... 0 of M trials reproduced") left them
// out without a word. They are stored now (case schema 15), and the drafts say how many could not
// be judged; a result stored before schema 15 says that count was not recorded.

const MARKER = 'CANARY-0000aaaa0000aaaa'
const contaminatedCase = () =>
  caseWithRecords(
    [
      {request_id: 'req-chat', prompt_tokens: 120, stream: false, response_text: `leak ${MARKER}`},
      {request_id: 'req-stream', prompt_tokens: 120, stream: true, response_text: `leak ${MARKER}`},
    ],
    [[MARKER, 'tenant-x', 'sx']],
  )

type Draft = {statements: Array<{section: string; text: string}>; replay: {groups: Array<{records: number; inconclusive: number; trials: number; unjudged_trials: number | null}>} | null}

async function replayInto(options: Parameters<typeof startShapedServer>[1]) {
  const server = await startShapedServer('plain', options)
  const {db, path} = await contaminatedCase()
  try {
    const result = await runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 3, advertisedTokens: 4096, poolTokens: 1024, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')})
    return {result, stored: listReplayResults(db), path}
  } finally {
    db.close()
    await server.close()
  }
}

describe('replay: answers that could not be judged are stored, and the drafts say so', () => {
  it('streams cut off: each record stored as inconclusive with its answers not read whole; the draft counts them', async () => {
    const {result, stored, path} = await replayInto({leak: false, streamFault: 'cut'})
    expect(result.results.map((r) => r.verdict)).toEqual(['inconclusive', 'inconclusive'])
    expect(stored.map((r) => [r.request_id, r.verdict, r.no_text, r.incomplete])).toEqual([
      ['req-chat', 'inconclusive', 0, 3],
      ['req-stream', 'inconclusive', 0, 3],
    ])
    const draft = await runJson<Draft>(['report', 'article33', '--db', path, '--lang', 'en'])
    expect(draft.replay?.groups).toEqual([expect.objectContaining({records: 2, inconclusive: 2, trials: 0, unjudged_trials: 6})])
    const said = draft.statements.filter((s) => s.section === 'investigation').map((s) => s.text).join(' ')
    expect(said).toContain('2 distinct affected requests were replayed')
    expect(said).toContain('0 not reproduced, 0 rejected by the target, 2 could not be judged (no trigger judged); 6 trials could not be judged (incomplete answer / no text)')
    const fr = await runJson<Draft>(['report', 'article33', '--db', path, '--lang', 'fr'])
    expect(fr.statements.map((s) => s.text).join(' ')).toContain("6 essais n'ont pas pu être jugés (réponse incomplète / sans texte)")
  }, 60_000)

  it('some answers with no text beside judged ones: the stored result keeps their count, the draft says it beside "N of M"', async () => {
    const {result, stored, path} = await replayInto({leak: false, noTextEvery: 5})
    const unjudged = result.results.reduce((a, r) => a + r.no_text + r.incomplete, 0)
    expect(unjudged).toBeGreaterThan(0)
    expect(stored.reduce((a, r) => a + (r.no_text ?? 0) + (r.incomplete ?? 0), 0)).toBe(unjudged)
    const judged = result.results.reduce((a, r) => a + r.judged, 0)
    expect(judged).toBeGreaterThan(0)
    const draft = await runJson<Draft>(['report', 'article33', '--db', path, '--lang', 'en'])
    const said = draft.statements.filter((s) => s.section === 'investigation').map((s) => s.text).join(' ')
    expect(said).toContain(`0 of ${judged} trial`)
    expect(said).toContain(`; ${unjudged} trial${unjudged === 1 ? '' : 's'} could not be judged (incomplete answer / no text)`)
  }, 60_000)

  it('a case of schema 14 opens; its stored result says the unjudged count was not recorded (not none)', async () => {
    expect(MIGRATIONS.find((m) => m.version === 15)).toMatchObject({name: 'replay-unjudged'})
    const {db, path} = await contaminatedCase()
    const record = db.prepare("SELECT id FROM records WHERE request_id = 'req-chat'").get() as {id: number}
    const runId = insertReplayRun(db, {
      startedAt: '2026-11-02T07:00:00.000Z', target: 'http://127.0.0.1:9/', model: 'm', trials: 3, primers: 2, originalPrompt: false, targetPoolTokens: 1024, targetMaxModelLen: 4096,
      sourcePoolTokens: null, scalingNote: 'n', targetKind: 'external', targetVersion: null, purpose: 'confirmation',
    })
    insertReplayResult(db, runId, {
      record_id: record.id, request_id: 'req-chat', endpoint: '/v1/chat/completions', stream: false, original_prompt_tokens: 120, replay_prompt_tokens: 120, scaling: 'as_recorded',
      trials: 3, reproduced: 0, rejected: 0, hung: 0, errors: 0, rate: 0, wilson_low: 0, wilson_high: 0.5, verdict: 'not_reproduced', no_text: 0, incomplete: 0, primer_leaks: null, other_markers: null, unprimed: null, other_owners: null,
    })
    db.close()
    // The table as schema 14 wrote it: no unjudged counts, no inconclusive verdict.
    const old = new Database(path)
    old.exec(`
      CREATE TABLE rr14 (
        id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES replay_runs(id) ON DELETE CASCADE, record_id INTEGER NOT NULL REFERENCES records(id),
        request_id TEXT NOT NULL, endpoint TEXT NOT NULL, stream INTEGER NOT NULL CHECK (stream IN (0, 1)), original_prompt_tokens INTEGER, replay_prompt_tokens INTEGER NOT NULL,
        scaling TEXT NOT NULL, trials INTEGER NOT NULL, reproduced INTEGER NOT NULL, rejected INTEGER NOT NULL, hung INTEGER NOT NULL, errors INTEGER NOT NULL,
        rate REAL NOT NULL, wilson_low REAL NOT NULL, wilson_high REAL NOT NULL, verdict TEXT NOT NULL CHECK (verdict IN ('confirmed', 'not_reproduced', 'rejected'))
      ) STRICT;
      INSERT INTO rr14 SELECT id, run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict FROM replay_results;
      DROP TABLE replay_results;
      ALTER TABLE rr14 RENAME TO replay_results;
      CREATE INDEX replay_results_by_record ON replay_results (record_id);
      ALTER TABLE case_settings DROP COLUMN ingest_claim;
      DROP INDEX files_by_continued;
      DROP INDEX files_by_head;
      ALTER TABLE files DROP COLUMN continues_file_id;
      ALTER TABLE files DROP COLUMN read_from;
      ALTER TABLE files DROP COLUMN head_sha256;
      ALTER TABLE notifications DROP COLUMN controller; ALTER TABLE notifications DROP COLUMN recipient_kind;
      ALTER TABLE scan_runs DROP COLUMN provenance_not_comparable_responses; DROP TABLE notification_scopes;
    `)
    old.pragma('user_version = 14')
    old.close()
    const again = openCase(path)
    try {
      expect(again.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      const rows = listReplayResults(again)
      expect(rows.map((r) => [r.verdict, r.trials, r.no_text, r.incomplete])).toEqual([['not_reproduced', 3, null, null]])
      const facts = replayFacts(rows)!
      expect(facts.groups[0]).toMatchObject({records: 1, not_reproduced: 1, inconclusive: 0, trials: 3, unjudged_trials: null})
      expect(PHRASES.en.replayGroup(facts.groups[0]!)).toContain('whether any trial could not be judged (incomplete answer / no text) was not recorded for these runs')
    } finally {
      again.close()
    }
  }, 60_000)
})
