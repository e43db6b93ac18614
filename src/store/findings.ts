import type {Statement} from 'better-sqlite3'
import {completeRecords} from './records.js'
import type {CaseDb} from './open-case.js'
import {SORT_CACHE_KIB} from './session.js'

// What detection found (sightings, provenance, personal data never sent by its recipient):
// derived from the extracts and the registry, rebuilt by a full rescan. The read side gives
// the contract's listings and the rows scope, timelines and reports are computed from.

export const CONTAMINATING_CLASSES = ['cross_session', 'cross_tenant'] as const
const CONTAMINATING = `('cross_session', 'cross_tenant')`

// ------------------------------------------------------------------ sightings

export type InsertSighting = (
  recordId: number, marker: string, markerKey: string | null, cls: string, partial: boolean,
  sourceSession: string | null, sourceTenant: string | null, position: number, token: string,
) => void

export function sightingInserter(db: CaseDb): InsertSighting {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  return (id, marker, key, cls, partial, ss, st, position, token) => void insert.run(id, marker, key, cls, partial ? 1 : 0, ss, st, position, token)
}

export function deleteAllSightings(db: CaseDb): void {
  db.prepare('DELETE FROM sightings').run()
}

export interface SightingCounts {
  by_class: Record<string, number>
  partial: number
  contaminated_responses: number
  cross_session_responses: number
  cross_tenant_responses: number
}

export function sightingCounts(db: CaseDb): SightingCounts {
  const complete = completeRecords(db)
  const byClass: Record<string, number> = {}
  for (const [cls, n] of db.prepare(`SELECT s.class, COUNT(*) FROM sightings s JOIN records r ON r.id = s.record_id WHERE 1 = 1${complete} GROUP BY s.class`).raw().all() as Array<[string, number]>) {
    byClass[cls] = n
  }
  const partial = db.prepare(`SELECT COUNT(*) FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.partial = 1${complete}`).pluck().get() as number
  const responses = db
    .prepare(
      `SELECT COUNT(DISTINCT s.record_id) AS any,
              COUNT(DISTINCT CASE WHEN s.class = 'cross_session' THEN s.record_id END) AS cs,
              COUNT(DISTINCT CASE WHEN s.class = 'cross_tenant' THEN s.record_id END) AS ct
       FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class IN ${CONTAMINATING}${complete}`,
    )
    .get() as {any: number; cs: number; ct: number}
  return {by_class: byClass, partial, contaminated_responses: responses.any, cross_session_responses: responses.cs, cross_tenant_responses: responses.ct}
}

export type SightingListRow = [requestId: string, tsMs: number, cls: string, marker: string, partial: number, recipientSession: string, recipientTenant: string, sourceSession: string | null, sourceTenant: string | null, decodeNode: string | null, logSource: string]

export function listSightingRows(db: CaseDb, classes: readonly string[] | null): SightingListRow[] {
  const where = classes ? `AND s.class IN (${classes.map(() => '?').join(', ')})` : ''
  return db
    .prepare(
      `SELECT r.request_id, r.ts_ms, s.class, s.marker, s.partial, r.session_id, r.tenant_id, s.source_session, s.source_tenant, r.decode_node, r.source
       FROM sightings s JOIN records r ON r.id = s.record_id
       WHERE 1 = 1${completeRecords(db)} ${where}
       ORDER BY r.ts_ms, r.id, s.position, s.id`,
    )
    .raw()
    .all(...(classes ?? [])) as SightingListRow[]
}

