import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {crc32} from 'node:zlib'
import {InputError, IntegrityError} from '../errors.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import {parseLine} from '../extract/parse-record.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {countCanaries} from '../store/canaries.js'
import {piiFindingWriter, provenanceWriter, sightingInserter} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {badLineInserter} from '../store/quarantine.js'
import {recordInserter} from '../store/records.js'
import {countLogFiles, insertCorpusFacts, insertReferenceFile, referencedLineBlocks, registryFileHashes} from '../store/scale.js'
import {beginScanRun, finishScanRun, markFilesScanned} from '../store/scan-runs.js'
import {inTransaction} from '../store/session.js'
import {getSettings, piiRefKey, setPool} from '../store/settings.js'
import {canonicalJson} from '../util/canonical-json.js'
import {readParquetRows} from './parquet-io.js'
import {readShardRanges, shardPath, type PrefixRewrite} from './shard-reader.js'

// `crosstalk ingest findings DIR`: the findings of a Spark audit into a case, with evidence by
// reference. For every record a finding rests on (the recipient, the source, an at-risk
// response), the line is read from the original shard, checked against the CRC-32 the
// extract took and the shard against its SHA-256, and stored: the record row (parsed from
// those bytes by ingest's own parser) and the bytes as an evidence block at their offset. The
// findings are stored as a scan would have written them, with a scan run recording the job's
// parameters, so scope, the reports, replay and verify work on the case unchanged; the counts
// over every record are recorded as the job made them (corpus_facts).

export const FINDINGS_FORMAT = 'crosstalk-findings/1'
/** Bytes of a bad line kept in the quarantine table (as ingest keeps them). */
const RAW_KEEP = 64 * 1024

interface ShardEntry {
  file_idx: number
  uri: string
  sha256: string
  size: number
  compression: 'none' | 'gzip'
  content_sha256: string
  content_size: number
  lines: number
  blank_lines: number
  records: number
  duplicates: number
  bad_lines: number
  first_ms: number | null
  last_ms: number | null
  notes: string[]
  extract_scheme: string
  parse_spec: string
  unconventional_sha256: string
  skipped: boolean
}

interface Manifest {
  format: string
  source: string
  registry: {registry_files: string[]; canaries: number}
  parameters: {min_words: number; boilerplate_tenants: number; pool_tokens: number | null; advertised_tokens: number | null}
  corpus: {records: number; tenants: number; sessions: number; first_ms: number | null; last_ms: number | null; no_status: number; no_prompt_tokens: number}
  exposure: {served: number; with_confirmed: number; windows: Array<[string | null, number, number]>} | null
  shards: ShardEntry[]
}

export interface IngestFindingsOptions {
  dir: string
  now: Date
  rewrites?: PrefixRewrite
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
}

type Row = Record<string, unknown>

async function readTable(dir: string, name: string): Promise<Row[]> {
  const folder = join(dir, name)
  if (!existsSync(folder)) throw new InputError(`${dir}: no ${name}/ here: not the findings of a crosstalk Spark job`, 'E_NOT_FOUND')
  const rows: Row[] = []
  for (const f of readdirSync(folder).filter((n) => /^part-.*\.parquet$/.test(n)).sort()) rows.push(...(await readParquetRows(join(folder, f))))
  return rows
}

