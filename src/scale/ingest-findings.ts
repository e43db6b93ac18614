import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {crc32} from 'node:zlib'
import {count} from '../util/plural.js'
import {InputError, IntegrityError, UsageError} from '../errors.js'
import {decodeLineRecords} from '../evidence/record-texts.js'
import type {RecordRow} from '../extract/parse-record.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import {SIGHTING_RULES} from '../extract/markers.js'
import type {LogFormat} from '../extract/formats/index.js'
import {lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {fileNotes, fileUnread, refusalOf} from '../ingest/ingest-file.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'
import {countCanaries} from '../store/canaries.js'
import {piiFindingWriter, provenanceWriter, sightingInserter} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {badLineInserter, duplicateCompanionInserter, duplicateInserter} from '../store/quarantine.js'
import {companionInserter, recordInserter} from '../store/records.js'
import {countLogFiles, insertCorpusFacts, insertReferenceFile, referencedLineBlocks, registryFileHashes} from '../store/scale.js'
import {beginScanRun, finishScanRun, markFilesScanned} from '../store/scan-runs.js'
import {inTransaction} from '../store/session.js'
import {getSettings, piiRefKey, setPool} from '../store/settings.js'
import {canonicalJson} from '../util/canonical-json.js'
import {readParquetRows} from './parquet-io.js'
import type {ShardFacts} from './extract-shard.js'
import {readShardRanges, shardPath, type PrefixRewrite} from './shard-reader.js'

// `crosstalk ingest findings DIR`: the findings of a Spark audit into a case, with evidence by
// reference. For every record a finding rests on (the recipient, the source, an at-risk
// response), its line and the lines it was read with are read from the original shards,
// checked against the CRC-32 the extract took and each shard against its SHA-256, and stored:
// the record row (decoded from those bytes by the case's own decoder, with the shard's parse
// spec) and the bytes as evidence blocks at their offsets. The findings are stored as a scan
// would have written them, with a scan run recording the job's parameters, so scope, the
// reports, replay and verify work on the case unchanged; the counts over every record are
// recorded as the job made them (corpus_facts), and each shard's counts, notes and refusal
// are decided by ingest's own rules (fileNotes, refusalOf).

/**
 * 3: the job's echo is the marker itself in the prompt (findings of 2 took its hex digits alone
 * for one). 5: a line repeating a request id is listed. 6: registered markers matched whole
 * (SIGHTING_RULES 4: a prompt holding a longer marker that begins with one is no echo of it;
 * the extract's `prompt_whole`). 7: a token cut short of several registered markers is classed
 * by their owners (SIGHTING_RULES 5), not left an orphan. 8: the manifest's `tables` records each
 * table's part files and their rows (a part missing or present twice is refused, never read as
 * fewer or more findings).
 */
export const FINDINGS_FORMAT = 'crosstalk-findings/8'

/** A shard as the job's manifest lists it: what extract found in it (its ShardFacts but the record count) and what the job decided over every shard. */
interface ShardEntry extends Omit<ShardFacts, 'record_lines'> {
  file_idx: number
  skipped: boolean
  // decided by the job over every shard (duplicates across shards): as ingest counts them
  records: number
  duplicates: number
  first_ms: number | null
  last_ms: number | null
  no_request_text: number
  no_response_text: number
  no_response: number
  error_records: number
}

interface Manifest {
  format: string
  source: string
  registry: {registry_files: string[]; canaries: number}
  parameters: {min_words: number; boilerplate_tenants: number; pool_tokens: number | null; advertised_tokens: number | null}
  corpus: {
    records: number; tenants: number; tenant_ids: string[]; sessions: number; first_ms: number | null; last_ms: number | null
    no_status: number; no_prompt_tokens: number; no_completion_tokens: number; no_decode_node: number; no_status_or_prompt_tokens: number
    /** counted by jobs since schema 7 where a pool was given */
    undecided_at_risk?: number | null
  }
  exposure: {served: number; with_confirmed: number; windows: Array<[string | null, number, number]>} | null
  shards: ShardEntry[]
  counts: {sightings: number; provenance: number; pii_findings: number; duplicate_lines: number}
  /** Each table as the job wrote it: its part files with their rows, and the total. */
  tables: Record<TableName, {rows: number; parts: Record<string, number>}>
}

const TABLES = ['records', 'sightings', 'provenance', 'pii_findings', 'bad_lines', 'duplicates'] as const
type TableName = (typeof TABLES)[number]
/** The manifest's `counts` that count a table's rows (the job's own count of what it found, beside the part files' rows). */
const COUNTED = {sightings: 'sightings', provenance: 'provenance', pii_findings: 'pii_findings', duplicates: 'duplicate_lines'} as const

export interface IngestFindingsOptions {
  dir: string
  now: Date
  rewrites?: PrefixRewrite
  /** Called with the result inside the transaction that stores it (the caller's audit entry goes with it or not at all). */
  record?: (result: IngestFindingsResult) => void
}

export interface IngestFindingsResult {
  files: number
  /** Records the job examined (every record of every shard). */
  records_examined: number
  /** Records stored here: those the findings rest on. */
  records_stored: number
  bad_lines: number
  sightings: number
  provenance: number
  pii_findings: number
  /** Shards read back to check their SHA-256 and take the lines (the others hold no finding). */
  shards_read: number
  /** The detection the job ran, as a scan run of this case: when it was recorded, with the pool it used. */
  scanned_at: string
  pool_tokens: number | null
  advertised_tokens: number | null
  per_file: Array<{path: string; uri: string; sha256: string; log_format: string; records: number; bad_lines: number}>
}

type Row = Record<string, unknown>

/**
 * One table of the findings, checked whole against the manifest: the part files the job wrote, each
 * holding the rows it wrote, and the job's own count of the findings. A part missing (a partial copy
 * of the folder) read as fewer findings, and every draft stated them; one present twice (a sync run
 * twice) as more. Any difference is refused, naming the table, the counts and the folder.
 */
async function readTable(dir: string, manifest: Manifest, name: TableName): Promise<Row[]> {
  const folder = join(dir, name)
  if (!existsSync(folder)) throw new InputError(`${dir}: no ${name}/ here: not the findings of a crosstalk Spark job`, 'E_NOT_FOUND')
  const written = manifest.tables?.[name]
  if (!written || typeof written.parts !== 'object' || written.parts === null || !Number.isSafeInteger(written.rows)) {
    throw new InputError(`${join(dir, 'manifest.json')}: no record of the ${name} table's part files: the manifest is damaged or not of this job`, 'E_INCOMPLETE')
  }
  const incomplete = (what: string): InputError =>
    new InputError(`${folder}: ${name} ${what}; the findings are incomplete or mixed with another copy: nothing was brought in (copy the job's whole findings/ folder again)`, 'E_INCOMPLETE')
  const present = readdirSync(folder).filter((n) => /^part-.*\.parquet$/.test(n)).sort()
  const expected = Object.keys(written.parts).sort()
  const missing = expected.filter((n) => !present.includes(n))
  const extra = present.filter((n) => !expected.includes(n))
  if (missing.length > 0 || extra.length > 0) {
    const held = present.filter((n) => expected.includes(n)).reduce((sum, n) => sum + written.parts[n]!, 0)
    throw incomplete(
      `holds ${count(present.length, 'part file')}, the manifest lists ${expected.length} of ${count(written.rows, 'row')}` +
        (missing.length > 0 ? `: missing ${missing.join(', ')} (${count(written.rows - held, 'row')})` : '') +
        (extra.length > 0 ? `; not the job's: ${extra.join(', ')}` : ''),
    )
  }
  const rows: Row[] = []
  for (const f of present) {
    const path = join(folder, f)
    const part = await readParquetRows(path)
    if (part.length !== written.parts[f]) throw incomplete(`part ${f} holds ${count(part.length, 'row')}, the manifest records ${written.parts[f]}`)
    rows.push(...part)
  }
  const counted = name in COUNTED ? manifest.counts?.[COUNTED[name as keyof typeof COUNTED]] : undefined
  if (rows.length !== written.rows || (counted !== undefined && rows.length !== counted)) {
    throw incomplete(`holds ${count(rows.length, 'row')}, the manifest records ${counted !== undefined && counted !== written.rows ? `${written.rows} (counts: ${counted})` : written.rows}`)
  }
  return rows
}

/** The longest leading part of every URI, cut after its last '/' (a folder). */
function commonPrefix(uris: readonly string[]): string {
  if (uris.length === 0) return ''
  let p = uris[0]!
  for (const u of uris) while (!u.startsWith(p)) p = p.slice(0, -1)
  return p.slice(0, p.lastIndexOf('/') + 1)
}

const key = (fileIdx: unknown, ord: unknown): string => `${Number(fileIdx)}:${Number(ord)}`

/** A provenance column the job must give: a value outside its set is a damaged findings table, never a default (a default read 'named' for a source nobody named). */
function oneOf<T extends string>(v: unknown, allowed: readonly T[], column: string): T {
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T
  throw new IntegrityError(`provenance/: ${column} ${JSON.stringify(v ?? null)} is none of ${allowed.join(', ')}: the findings are damaged or not of this job`)
}

function sourceTenantsOf(v: unknown): number {
  const n = typeof v === 'bigint' ? Number(v) : v
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1) return n
  throw new IntegrityError(`provenance/: source_tenants ${String(v ?? null)} is no count of tenants: the findings are damaged or not of this job`)
}