/** A cross_session or cross_tenant sighting joined to the response it was found in. */
export interface ContaminationRow {
  record_id: number
  request_id: string
  class: 'cross_session' | 'cross_tenant'
  marker: string
  source_session: string | null
  source_tenant: string | null
  recipient_session: string
  recipient_tenant: string
  ts_ms: number
  /** 1: the record is dated after its file was ingested (beyond FUTURE_TOLERANCE_MS): its time is no fact, kept out of every window */
  after_ingest?: number
  /** 1: the record is dated before its marker's registry issued_at: a wrong log clock, zone or unit, or a wrong registry; its time is kept out of every window */
  before_issued?: number
  decode_node: string | null
  status: number | null
  prompt_tokens: number | null
  /** words in the request's text as extracted (0: the logs hold no prompt text); null where the case keeps no extract of it */
  prompt_words: number | null
  /** the log file and line the record was read from */
  file_id: number
  line_no: number
  /**
   * Where the request was read in part (its body holds members this release does not read: the
   * record's note, parse-record.ts unreadRequestNote), the members: the echo check read the prompt
   * in part. 'unknown' where the record's evidence could not be read again; absent where read whole.
   * Set by scope (scope-data.ts), not by the query.
   */
  prompt_in_part?: string | 'unknown'
  /**
   * A marker cut short of the markers of several customers' sessions (source_tenant null): the
   * sessions it may come from. Set by scope (scope-data.ts), not by the query; absent elsewhere.
   */
  possible_sources?: Array<{tenant_id: string; session_id: string}>
}

/** Epoch milliseconds of a stored ISO time, in SQL. */
const MS_OF = (column: string): string => `CAST(round(unixepoch(${column}, 'subsec') * 1000) AS INTEGER)`
/**
 * Clock skew allowed between a log's writer and the machine that ingested it: a record dated more
 * than this after its file was read (completed_at; started_at while loading) is dated in the future.
 */
export const FUTURE_TOLERANCE_MS = 5 * 60_000
/** 1 where record `r`'s time is after its file was ingested (beyond the tolerance): a time that is no fact. */
export const AFTER_INGEST = `CASE WHEN r.ts_ms > (SELECT ${MS_OF('coalesce(fl.completed_at, fl.started_at)')} FROM files fl WHERE fl.id = r.file_id) + ${FUTURE_TOLERANCE_MS} THEN 1 ELSE 0 END`

/** A log file's records dated after it was ingested (FUTURE_TOLERANCE_MS allowed): how many and the latest; null where none. */
export function datedAfterIngest(db: CaseDb, sha256: string): {records: number; latest: string} | null {
  const file = db.prepare(`SELECT id, ${MS_OF('coalesce(completed_at, started_at)')} AS at FROM files WHERE sha256 = ? AND kind = 'log'`).get(sha256) as {id: number; at: number | null} | undefined
  if (!file || file.at === null) return null
  const row = db.prepare('SELECT count(*) AS n, max(ts_ms) AS latest FROM records WHERE file_id = ? AND ts_ms > ?').get(file.id, file.at + FUTURE_TOLERANCE_MS) as {n: number; latest: number | null}
  return row.n > 0 && row.latest !== null ? {records: row.n, latest: new Date(row.latest).toISOString()} : null
}

/**
 * The warning line for contaminating sightings dated before their marker's registry issued_at (no
 * answer could carry a marker not yet issued: the log's clock, zone or epoch unit, or the registry,
 * is wrong); null where none.
 */
export function datedBeforeIssuedWarning(db: CaseDb): string | null {
  const row = db
    .prepare(
      `SELECT count(DISTINCT s.record_id) AS n, min(r.ts_ms) AS earliest
         FROM sightings s JOIN records r ON r.id = s.record_id JOIN canaries c ON c.marker_key = s.marker_key
        WHERE s.class IN ${CONTAMINATING} AND c.issued_at IS NOT NULL AND r.ts_ms < ${MS_OF('c.issued_at')}${completeRecords(db)}`,
    )
    .get() as {n: number; earliest: number | null}
  if (row.n === 0 || row.earliest === null) return null
  const one = row.n === 1
  return `${one ? '1 affected response is' : `${row.n} affected responses are`} dated before the canary registry's issued_at of the marker found in ${one ? 'it' : 'them'} (the earliest ${new Date(row.earliest).toISOString()}): the log's clock, time zone or epoch unit, or the registry, is wrong; ${one ? 'it is' : 'they are'} counted, but ${one ? 'its time is' : 'their times are'} left out of every date and window the case states (scope --json responses_dated_before_marker_issued; an open item in the drafts)`
}