const key = (fileIdx: unknown, lineNo: unknown): string => `${Number(fileIdx)}:${Number(lineNo)}`

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
  if (manifest.format !== FINDINGS_FORMAT) throw new InputError(`${dir}: findings format ${manifest.format}, this crosstalk reads ${FINDINGS_FORMAT}`)
  if (countLogFiles(db) > 0) throw new InputError('this case already holds log evidence: bring Spark findings into a new case (with the same canary registry)', 'E_CASE_NOT_EMPTY')
  // The registry the job joined must be the case's: the same files, the same markers.
  const caseRegistry = [...registryFileHashes(db)].sort()
  const jobRegistry = [...manifest.registry.registry_files].sort()
  if (caseRegistry.join() !== jobRegistry.join() || countCanaries(db) !== manifest.registry.canaries) {
    throw new InputError(`${dir}: the job ran with another canary registry than this case holds; ingest the same registry files (crosstalk ingest canaries) before the findings`, 'E_REGISTRY')
  }
  for (const s of manifest.shards) {
    if (s.extract_scheme !== EXTRACT_SCHEME) throw new InputError(`${s.uri}: extracted under scheme ${s.extract_scheme}, this crosstalk reads ${EXTRACT_SCHEME}`)
  }

  const records = await readTable(dir, 'records')
  const sightings = await readTable(dir, 'sightings')
  const provenance = await readTable(dir, 'provenance')
  const pii = await readTable(dir, 'pii_findings')
  const bad = await readTable(dir, 'bad_lines')
  const byShard = new Map<number, {records: Row[]; bad: Row[]}>()
  const shardOf = (i: number): {records: Row[]; bad: Row[]} => {
    let s = byShard.get(i)
    if (!s) byShard.set(i, (s = {records: [], bad: []}))
    return s
  }
  for (const r of records) shardOf(Number(r.file_idx)).records.push(r)
  for (const b of bad) shardOf(Number(b.file_idx)).bad.push(b)

  const result: IngestFindingsResult = {
    files: 0, records_examined: manifest.corpus.records, records_stored: 0, bad_lines: 0,
    sightings: sightings.length, provenance: provenance.length, pii_findings: pii.length, shards_read: 0,
  }
  const at = options.now.toISOString()
  const settings = getSettings(db)
  // Read (and check) every shard first; only then write, in one transaction.
  const reads = new Map<number, Map<number, Buffer>>()
  const shards = manifest.shards.filter((s) => !s.skipped).sort((a, b) => a.file_idx - b.file_idx)
  for (const s of shards) {
    const want = byShard.get(s.file_idx)
    if (!want) continue
    const path = shardPath(s.uri, options.rewrites)
    const ranges = [...want.records, ...want.bad].map((r) => ({offset: Number(r.byte_offset), length: Number(r.byte_len)}))
    const read = await readShardRanges(path, ranges, {hash: true}).catch((error: unknown) => {
      if (error instanceof InputError) throw error
      throw new InputError(`${s.uri}: cannot read the original shard (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
    })
    result.shards_read++
    if (read.sha256 !== s.sha256) throw new IntegrityError(`${s.uri}: SHA-256 ${read.sha256} is not the ${s.sha256} the job extracted: the shard changed since`)
    for (const r of want.records) {
      const bytes = read.lines.get(Number(r.byte_offset))
      if (!bytes || bytes.length !== Number(r.byte_len) || crc32(bytes) >>> 0 !== Number(r.crc32) >>> 0) {
        throw new IntegrityError(`${s.uri}: line ${Number(r.line_no)} (byte ${Number(r.byte_offset)}) does not match the CRC-32 the job took`)
      }
    }
    reads.set(s.file_idx, read.lines)
  }

  inTransaction(db, () => {
    const insertRecord = recordInserter(db)
    const insertBad = badLineInserter(db)
    const insertBlock = referencedLineBlocks(db)
    const ids = new Map<string, number>()
    const fileIds: number[] = []
    for (const s of shards) {
      const path = shardPath(s.uri, options.rewrites)
      const fileId = insertReferenceFile(db, {
        path, name: basename(path), absPath: resolve(path), uri: s.uri, sha256: s.sha256, size: s.size, compression: s.compression,
        parseSpec: s.parse_spec, source: manifest.source, at, contentSha256: s.content_sha256, contentSize: s.content_size,
        lines: s.lines, blankLines: s.blank_lines, records: s.records, duplicates: s.duplicates, badLines: s.bad_lines,
        firstTs: s.first_ms === null ? null : new Date(s.first_ms).toISOString(), lastTs: s.last_ms === null ? null : new Date(s.last_ms).toISOString(),
        notes: s.notes, extractScheme: s.extract_scheme, unconventionalSha256: s.unconventional_sha256,
      })
      fileIds.push(fileId)
      result.files++
      const want = byShard.get(s.file_idx)
      const lines = reads.get(s.file_idx)
      if (!want || !lines) continue
      // The lines as evidence blocks, in stream order; then the rows that point into them.
      const offsets = [...new Set([...want.records, ...want.bad].map((r) => Number(r.byte_offset)))].sort((a, b) => a - b)
      offsets.forEach((offset, seq) => {
        const bytes = lines.get(offset)!
        insertBlock(fileId, seq, offset, bytes, crc32(bytes))
      })
      const map = decodeParseSpec(s.parse_spec).map ?? {}
      for (const r of [...want.records].sort((a, b) => Number(a.line_no) - Number(b.line_no))) {
        const bytes = lines.get(Number(r.byte_offset))!
        const parsed = parseLine(bytes, map)
        if (parsed.kind !== 'record') throw new IntegrityError(`${s.uri}: line ${Number(r.line_no)} no longer reads as a record`)
        const {request_text: _q, response_text: _a, ...row} = parsed.row
        const id = insertRecord({fileId, lineNo: Number(r.line_no), offset: Number(r.byte_offset), length: bytes.length, crc: crc32(bytes), source: manifest.source}, row)
        ids.set(key(s.file_idx, r.line_no), id)
        result.records_stored++
      }
      for (const b of want.bad) {
        const bytes = lines.get(Number(b.byte_offset))!
        insertBad({
          fileId, lineNo: Number(b.line_no), offset: Number(b.byte_offset), length: Number(b.byte_len), reason: String(b.reason),
          raw: bytes.subarray(0, RAW_KEEP), truncated: bytes.length > RAW_KEEP,
        })
        result.bad_lines++
      }
    }
    const idOf = (fileIdx: unknown, lineNo: unknown): number => {
      const id = ids.get(key(fileIdx, lineNo))
      if (id === undefined) throw new IntegrityError(`${dir}: a finding names shard ${Number(fileIdx)} line ${Number(lineNo)}, which records/ does not hold`)
      return id
    }
    const insertSighting = sightingInserter(db)
    for (const x of sightings) {
      insertSighting(
        idOf(x.file_idx, x.line_no), String(x.marker), (x.marker_key as string | null) ?? null, String(x.class), Boolean(x.partial),
        (x.source_session as string | null) ?? null, (x.source_tenant as string | null) ?? null, Number(x.position), String(x.token),
      )
    }
    const prov = provenanceWriter(db)
    prov.clear()
    for (const p of provenance) {
      prov.insert({
        recordId: idOf(p.file_idx, p.line_no), sourceRecordId: idOf(p.source_file_idx, p.source_line_no),
        sourceSession: String(p.source_session), sourceTenant: String(p.source_tenant), overlapWords: Number(p.overlap_words),
        overlapSha256: String(p.overlap_sha256), matched: p.matched === 'prompt' ? 'prompt' : 'response', wordStart: Number(p.word_start), candidates: Number(p.candidates),
      })
    }
    const piiWriter = piiFindingWriter(db)
    piiWriter.clear()
    for (const f of pii) {
      const hasSource = f.source_file_idx !== null && f.source_file_idx !== undefined
      piiWriter.insert({
        recordId: idOf(f.file_idx, f.line_no), kind: String(f.kind), valueSha256: String(f.value_sha256),
        sourceRecordId: hasSource ? idOf(f.source_file_idx, f.source_line_no) : null,
        sourceSession: (f.source_session as string | null) ?? null, sourceTenant: (f.source_tenant as string | null) ?? null,
      })
    }
    // Detection as a recorded fact: the job's run, covering every file, with its parameters.
    const p = manifest.parameters
    if (p.pool_tokens !== null) setPool(db, p.pool_tokens, p.advertised_tokens, options.now)
    const runId = beginScanRun(db, {
      startedAt: at, registryVersion: settings.registry_version, extractScheme: EXTRACT_SCHEME, fullRescan: false,
      minWords: p.min_words, boilerplateTenants: p.boilerplate_tenants, poolTokens: p.pool_tokens, advertisedTokens: p.advertised_tokens,
    })
    markFilesScanned(db, runId, fileIds)
    const c = manifest.corpus
    finishScanRun(db, runId, {finishedAt: at, recordsTotal: c.records, recordsScanned: c.records, recordsNew: c.records, provenanceState: 'current'})
    piiRefKey(db, {create: true})
    const e = manifest.exposure
    insertCorpusFacts(db, {
      imported_at: at,
      job: canonicalJson({format: manifest.format, source: manifest.source, parameters: p, registry: manifest.registry}),
      records: c.records, tenants: c.tenants, sessions: c.sessions, first_ms: c.first_ms, last_ms: c.last_ms,
      no_status: c.no_status, no_prompt_tokens: c.no_prompt_tokens,
      pool_tokens: p.pool_tokens, advertised_tokens: p.advertised_tokens,
      sessions_served: e?.served ?? null, sessions_served_with_confirmed: e?.with_confirmed ?? null,
      served_windows: e ? JSON.stringify(e.windows) : null,
    })
  })
  return result
}