interface Range {
  offset: number
  length: number
  crc: number | null
  what: string
}

export async function ingestFindings(db: CaseDb, options: IngestFindingsOptions): Promise<IngestFindingsResult> {
  // One ingest at a time per case, findings included.
  claimIngest(db)
  try {
    return await bringIn(db, options)
  } finally {
    releaseIngest(db)
  }
}

async function bringIn(db: CaseDb, options: IngestFindingsOptions): Promise<IngestFindingsResult> {
  const dir = options.dir
  let manifest: Manifest
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
  } catch (error) {
    throw new InputError(`${dir}: cannot read manifest.json (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_NOT_FOUND')
  }
  if (manifest.format !== FINDINGS_FORMAT) throw new InputError(`${dir}: findings format ${manifest.format}, this crosstalk reads ${FINDINGS_FORMAT}: run the job of this version`)
  if (countLogFiles(db) > 0) throw new InputError('this case already holds log evidence: bring Spark findings into a new case (with the same canary registry)', 'E_CASE_NOT_EMPTY')
  // A mapping that matches no shard is a mistake (a path given for a file:// URI): ignored, the
  // shards were read from where the job read them, and the case named those paths.
  const uris = (manifest.shards ?? []).map((s) => s.uri)
  for (const [from, to] of options.rewrites ?? []) {
    if (!uris.some((u) => u.startsWith(from))) {
      throw new UsageError(`--shard-prefix ${from}=${to}: ${from} begins no shard URI of these findings; theirs begin ${JSON.stringify(commonPrefix(uris))}`)
    }
  }
  // Every table whole, as the job wrote it, before anything else is read or stored.
  const records = await readTable(dir, manifest, 'records')
  const sightings = await readTable(dir, manifest, 'sightings')
  const provenance = await readTable(dir, manifest, 'provenance')
  const pii = await readTable(dir, manifest, 'pii_findings')
  const bad = await readTable(dir, manifest, 'bad_lines')
  // Every line repeating a request id, stored as ingest stores duplicates: the case reads those that
  // differ from their record again and judges their answers' markers (a retry served another
  // session's data is a leak the gate must see; one that cannot be read again is not examined).
  const duplicates = await readTable(dir, manifest, 'duplicates')
  // The registry the job joined must be the case's: the same files, the same markers.
  const caseRegistry = [...registryFileHashes(db)].sort()
  const jobRegistry = [...manifest.registry.registry_files].sort()
  if (caseRegistry.join() !== jobRegistry.join() || countCanaries(db) !== manifest.registry.canaries) {
    throw new InputError(`${dir}: the job ran with another canary registry than this case holds; ingest the same registry files (crosstalk ingest canaries) before the findings`, 'E_REGISTRY')
  }
  const shards = manifest.shards.filter((s) => !s.skipped).sort((a, b) => a.file_idx - b.file_idx)
  for (const s of shards) {
    if (s.extract_scheme !== EXTRACT_SCHEME) throw new InputError(`${s.uri}: extracted under scheme ${s.extract_scheme}, this crosstalk reads ${EXTRACT_SCHEME}`)
  }
  // A shard ingest would refuse (nothing in it readable, or no answer decoded to text) is refused here too: its findings would rest on nothing.
  const refused = shards.flatMap((s) => {
    const why = refusalOf(s.log_format, {...s, notes: Object.fromEntries(s.record_notes), unread_items: Object.fromEntries(s.unread_conventions ?? [])}, s.first_bad)
    return why ? [`${s.uri}: ${why.reason}; to fix: ${why.fix}`] : []
  })
  if (refused.length > 0) throw new InputError(`${refused.join('; ')}; nothing was brought in: run the job again with the fix`, 'E_REFUSED')
  const decoders = new Map<number, LineDecoder>(shards.map((s) => [s.file_idx, lineDecoder(decodeParseSpec(s.parse_spec))]))
  const byUri = new Map(shards.map((s) => [s.uri, s.file_idx]))
  const fileOfUri = (uri: unknown): number => {
    const i = byUri.get(String(uri))
    if (i === undefined) throw new IntegrityError(`${dir}: a record was read with a line of ${String(uri)}, which the manifest does not list`)
    return i
  }

  // The byte ranges each shard must give: records' lines, the lines they were read with, and
  // the part of each quarantined line the case keeps.
  const wanted = new Map<number, Map<number, Range>>()
  const want = (fileIdx: number, r: Range): void => {
    let m = wanted.get(fileIdx)
    if (!m) wanted.set(fileIdx, (m = new Map()))
    const had = m.get(r.offset)
    if (!had || had.length < r.length || (had.length === r.length && had.crc === null)) m.set(r.offset, r)
  }
  for (const r of records) {
    want(Number(r.file_idx), {offset: Number(r.byte_offset), length: Number(r.byte_len), crc: Number(r.crc32), what: `line ${Number(r.line_no)}`})
    for (const c of r.companions as Row[]) {
      want(fileOfUri(c.uri), {offset: Number(c.offset), length: Number(c.length), crc: Number(c.crc), what: `line ${Number(c.line_no)}`})
    }
  }
  for (const d of duplicates) {
    want(Number(d.file_idx), {offset: Number(d.byte_offset), length: Number(d.byte_len), crc: Number(d.crc32), what: `line ${Number(d.line_no)}`})
    for (const c of d.companions as Row[]) {
      want(fileOfUri(c.uri), {offset: Number(c.offset), length: Number(c.length), crc: Number(c.crc), what: `line ${Number(c.line_no)}`})
    }
  }
  for (const b of bad) {
    if (Number(b.raw_kept) > 0) want(Number(b.file_idx), {offset: Number(b.byte_offset), length: Number(b.raw_kept), crc: null, what: `line ${Number(b.line_no)}`})
  }

  const at = options.now.toISOString()
  const result: IngestFindingsResult = {
    files: 0, records_examined: manifest.corpus.records, records_stored: 0, bad_lines: 0,
    sightings: sightings.length, provenance: provenance.length, pii_findings: pii.length, shards_read: 0,
    scanned_at: at, pool_tokens: manifest.parameters.pool_tokens, advertised_tokens: manifest.parameters.advertised_tokens, per_file: [],
  }
  // Read (and check) every shard first; only then write, in one transaction.
  const reads = new Map<number, Map<number, Buffer>>()
  for (const s of shards) {
    const ranges = wanted.get(s.file_idx)
    if (!ranges) continue
    const path = shardPath(s.uri, options.rewrites)
    const read = await readShardRanges(path, [...ranges.values()], {hash: true}).catch((error: unknown) => {
      if (error instanceof InputError) throw error
      throw new InputError(`${s.uri}: cannot read the original shard (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
    })
    result.shards_read++
    if (read.sha256 !== s.sha256) throw new IntegrityError(`${s.uri}: SHA-256 ${read.sha256} is not the ${s.sha256} the job extracted: the shard changed since`)
    for (const r of ranges.values()) {
      const bytes = read.lines.get(r.offset)
      if (!bytes || bytes.length !== r.length || (r.crc !== null && crc32(bytes) >>> 0 !== r.crc >>> 0)) {
        throw new IntegrityError(`${s.uri}: ${r.what} (byte ${r.offset}) does not match the CRC-32 the job took`)
      }
    }
    reads.set(s.file_idx, read.lines)
  }
  const bytesAt = (fileIdx: number, offset: number): Buffer => reads.get(fileIdx)!.get(offset)!

  inTransaction(db, () => {
    const insertRecord = recordInserter(db)
    const insertCompanion = companionInserter(db)
    const insertBad = badLineInserter(db)
    const insertBlock = referencedLineBlocks(db)
    const fileIdOf = new Map<number, number>()
    // Files first, in the job's reading order (record ids then follow ingest's order), each with its blocks.
    for (const s of shards) {
      const path = shardPath(s.uri, options.rewrites)
      const unread = fileUnread(s.log_format, {unread_items: Object.fromEntries(s.unread_conventions ?? []), notes: Object.fromEntries(s.record_notes)}, s.unread)
      const fileId = insertReferenceFile(db, {
        path, name: basename(path), absPath: resolve(path), uri: s.uri, sha256: s.sha256, size: s.size, compression: s.compression,
        logFormat: s.log_format, formatReason: s.format_reason, parseSpec: s.parse_spec, source: manifest.source, at,
        contentSha256: s.content_sha256, contentSize: s.content_size, lines: s.lines, blankLines: s.blank_lines, records: s.records,
        duplicates: s.duplicates, badLines: s.bad_lines, firstTs: s.first_ms === null ? null : new Date(s.first_ms).toISOString(),
        lastTs: s.last_ms === null ? null : new Date(s.last_ms).toISOString(),
        notes: fileNotes({...s, notes: Object.fromEntries(s.record_notes), unread_items: Object.fromEntries(s.unread_conventions ?? [])}, unread), extractScheme: s.extract_scheme,
        unconventionalSha256: s.unconventional_sha256, noRequestText: s.no_request_text, noResponseText: s.no_response_text,
        errorRecords: s.error_records, ignoredItems: s.ignored_items, unread,
      })
      fileIdOf.set(s.file_idx, fileId)
      result.files++
      result.per_file.push({path, uri: s.uri, sha256: s.sha256, log_format: s.log_format, records: s.records, bad_lines: s.bad_lines})
      const lines = reads.get(s.file_idx)
      if (!lines) continue
      ;[...lines.keys()].sort((a, b) => a - b).forEach((offset, seq) => {
        const bytes = lines.get(offset)!
        insertBlock(fileId, seq, offset, bytes, crc32(bytes))
      })
    }
    // Records in (shard, ord) order: the relative order of their ids is single-machine ingest's.
    const ids = new Map<string, number>()
    const sorted = [...records].sort((a, b) => Number(a.file_idx) - Number(b.file_idx) || Number(a.ord) - Number(b.ord))
    let lastLine = null as {key: string; records: Map<number, RecordRow>} | null
    for (const r of sorted) {
      const fileIdx = Number(r.file_idx)
      const shard = shards.find((s) => s.file_idx === fileIdx)
      if (!shard) throw new IntegrityError(`${dir}: a record names shard ${fileIdx}, which the manifest does not list`)
      const companions = (r.companions as Row[]).map((c) => ({
        file_id: fileOfUri(c.uri), line_no: Number(c.line_no), byte_offset: Number(c.offset), byte_len: Number(c.length), raw_crc32: Number(c.crc),
      }))
      const location = {
        file_id: fileIdx, line_no: Number(r.line_no), item: Number(r.item), byte_offset: Number(r.byte_offset), byte_len: Number(r.byte_len),
        raw_crc32: Number(r.crc32), parse_spec: shard.parse_spec, companions,
      }
      // Records come in (shard, ord) order, so a line's records are together: it is decoded once
      // for all of them (an OTLP line of many spans decoded once per record grew as their count squared).
      const lineKey = `${fileIdx}:${location.byte_offset}:${location.byte_len}:${companions.map((c) => `${c.file_id}:${c.byte_offset}:${c.byte_len}`).join('|')}`
      if (lastLine?.key !== lineKey) lastLine = {key: lineKey, records: decodeLineRecords(location, decoders.get(fileIdx)!, (f, offset) => bytesAt(f, offset))}
      const row = lastLine.records.get(location.item)
      if (!row) throw new IntegrityError(`${shard.uri}: line ${location.line_no} has no item ${location.item} as read now: not the record the job extracted (${JSON.stringify(r.request_id)})`)
      if (row.request_id !== r.request_id || row.ts_ms !== Number(r.ts_ms)) {
        throw new IntegrityError(`${shard.uri}: line ${location.line_no} no longer reads as the record the job extracted (${JSON.stringify(r.request_id)})`)
      }
      const {request_text: _q, response_text: _a, ...fields} = row
      const id = insertRecord(
        {fileId: fileIdOf.get(fileIdx)!, lineNo: location.line_no, item: location.item, offset: location.byte_offset, length: location.byte_len, crc: location.raw_crc32, source: manifest.source},
        fields,
      )
      companions.forEach((c, seq) => insertCompanion(id, seq, {...c, file_id: fileIdOf.get(c.file_id)!}))
      ids.set(key(fileIdx, r.ord), id)
      result.records_stored++
    }
    for (const b of [...bad].sort((x, y) => Number(x.file_idx) - Number(y.file_idx) || Number(x.line_no) - Number(y.line_no))) {
      const fileIdx = Number(b.file_idx)
      const kept = Number(b.raw_kept)
      insertBad({
        fileId: fileIdOf.get(fileIdx)!, lineNo: Number(b.line_no), item: b.item === null || b.item === undefined ? null : Number(b.item),
        offset: Number(b.byte_offset), length: Number(b.byte_len), reason: String(b.reason),
        raw: kept > 0 ? bytesAt(fileIdx, Number(b.byte_offset)).subarray(0, kept) : Buffer.alloc(0), truncated: kept < Number(b.byte_len),
      })
      result.bad_lines++
    }
    const insertDuplicate = duplicateInserter(db)
    const insertDuplicateCompanion = duplicateCompanionInserter(db)
    for (const d of [...duplicates].sort((x, y) => Number(x.file_idx) - Number(y.file_idx) || Number(x.ord) - Number(y.ord))) {
      const fileId = fileIdOf.get(Number(d.file_idx))
      if (fileId === undefined) throw new IntegrityError(`${dir}: a duplicate line names shard ${Number(d.file_idx)}, which the manifest does not list`)
      const id = insertDuplicate(fileId, Number(d.line_no), Number(d.byte_offset), Number(d.byte_len), String(d.request_id), d.identical === true)
      ;(d.companions as Row[]).forEach((c, seq) => {
        insertDuplicateCompanion(id, seq, {file_id: fileIdOf.get(fileOfUri(c.uri))!, line_no: Number(c.line_no), byte_offset: Number(c.offset), byte_len: Number(c.length), raw_crc32: Number(c.crc)})
      })
    }
    const idOf = (fileIdx: unknown, ord: unknown): number => {
      const id = ids.get(key(fileIdx, ord))
      if (id === undefined) throw new IntegrityError(`${dir}: a finding names shard ${Number(fileIdx)} record ${Number(ord)}, which records/ does not hold`)
      return id
    }
    const insertSighting = sightingInserter(db)
    for (const x of sightings) {
      insertSighting(
        idOf(x.file_idx, x.ord), String(x.marker), (x.marker_key as string | null) ?? null, String(x.class), Boolean(x.partial),
        (x.source_session as string | null) ?? null, (x.source_tenant as string | null) ?? null, Number(x.position), String(x.token),
      )
    }
    const prov = provenanceWriter(db)
    prov.clear()
    for (const p of provenance) {
      prov.insert({
        recordId: idOf(p.file_idx, p.ord), sourceRecordId: idOf(p.source_file_idx, p.source_ord),
        sourceSession: String(p.source_session), sourceTenant: String(p.source_tenant), overlapWords: Number(p.overlap_words),
        overlapSha256: String(p.overlap_sha256), matched: p.matched === 'prompt' ? 'prompt' : 'response', wordStart: Number(p.word_start), candidates: Number(p.candidates),
        sourceOrder: oneOf(p.source_order, ['earlier', 'unknown'] as const, 'source_order'),
        sourceStatus: oneOf(p.source_status, ['named', 'ambiguous', 'unknown'] as const, 'source_status'),
        sourceTenants: sourceTenantsOf(p.source_tenants),
      })
    }
    const piiWriter = piiFindingWriter(db)
    piiWriter.clear()
    for (const f of pii) {
      const hasSource = f.source_file_idx !== null && f.source_file_idx !== undefined
      piiWriter.insert({
        recordId: idOf(f.file_idx, f.ord), kind: String(f.kind), valueSha256: String(f.value_sha256),
        sourceRecordId: hasSource ? idOf(f.source_file_idx, f.source_ord) : null,
        sourceSession: (f.source_session as string | null) ?? null, sourceTenant: (f.source_tenant as string | null) ?? null,
      })
    }
    // Detection as a recorded fact: the job's run, covering every file, with its parameters.
    const p = manifest.parameters
    if (p.pool_tokens !== null) setPool(db, p.pool_tokens, p.advertised_tokens, options.now)
    const runId = beginScanRun(db, {
      // The job of this findings format classifies under this crosstalk's rules.
      startedAt: at, registryVersion: getSettings(db).registry_version, extractScheme: EXTRACT_SCHEME, fullRescan: false, sightingRules: SIGHTING_RULES,
      minWords: p.min_words, boilerplateTenants: p.boilerplate_tenants, poolTokens: p.pool_tokens, advertisedTokens: p.advertised_tokens,
    })
    markFilesScanned(db, runId, [...fileIdOf.values()])
    const c = manifest.corpus
    finishScanRun(db, runId, {finishedAt: at, recordsTotal: c.records, recordsScanned: c.records, recordsNew: c.records, provenanceState: 'current'})
    piiRefKey(db, {create: true})
    const e = manifest.exposure
    insertCorpusFacts(db, {
      imported_at: at,
      job: canonicalJson({format: manifest.format, source: manifest.source, parameters: p, registry: manifest.registry}),
      records: c.records, tenants: c.tenants, tenant_ids: canonicalJson([...c.tenant_ids].sort()), sessions: c.sessions, first_ms: c.first_ms, last_ms: c.last_ms,
      no_status: c.no_status, no_prompt_tokens: c.no_prompt_tokens, no_completion_tokens: c.no_completion_tokens, no_decode_node: c.no_decode_node,
      no_status_or_prompt_tokens: c.no_status_or_prompt_tokens, undecided_at_risk: p.pool_tokens !== null && Number.isSafeInteger(c.undecided_at_risk) && c.undecided_at_risk! >= 0 ? c.undecided_at_risk! : null, pool_tokens: p.pool_tokens, advertised_tokens: p.advertised_tokens,
      sessions_served: e?.served ?? null, sessions_served_with_confirmed: e?.with_confirmed ?? null,
      served_windows: e ? JSON.stringify(e.windows) : null,
    })
    options.record?.(result)
  })
  return result
}