export function contaminationRows(db: CaseDb, pool: TextPool = new Map()): ContaminationRow[] {
  return pooled(
    db.prepare(
      `SELECT s.record_id, r.request_id, s.class, s.marker, s.source_session, s.source_tenant,
              r.session_id AS recipient_session, r.tenant_id AS recipient_tenant, r.ts_ms,
              r.decode_node, r.status, r.prompt_tokens, f.prompt_words, r.file_id, r.line_no,
              ${AFTER_INGEST} AS after_ingest,
              CASE WHEN r.ts_ms < (SELECT ${MS_OF('c.issued_at')} FROM canaries c WHERE c.marker_key = s.marker_key) THEN 1 ELSE 0 END AS before_issued
         FROM sightings s JOIN records r ON r.id = s.record_id LEFT JOIN fingerprints f ON f.record_id = s.record_id
        WHERE s.class IN ${CONTAMINATING}${completeRecords(db)}
        ORDER BY r.ts_ms, s.record_id, s.id`,
    ),
    ['class', 'marker', 'source_session', 'source_tenant', 'recipient_session', 'recipient_tenant', 'decode_node'],
    pool,
  )
}

/** A contaminating sighting as an excerpt reads it: where it is, the text as found, and the tenants on its two sides. */
export interface ExcerptSightingRow {
  record_id: number
  request_id: string
  marker: string
  token: string
  position: number
  source_tenant: string | null
  recipient_tenant: string
  ts_ms: number
}

/** The contaminating sightings in time order; with `tenant`, only those it is the source of (or, side 'both', the recipient of). */
export function excerptSightingRows(db: CaseDb, tenant?: string, side: 'both' | 'leaked' = 'both'): ExcerptSightingRow[] {
  const involved = tenant === undefined ? '' : side === 'both' ? ' AND (s.source_tenant = @tenant OR r.tenant_id = @tenant)' : ' AND s.source_tenant = @tenant'
  return db
    .prepare(
      `SELECT s.record_id, r.request_id, s.marker, s.token, s.position, s.source_tenant, r.tenant_id AS recipient_tenant, r.ts_ms
         FROM sightings s JOIN records r ON r.id = s.record_id
        WHERE s.class IN ${CONTAMINATING}${completeRecords(db)}${involved}
        ORDER BY r.ts_ms, s.record_id, s.id`,
    )
    .all(tenant === undefined ? {} : {tenant}) as ExcerptSightingRow[]
}

/** What the canary verdict and provenance's known copies read of a contaminating sighting (canaryFigures' CanaryRow). */
export interface ContaminationFact {
  record_id: number
  class: 'cross_session' | 'cross_tenant'
  source_session: string | null
  source_tenant: string | null
  recipient_tenant: string
  ts_ms: number
}

/** contaminationRows' rows with only the columns the canary verdict counts, unsorted (what reads them counts, it does not list). */
export function contaminationFacts(db: CaseDb): ContaminationFact[] {
  return pooled(
    db.prepare(
      `SELECT s.record_id, s.class, s.source_session, s.source_tenant, r.tenant_id AS recipient_tenant, r.ts_ms
         FROM sightings s JOIN records r ON r.id = s.record_id
        WHERE s.class IN ${CONTAMINATING}${completeRecords(db)}`,
    ),
    ['class', 'source_session', 'source_tenant', 'recipient_tenant'],
    new Map(),
  )
}

/** Texts already read, each held once (see pooled). */
export type TextPool = Map<string, string>

/**
 * A query's rows with the text columns that repeat across rows (classes, tenants, sessions,
 * nodes, markers) shared through `pool`: the driver makes a new string for every row, and
 * scope reads every contaminating sighting and provenance row whole (tens of thousands at 5M
 * records). On a 1M-record case: 424 -> 287 bytes a row (measured).
 */
function pooled<T extends object>(statement: Statement, columns: ReadonlyArray<keyof T & string>, pool: TextPool): T[] {
  const rows: T[] = []
  for (const row of statement.iterate() as IterableIterator<Record<string, unknown>>) {
    for (const column of columns) {
      const text = row[column]
      if (typeof text !== 'string') continue
      const held = pool.get(text)
      if (held === undefined) pool.set(text, text)
      else row[column] = held
    }
    rows.push(row as T)
  }
  return rows
}

export function orphanSightingCount(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class = 'orphan'${completeRecords(db)}`).pluck().get() as number
}

/** Record ids of responses with a contaminating sighting, in time order. */
export function contaminatedRecordIds(db: CaseDb): number[] {
  return db
    .prepare(`SELECT DISTINCT r.id FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class IN ${CONTAMINATING}${completeRecords(db)} ORDER BY r.ts_ms, r.id`)
    .pluck()
    .all() as number[]
}

// ------------------------------------------------------------------ provenance

export interface ProvenanceInsert {
  recordId: number
  sourceRecordId: number
  sourceSession: string
  sourceTenant: string
  overlapWords: number
  overlapSha256: string
  matched: 'prompt' | 'response'
  wordStart: number
  candidates: number
  /** Whether the source was logged before the response (attribute.ts); absent: earlier. */
  sourceOrder?: 'earlier' | 'unknown'
  /** Whether the source is named, ambiguous between sourceTenants tenants, or unknown (attribute.ts); absent: named, 1. */
  sourceStatus?: 'named' | 'ambiguous' | 'unknown'
  sourceTenants?: number
  /** The possible sources of an ambiguous finding (attribute.ts); absent: not recorded (NULL), never none. */
  sourceCandidates?: ReadonlyArray<{tenant_id: string; session_id: string}>
}

export function provenanceWriter(db: CaseDb): {clear(): void; insert(p: ProvenanceInsert): void} {
  const insert = db.prepare(
    `INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates, source_order, source_status, source_tenants, source_candidates)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  return {
    clear: () => void db.prepare('DELETE FROM provenance').run(),
    insert: (p) =>
      void insert.run(
        p.recordId, p.sourceRecordId, p.sourceSession, p.sourceTenant, p.overlapWords, p.overlapSha256, p.matched, p.wordStart, p.candidates, p.sourceOrder ?? 'earlier', p.sourceStatus ?? 'named', p.sourceTenants ?? 1,
        p.sourceCandidates === undefined ? null : JSON.stringify(p.sourceCandidates),
      ),
  }
}

/**
 * Candidate tallies of provenance's passes, summed over the passes in a temporary table:
 * (response rank r, candidate v, shared fingerprints n).
 */
export interface ProvenanceTally {
  add(r: number, v: number, n: number): void
  /** Tallies of responses with rank in [lo, hi), by r then v. */
  read(lo: number, hi: number): Array<[number, number, number]>
  drop(): void
}

export function provenanceTally(db: CaseDb): ProvenanceTally {
  // Its pages past a small cache go to SQLite's temporary file (the OS caches it): left at the
  // default, the cache grew by 16 MB over the passes of a 1M-record case.
  const tempCache = db.pragma('temp.cache_size', {simple: true}) as number
  db.pragma(`temp.cache_size = -${SORT_CACHE_KIB}`)
  db.exec('DROP TABLE IF EXISTS temp.prov_tally')
  db.exec('CREATE TEMP TABLE prov_tally (r INTEGER NOT NULL, v INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (r, v)) WITHOUT ROWID')
  const add = db.prepare('INSERT INTO temp.prov_tally (r, v, n) VALUES (?, ?, ?) ON CONFLICT (r, v) DO UPDATE SET n = n + excluded.n')
  const read = db.prepare('SELECT r, v, n FROM temp.prov_tally WHERE r >= ? AND r < ? ORDER BY r, v').raw()
  return {
    add: (r, v, n) => void add.run(r, v, n),
    read: (lo, hi) => read.all(lo, hi) as Array<[number, number, number]>,
    drop: () => {
      db.exec('DROP TABLE IF EXISTS temp.prov_tally')
      db.pragma(`temp.cache_size = ${Math.trunc(tempCache)}`)
    },
  }
}

export function countProvenance(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM provenance p JOIN records r ON r.id = p.record_id WHERE 1 = 1${completeRecords(db)}`).pluck().get() as number
}

/** Responses provenance found carrying another session's text (exposure by verbatim text), by whose. */
export interface TextLeakCounts {
  /** distinct responses with a provenance attribution to another session (named, ambiguous or unknown source) */
  responses: number
  /** of them, with a named source of another tenant */
  cross_tenant: number
  /** of them, with a named source of another session of the recipient's own tenant */
  same_tenant: number
  /** of them, with a source not named (ambiguous or unknown) */
  source_not_named: number
}

/** The provenance rows exposure counts (every one but a repeat inside one session), per response. */
export function textLeakCounts(db: CaseDb): TextLeakCounts {
  const row = db.prepare(
    `SELECT COUNT(*) AS responses, coalesce(SUM(x), 0) AS cross_tenant, coalesce(SUM(y), 0) AS same_tenant, coalesce(SUM(z), 0) AS source_not_named FROM (
       SELECT v.record_id,
              MAX(v.source_status = 'named' AND v.source_tenant <> r.tenant_id) AS x,
              MAX(v.source_status = 'named' AND v.source_tenant = r.tenant_id) AS y,
              MAX(v.source_status <> 'named') AS z
         FROM provenance v JOIN records r ON r.id = v.record_id
        WHERE NOT (v.source_status = 'named' AND v.source_tenant = r.tenant_id AND v.source_session = r.session_id)${completeRecords(db)}
        GROUP BY v.record_id)`,
  ).get() as TextLeakCounts
  return row
}

export interface ProvenanceListRow {
  id: number
  request_id: string
  ts_ms: number
  session_id: string
  tenant_id: string
  source_request_id: string
  source_ts: number
  source_session: string
  source_tenant: string
  overlap_words: number
  overlap_sha256: string
  matched: 'prompt' | 'response'
  candidates: number
  word_start: number
  source_order: 'earlier' | 'unknown'
  source_status: 'named' | 'ambiguous' | 'unknown'
  source_tenants: number
  /** JSON of an ambiguous finding's possible sources; null: not recorded */
  source_candidates: string | null
}

export function listProvenanceRows(db: CaseDb, minWords: number): ProvenanceListRow[] {
  return db
    .prepare(
      `SELECT r.id, r.request_id, r.ts_ms, r.session_id, r.tenant_id, s.request_id AS source_request_id, s.ts_ms AS source_ts,
              p.source_session, p.source_tenant, p.overlap_words, p.overlap_sha256, p.matched, p.candidates, p.word_start, p.source_order, p.source_status, p.source_tenants, p.source_candidates
       FROM provenance p JOIN records r ON r.id = p.record_id JOIN records s ON s.id = p.source_record_id
       WHERE p.overlap_words >= ?${completeRecords(db)}
       ORDER BY r.ts_ms, r.id`,
    )
    .all(minWords) as ProvenanceListRow[]
}

/**
 * A response whose content was attributed to another session's prompt or answer. The source's
 * session and tenant are null where provenance names no source (source_status ambiguous or
 * unknown): the response still carried someone else's text, but no one tenant is its source.
 */
export interface ProvenanceRow {
  record_id: number
  request_id: string
  source_record_id: number
  source_session: string | null
  source_tenant: string | null
  /** Tenants whose texts hold the overlap alike: 1 where the source is named, or unknown; 2 or more where it is ambiguous. */
  source_tenants: number
  recipient_session: string
  recipient_tenant: string
  ts_ms: number
  /** as ContaminationRow's */
  after_ingest?: number
  decode_node: string | null
  status: number | null
  prompt_tokens: number | null
  overlap_words: number
  /**
   * Where the source is ambiguous: its possible sources (sessions with their tenants); null or
   * absent: not recorded (a scan before schema 13, findings imported), never none. Empty otherwise.
   */
  possible_sources?: Array<{tenant_id: string; session_id: string}> | null
}

export function provenanceRows(db: CaseDb, pool: TextPool = new Map()): ProvenanceRow[] {
  // CROSS JOIN keeps provenance the outer table: the attributed responses (11,552 of 1M records)
  // are read and their records looked up, then sorted. Left to itself SQLite walked every
  // record in time order to look each up in provenance, to save that sort (257 -> 134 ms at
  // 1M records, measured).
  const rows = pooled<ProvenanceRow>(
    db.prepare(
      `SELECT v.record_id, r.request_id, v.source_record_id,
              CASE WHEN v.source_status = 'named' THEN v.source_session END AS source_session,
              CASE WHEN v.source_status = 'named' THEN v.source_tenant END AS source_tenant,
              CASE WHEN v.source_status = 'ambiguous' THEN v.source_tenants ELSE 1 END AS source_tenants,
              r.session_id AS recipient_session, r.tenant_id AS recipient_tenant, r.ts_ms,
              r.decode_node, r.status, r.prompt_tokens, v.overlap_words, ${AFTER_INGEST} AS after_ingest,
              CASE WHEN v.source_status = 'ambiguous' THEN coalesce(v.source_candidates, 'null') ELSE '[]' END AS possible_sources
         FROM provenance v CROSS JOIN records r ON r.id = v.record_id
        WHERE 1 = 1${completeRecords(db)}
        ORDER BY r.ts_ms, v.record_id, v.id`,
    ),
    ['source_session', 'source_tenant', 'recipient_session', 'recipient_tenant', 'decode_node'],
    pool,
  )
  for (const row of rows) row.possible_sources = possibleSources(row.possible_sources as unknown as string, pool)
  return rows
}

/** The stored JSON of an ambiguous finding's possible sources; null where it was not recorded. */
function possibleSources(json: string, pool: TextPool): Array<{tenant_id: string; session_id: string}> | null {
  if (json === '[]') return []
  const parsed = JSON.parse(json) as Array<{tenant_id: string; session_id: string}> | null
  if (parsed === null) return null
  const held = (t: string): string => pool.get(t) ?? (pool.set(t, t), t)
  return parsed.map((c) => ({tenant_id: held(c.tenant_id), session_id: held(c.session_id)}))
}

// ------------------------------------------------------------------ personal data

export interface PiiFindingInsert {
  recordId: number
  kind: string
  valueSha256: string
  sourceRecordId: number | null
  sourceSession: string | null
  sourceTenant: string | null
}

export function piiFindingWriter(db: CaseDb): {clear(): void; insert(f: PiiFindingInsert): void} {
  const insert = db.prepare('INSERT INTO pii_findings (record_id, kind, value_sha256, source_record_id, source_session, source_tenant) VALUES (?, ?, ?, ?, ?, ?)')
  return {
    clear: () => void db.prepare('DELETE FROM pii_findings').run(),
    insert: (f) => void insert.run(f.recordId, f.kind, f.valueSha256, f.sourceRecordId, f.sourceSession, f.sourceTenant),
  }
}

export interface PiiFindingRow {
  id: number
  request_id: string
  ts_ms: number
  kind: string
  value_sha256: string
  session_id: string
  tenant_id: string
  source_request_id: string | null
  source_session: string | null
  source_tenant: string | null
}

export function listPiiFindingRows(db: CaseDb): PiiFindingRow[] {
  return db
    .prepare(
      `SELECT r.id, r.request_id, r.ts_ms, p.kind, p.value_sha256, r.session_id, r.tenant_id, s.request_id AS source_request_id,
              p.source_session, p.source_tenant
       FROM pii_findings p JOIN records r ON r.id = p.record_id LEFT JOIN records s ON s.id = p.source_record_id
       WHERE 1 = 1${completeRecords(db)}
       ORDER BY r.ts_ms, r.id, p.kind, p.value_sha256`,
    )
    .all() as PiiFindingRow[]
}

export function countPiiFindings(db: CaseDb): {findings: number; attributed: number} {
  return db
    .prepare(`SELECT COUNT(*) AS findings, COUNT(p.source_record_id) AS attributed FROM pii_findings p JOIN records r ON r.id = p.record_id WHERE 1 = 1${completeRecords(db)}`)
    .get() as {findings: number; attributed: number}
}

/** A personal-data finding with its recipient, for scope's categories and the tenant views. */
export interface PiiScopeRow {
  record_id: number
  kind: string
  value_sha256: string
  source_session: string | null
  source_tenant: string | null
  recipient_session: string
  recipient_tenant: string
}

export function piiScopeRows(db: CaseDb): PiiScopeRow[] {
  return db
    .prepare(
      `SELECT p.record_id, p.kind, p.value_sha256, p.source_session, p.source_tenant, r.session_id AS recipient_session, r.tenant_id AS recipient_tenant
         FROM pii_findings p JOIN records r ON r.id = p.record_id
        WHERE 1 = 1${completeRecords(db)}
        ORDER BY p.record_id, p.kind, p.value_sha256`,
    )
    .all() as PiiScopeRow[]
}

// ------------------------------------------------------------------ verify: findings compared with their re-derivation

export interface SightingStored {
  record_id: number
  marker: string
  marker_key: string | null
  class: string
  partial: number
  source_session: string | null
  source_tenant: string | null
  position: number
  token: string
}

const SIGHTING_COLUMNS = 's.record_id, s.marker, s.marker_key, s.class, s.partial, s.source_session, s.source_tenant, s.position, s.token'

/** A file's sightings with their record's line, by record (in line order, as verify walks them) and marker. */
export function iterateFileSightings(db: CaseDb, fileId: number): IterableIterator<SightingStored & {line_no: number}> {
  return db
    .prepare(`SELECT ${SIGHTING_COLUMNS}, r.line_no FROM sightings s JOIN records r ON r.id = s.record_id WHERE r.file_id = ? ORDER BY r.line_no, r.id, s.marker`)
    .iterate(fileId) as IterableIterator<SightingStored & {line_no: number}>
}

/** Every sighting, by record and marker (a re-derivation on a scratch copy is compared with it). */
export function iterateAllSightings(db: CaseDb): IterableIterator<SightingStored> {
  return db.prepare(`SELECT ${SIGHTING_COLUMNS} FROM sightings s ORDER BY s.record_id, s.marker`).iterate() as IterableIterator<SightingStored>
}

export interface ProvenanceStored {
  record_id: number
  source_record_id: number
  source_session: string
  source_tenant: string
  overlap_words: number
  overlap_sha256: string
  matched: string
  word_start: number
  candidates: number
  /** JSON of an ambiguous finding's possible sources, '[]' otherwise; null: not recorded */
  source_candidates: string | null
  source_order: string
  source_status: string
  source_tenants: number
}

export function iterateAllProvenance(db: CaseDb): IterableIterator<ProvenanceStored> {
  return db
    .prepare('SELECT record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates, source_order, source_status, source_tenants, source_candidates FROM provenance ORDER BY record_id')
    .iterate() as IterableIterator<ProvenanceStored>
}

/** Findings whose possible sources were not recorded (NULL: a scan before schema 13, imported findings), by record id. */
export function provenanceWithoutCandidates(db: CaseDb): Set<number> {
  return new Set(db.prepare('SELECT record_id FROM provenance WHERE source_candidates IS NULL').pluck().all() as number[])
}

export interface PiiFindingStored {
  record_id: number
  kind: string
  value_sha256: string
  source_record_id: number | null
  source_session: string | null
  source_tenant: string | null
}

export function iterateAllPiiFindings(db: CaseDb): IterableIterator<PiiFindingStored> {
  return db
    .prepare('SELECT record_id, kind, value_sha256, source_record_id, source_session, source_tenant FROM pii_findings ORDER BY record_id, kind, value_sha256, source_record_id')
    .iterate() as IterableIterator<PiiFindingStored>
}

/**
 * Findings whose source does not match the record they name: provenance and personal-data
 * findings keep the source's session and tenant beside its record id, and scope counts them.
 */
export function inconsistentFindings(db: CaseDb): Array<{table: string; record_id: number; detail: string}> {
  const provenance = db
    .prepare(
      `SELECT 'provenance' AS tbl, p.record_id, 'source ' || p.source_record_id AS detail FROM provenance p JOIN records s ON s.id = p.source_record_id
        WHERE s.session_id <> p.source_session OR s.tenant_id <> p.source_tenant LIMIT 20`,
    )
    .raw()
    .all() as Array<[string, number, string]>
  const pii = db
    .prepare(
      `SELECT 'pii_findings', p.record_id, 'source ' || p.source_record_id FROM pii_findings p JOIN records s ON s.id = p.source_record_id
        WHERE s.session_id IS NOT p.source_session OR s.tenant_id IS NOT p.source_tenant LIMIT 20`,
    )
    .raw()
    .all() as Array<[string, number, string]>
  return [...provenance, ...pii].map(([table, record_id, detail]) => ({table, record_id, detail}))
}

// ------------------------------------------------------------------ one record

/** What detection stored about one record (`show`): as recipient, and as the source of later copies. */
export interface RecordFindingRows {
  /** The record's file is complete and a finished scan covered it. */
  file_scanned: boolean
  sightings: Array<{class: string; marker: string; partial: number; source_session: string | null; source_tenant: string | null}>
  provenance: {
    source_request_id: string; source_ts_ms: number; source_session: string; source_tenant: string; matched: 'prompt' | 'response'; overlap_words: number
    source_order: 'earlier' | 'unknown'; source_status: 'named' | 'ambiguous' | 'unknown'; source_tenants: number
  } | null
  /** Responses whose content was attributed to this record's prompt or answer, and the first few of them in time order. */
  copied_by: {responses: number; first: Array<{request_id: string; tenant_id: string; session_id: string}>}
  pii: Array<{kind: string; value_sha256: string; source_request_id: string | null; source_session: string | null; source_tenant: string | null}>
  /** Responses of other sessions with a contaminating sighting of a marker this record's session registered. */
  session_marker_sightings: number
  /** Markers the registry holds for this record's session. */
  session_markers_registered: number
}

const COPIED_BY_SHOWN = 5

export function recordFindingRows(db: CaseDb, record: {id: number; file_id: number; tenant_id: string; session_id: string}): RecordFindingRows {
  const fileScanned =
    (db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM files f JOIN scanned_files s ON s.file_id = f.id JOIN scan_runs run ON run.id = s.scan_run_id
                         WHERE f.id = ? AND f.state = 'complete' AND run.finished_at IS NOT NULL)`,
      )
      .pluck()
      .get(record.file_id) as number) === 1
  const complete = completeRecords(db)
  const sightings = db
    .prepare('SELECT class, marker, partial, source_session, source_tenant FROM sightings WHERE record_id = ? ORDER BY position, marker')
    .all(record.id) as RecordFindingRows['sightings']
  const provenance =
    (db
      .prepare(
        `SELECT s.request_id AS source_request_id, s.ts_ms AS source_ts_ms, p.source_session, p.source_tenant, p.matched, p.overlap_words,
                p.source_order, p.source_status, p.source_tenants
           FROM provenance p JOIN records s ON s.id = p.source_record_id WHERE p.record_id = ?`,
      )
      .get(record.id) as RecordFindingRows['provenance'] | undefined) ?? null
  const copies = db.prepare(`SELECT count(*) FROM provenance p JOIN records r ON r.id = p.record_id WHERE p.source_record_id = ?${complete}`).pluck().get(record.id) as number
  const first = db
    .prepare(
      `SELECT r.request_id, r.tenant_id, r.session_id FROM provenance p JOIN records r ON r.id = p.record_id
        WHERE p.source_record_id = ?${complete} ORDER BY r.ts_ms, r.id LIMIT ${COPIED_BY_SHOWN}`,
    )
    .all(record.id) as RecordFindingRows['copied_by']['first']
  const pii = db
    .prepare(
      `SELECT p.kind, p.value_sha256, s.request_id AS source_request_id, p.source_session, p.source_tenant
         FROM pii_findings p LEFT JOIN records s ON s.id = p.source_record_id WHERE p.record_id = ? ORDER BY p.kind, p.value_sha256`,
    )
    .all(record.id) as RecordFindingRows['pii']
  const sessionMarkerSightings = db
    .prepare(
      `SELECT count(DISTINCT s.record_id) FROM sightings s JOIN records r ON r.id = s.record_id
        WHERE s.source_tenant = ? AND s.source_session = ? AND s.class IN ${CONTAMINATING}${complete}`,
    )
    .pluck()
    .get(record.tenant_id, record.session_id) as number
  const registered = db.prepare('SELECT count(*) FROM canaries WHERE session_id = ? AND tenant_id = ?').pluck().get(record.session_id, record.tenant_id) as number
  return {file_scanned: fileScanned, sightings, provenance, copied_by: {responses: copies, first}, pii, session_marker_sightings: sessionMarkerSightings, session_markers_registered: registered}
}
