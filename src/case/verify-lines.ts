import {createHash} from 'node:crypto'
import {crc32} from 'node:zlib'
import {READ_BY_EARLIER_VERSION} from '../detect/reextract.js'
import {sqliteRegistry} from '../detect/registry.js'
import {responseSightings} from '../detect/scan-case.js'
import {inflateBlock} from '../evidence/evidence-store.js'
import {EXTRACT_SCHEME, extractRecord, UnconventionalSet} from '../extract/extract.js'
import {markerTokens, promptSearch, type MarkerRegistry, type MarkerToken, type RegisteredMarker} from '../extract/markers.js'
import {decodeLine, lineDecoder} from '../extract/line-decoder.js'
import {DUPLICATE_KEY, type LineResult, type RecordRow} from '../extract/parse-record.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {FingerprintBuffer} from '../extract/winnow.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {
  iterateFileFingerprints, iterateFileMarkerTokens, iterateFilePiiValues, iterateFileUnconventionalHits, type FingerprintStored,
} from '../store/extracts.js'
import {unconventionalMarkers} from '../store/canaries.js'
import {countMissingFields, fileById, MISSING_FIELDS, noMissingFields, type FileRow} from '../store/files.js'
import {iterateFileSightings, type SightingStored} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {iterateBadLinesOfFile, iterateDuplicatesOfFile, type BadLineStored, type DuplicateLineRow} from '../store/quarantine.js'
import {iterateRecordsOfFile, RECORD_COLUMNS, recordBySourceRequest, type RecordRowStored} from '../store/records.js'
import {scannedFileIds} from '../store/scan-runs.js'
import {originalChunks, readFromOriginal} from './verify-original.js'
import {ident, Problems, shown} from './verify-problems.js'
import {count} from '../util/plural.js'

// One evidence file, line by line. The file's decompressed stream is rebuilt from its
// evidence blocks (each against its CRC, all of them against the content hash taken at
// ingest) and cut into lines exactly as ingest cut them. Every line must be accounted for:
// a record, a duplicate, a quarantined line, or blank. Each record's line is parsed again
// with the file's parse spec and every stored field compared with what the bytes say; its
// marker tokens are extracted again and its sightings derived again from them and the
// registry. So an edited field, a deleted record, or a deleted or re-classed sighting shows
// up here, named by file and line. With `deep`, the rest of the detection extract
// (personal-data values, fingerprints) is computed again too: that is the expensive part
// of ingest, so it is not done by default.

export interface LineCheckContext {
  db: CaseDb
  problems: Problems
  deep: boolean
  /** The registry sightings are derived against; null when they are not compared (never scanned, or the registry changed since). */
  registry: MarkerRegistry | null
  /** Unconventional registered markers by marker text. */
  byMarker: ReadonlyMap<string, RegisteredMarker>
  /** The registry's unconventional markers as a set (its hash names the set a file was matched under). */
  unconventional: UnconventionalSet
  /** Log files a finished scan covered. */
  scannedFiles: ReadonlySet<number>
}

export interface FileLineTally {
  blocks: number
  records: number
  lines: number
  /** Records whose sightings were derived again and compared. */
  sightings_compared: number
  /** Originals read whole (files kept by reference). */
  originals: number
  /**
   * Records an earlier version read from lines this one refuses for a key given twice (extract
   * scheme x3 and before read the last value): nothing was altered, so they are named, not
   * reported as problems; null when there are none.
   */
  older_rules: {path: string; records: number; first_line: number; reason: string} | null
}

/** Fields ingest takes from a line, compared one by one (the texts are not stored). */
const RECORD_FIELDS = [
  'request_id', 'ts', 'ts_ms', 'tenant_id', 'session_id', 'status', 'endpoint', 'model', 'prefill_node', 'decode_node',
  'prompt_tokens', 'completion_tokens', 'cached_tokens', 'stream', 'response_kind', 'is_error', 'error_message',
] as const satisfies ReadonlyArray<keyof RecordRow & keyof RecordRowStored>

const OVERSIZE = /over --max-line-bytes (\d+)/
/** The last line of a damaged gzip stream: its reason comes from the stream, not from its bytes. */
const CUT_SHORT = /^line cut short where the gzip stream is damaged/

type Item =
  | {kind: 'record'; byte_offset: number; byte_len: number; line_no: number; row: RecordRowStored}
  | {kind: 'duplicate'; byte_offset: number; byte_len: number; line_no: number; row: DuplicateLineRow}
  | {kind: 'bad_line'; byte_offset: number; byte_len: number; line_no: number; row: BadLineStored}

interface Line {
  lineNo: number
  /** Offset of the line's first byte (the byte-order mark's, on a first line that has one). */
  offset: number
  /** Bytes before the newline, carriage return included. */
  length: number
  /** The line's bytes, when the line holds an item that needs them. */
  bytes: Buffer | null
  /** Only white space (after a leading byte-order mark). */
  blank: boolean
  bom: boolean
}

/** The context for one connection to the case (the main thread's, or a worker's). */
export function lineCheckContext(db: CaseDb, problems: Problems, options: {deep: boolean; compareSightings: boolean}): LineCheckContext {
  const registry = sqliteRegistry(db)
  return {
    db, problems, deep: options.deep,
    registry: options.compareSightings ? registry : null,
    byMarker: new Map(registry.unconventional.map((m) => [m.marker, m])),
    unconventional: new UnconventionalSet(unconventionalMarkers(db)),
    scannedFiles: scannedFileIds(db),
  }
}

export function verifyLogFile(ctx: LineCheckContext, file: FileRow): FileLineTally {
  return new FileWalk(ctx, file).run()
}

class FileWalk {
  private readonly problems: Problems
  private readonly where: (lineNo: number) => string
  private readonly parse: (line: Buffer) => LineResult
  private readonly items: Peekable<Item>
  private readonly tokens: Grouped<[number, number, string, number]>
  private readonly hits: Grouped<[number, number, string, number]> | null
  private readonly fingerprints: Grouped<FingerprintStored> | null
  private readonly pii: Grouped<[number, number, string, string, number]> | null
  private readonly sightings: Grouped<SightingStored & {line_no: number}> | null
  private readonly priorRecord
  private readonly fpBuf = new FingerprintBuffer()
  private readonly tally: FileLineTally = {blocks: 0, records: 0, lines: 0, sightings_compared: 0, originals: 0, older_rules: null}
  private readonly counts = {records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, first_ms: Infinity, last_ms: -Infinity}
  /** The fields the stored records do not give, counted as ingest counted them for the file (schema 6). */
  private readonly missing = noMissingFields()
  private readonly extracted: boolean
  /** Whether its records may have been read by rules before x4's (see FileLineTally.older_rules). */
  private readonly readByEarlierRules: boolean
  private readonly hitsCurrent: boolean

  constructor(
    private readonly ctx: LineCheckContext,
    private readonly file: FileRow,
  ) {
    const {db} = ctx
    this.problems = ctx.problems
    this.where = (lineNo) => `${file.path} line ${lineNo}`
    this.parse = nativeLineParser(file)
    this.items = new Peekable(mergeByOffset(db, file.id))
    this.priorRecord = recordBySourceRequest(db)
    // Extracts made under another scheme, or hits matched under another set of unconventional
    // markers, cannot be derived again here; a scan reports the first and redoes the second.
    this.extracted = file.extract_scheme === EXTRACT_SCHEME
    this.readByEarlierRules = !this.extracted || (file.unread ?? '').includes(READ_BY_EARLIER_VERSION)
    this.hitsCurrent = this.extracted && file.unconventional_sha256 === ctx.unconventional.hash
    this.tokens = new Grouped(iterateFileMarkerTokens(db, file.id), (r) => [r[3], r[0]])
    this.hits = this.hitsCurrent ? new Grouped(iterateFileUnconventionalHits(db, file.id), (r) => [r[3], r[0]]) : null
    this.fingerprints = this.extracted ? new Grouped(iterateFileFingerprints(db, file.id, ctx.deep), (r) => [r.line_no, r.record_id]) : null
    this.pii = this.extracted && ctx.deep ? new Grouped(iterateFilePiiValues(db, file.id), (r) => [r[4], r[0]]) : null
    const compareSightings = ctx.registry !== null && ctx.scannedFiles.has(file.id) && this.hitsCurrent
    this.sightings = compareSightings ? new Grouped(iterateFileSightings(db, file.id), (r) => [r.line_no, r.record_id]) : null
  }

  run(): FileLineTally {
    try {
      return this.walk()
    } finally {
      // Statements left mid-way (a walk cut short) would keep the connection busy for what follows.
      this.items.close()
      for (const grouped of [this.tokens, this.hits, this.fingerprints, this.pii, this.sightings]) grouped?.close()
    }
  }

  private walk(): FileLineTally {
    const {file} = this
    const content = createHash('sha256')
    let contentOk = true
    let expectedOffset = 0
    const splitter = new LineSplitter((lineNo, offset) => this.wants(lineNo, offset), (line) => this.onLine(line))
    // A longer version of a stored file: its first read_from bytes must be that file's content.
    const earlier = file.continues_file_id === null ? null : {hash: createHash('sha256'), left: file.read_from}
    const feedEarlier = (bytes: Buffer): void => {
      if (earlier === null || earlier.left <= 0) return
      earlier.hash.update(bytes.subarray(0, earlier.left))
      earlier.left -= Math.min(earlier.left, bytes.length)
    }
    if (readFromOriginal(file)) {
      // Kept by reference: the original is the evidence, read where it lies.
      const read = {whole: false}
      for (const bytes of originalChunks(file, this.problems, read)) {
        expectedOffset += bytes.length
        content.update(bytes)
        feedEarlier(bytes)
        splitter.push(bytes)
      }
      contentOk = false
      // Nothing of it could be read: that one problem says it all (every line would be missing).
      if (!read.whole && expectedOffset === 0 && file.size > 0) return this.tally
      if (read.whole) {
        this.tally.originals++
        if (content.digest('hex') !== file.content_sha256) {
          this.problems.add('original', file.abs_path, `changed: no longer matches the SHA-256 recorded at ingest (${file.sha256.slice(0, 16)}…; kept by reference); the lines that differ are named below`)
        }
      }
    }
    for (const row of readFromOriginal(file) ? [] : iterateBlocks(this.ctx.db, file.id)) {
      this.tally.blocks++
      let bytes: Buffer
      try {
        bytes = inflateBlock(row, file.id)
        if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) {
          contentOk = false
          this.problems.add('block', `${file.path} block ${row.seq} (bytes ${row.raw_offset}..${row.raw_offset + row.raw_len})`, 'content does not match its CRC-32')
        }
      } catch (error) {
        bytes = Buffer.alloc(row.raw_len)
        contentOk = false
        this.problems.add('block', `${file.path} block ${row.seq}`, (error as Error).message)
      }
      if (row.raw_offset !== expectedOffset) {
        contentOk = false
        this.problems.add('block', `${file.path} block ${row.seq}`, `starts at byte ${row.raw_offset}, where the blocks before it end at ${expectedOffset}`)
      }
      expectedOffset = row.raw_offset + bytes.length
      content.update(bytes)
      feedEarlier(bytes)
      splitter.push(bytes)
    }
    splitter.end()
    if (earlier !== null) this.checkEarlierVersion(earlier.hash.digest('hex'), earlier.left)
    if (contentOk && file.content_sha256 && content.digest('hex') !== file.content_sha256) {
      this.problems.add('content', file.path, 'evidence store does not reproduce the content hash recorded at ingest')
    }
    for (let item = this.items.next(); item; item = this.items.next()) {
      this.problems.add('line', `${file.path} byte ${item.byte_offset}`, `${describe(item)} points past the end of the evidence (${expectedOffset} bytes)`, file.path)
    }
    this.checkCounts()
    for (const grouped of [this.tokens, this.hits, this.fingerprints, this.pii, this.sightings]) {
      const stray = grouped?.rest() ?? 0
      if (stray > 0) this.problems.add('extract', file.path, `${count(stray, 'detection row')} ${stray === 1 ? 'belongs' : 'belong'} to no record of this file in line order`, file.path)
    }
    return this.tally
  }

  /**
   * A longer version of a stored file (migration 018) read only its lines after the earlier
   * version's: its first read_from bytes must be that version's content, whose lines account for them.
   */
  private checkEarlierVersion(sha256: string, left: number): void {
    const {file} = this
    const earlier = fileById(this.ctx.db, file.continues_file_id!)
    if (earlier === undefined || earlier.state !== 'complete') {
      this.problems.add('content', file.path, `continues a file no longer in the case (id ${file.continues_file_id}): its first ${file.read_from} bytes are accounted for by no file`, file.path)
    } else if (left > 0 || sha256 !== earlier.content_sha256) {
      this.problems.add('content', file.path, `its first ${file.read_from} bytes are not the content of ${earlier.path} (sha256 ${earlier.sha256.slice(0, 16)}…), the version it continues and whose lines account for them`, file.path)
    }
  }

  /** The item a line of the evidence was last matched with (a second row at its line is named with it). */
  private matched: {item: Item; lineNo: number} | null = null

  /** Rows that start before `start` (inside a line already read, or between lines): they belong to no line. */
  private dropStale(start: number): void {
    const {file} = this
    for (let item = this.items.peek(); item && item.byte_offset < start; item = this.items.peek()) {
      this.items.next()
      const m = this.matched
      if (m && m.item.byte_offset === item.byte_offset) {
        this.problems.add('line', `${describe(item)} (${this.where(m.lineNo)})`, `points at the line ${describe(m.item)} already accounts for`, file.path)
      } else {
        this.problems.add('line', `${file.path} byte ${item.byte_offset}`, `${describe(item)} does not start at a line of the evidence`, file.path)
      }
    }
  }

  /** Whether the line starting here holds an item whose bytes are needed. */
  private wants(lineNo: number, offset: number): boolean {
    // Rows left behind by the line before are reported now, so the row at this line is the one asked about.
    if (!(lineNo === 1 && offset === 0)) this.dropStale(offset)
    const item = this.items.peek()
    if (!item) return false
    const here = item.byte_offset === offset || (lineNo === 1 && offset === 0 && item.byte_offset === 3)
    return here && !(item.kind === 'bad_line' && OVERSIZE.test(item.row.reason))
  }

  private onLine(line: Line): void {
    const {file} = this
    // A line that ends, newline included, within what the version this file continues holds: that version's (checked with it).
    if (line.offset + line.length < file.read_from) return
    this.tally.lines++
    const start = line.offset + (line.bom ? 3 : 0)
    this.dropStale(start)
    const item = this.items.peek()
    if (!item || item.byte_offset !== start) {
      if (line.bytes ? isBlank(line.bytes, line.bom ? 3 : 0) : line.blank) this.counts.blank_lines++
      else {
        this.problems.add(
          'line', `${this.where(line.lineNo)} (bytes ${line.offset}..${line.offset + line.length})`,
          'a line of the evidence that no record, duplicate or quarantined line accounts for (a record removed from the case?)', file.path,
        )
      }
      return
    }
    this.items.next()
    this.matched = {item, lineNo: line.lineNo}
    const length = line.length - (line.bom ? 3 : 0)
    if (item.line_no !== line.lineNo) this.problems.add('line', `${describe(item)} (${file.path})`, `says line ${item.line_no}, but its bytes are line ${line.lineNo}`, file.path)
    if (item.byte_len !== length) {
      this.problems.add('line', `${describe(item)} (${this.where(line.lineNo)})`, `is ${item.byte_len} bytes long, but its line is ${length}`, file.path)
      if (item.kind === 'record') this.countRecord(item.row)
      return
    }
    const bytes = line.bytes ? line.bytes.subarray(line.bom ? 3 : 0) : null
    if (bytes === null && item.kind !== 'bad_line') {
      // Cannot happen as the walk asks for the bytes of every line a row starts at; named, never a crash.
      this.problems.add('line', `${describe(item)} (${this.where(line.lineNo)})`, 'its line could not be read back from the evidence', file.path)
      if (item.kind === 'record') this.countRecord(item.row)
      return
    }
    if (item.kind === 'record') this.checkRecord(item.row, bytes!, line.lineNo)
    else if (item.kind === 'duplicate') this.checkDuplicate(item.row, bytes!, line.lineNo)
    else this.checkBadLine(item.row, bytes, line.lineNo)
  }

  /** A record counted for the file's counts and time span, as it is stored (its line is checked apart). */
  private countRecord(row: RecordRowStored): void {
    const c = this.counts
    c.records++
    countMissingFields(this.missing, row)
    if (row.ts_ms < c.first_ms) c.first_ms = row.ts_ms
    if (row.ts_ms > c.last_ms) c.last_ms = row.ts_ms
  }

  private checkRecord(row: RecordRowStored, bytes: Buffer, lineNo: number): void {
    this.tally.records++
    this.countRecord(row)
    let label: string | undefined
    const name = (): string => (label ??= `record ${ident(row.request_id)} (${this.where(lineNo)})`)
    const group = `${this.file.path}:record`
    // Extract rows of this record are consumed even when the record cannot be compared, so the next record lines up.
    const key: [number, number] = [row.line_no, row.id]
    const storedTokens = this.tokens.take(key)
    const storedHits = this.hits?.take(key) ?? []
    const storedFp = this.fingerprints?.take(key) ?? []
    const storedPii = this.pii?.take(key) ?? []
    const storedSightings = this.sightings?.take(key) ?? []
    if (crc32(bytes) !== row.raw_crc32) {
      this.problems.add('record', name(), readFromOriginal(this.file) ? 'the line in the original differs from the line ingested (CRC-32)' : 'stored raw bytes differ from the line as ingested', group)
      return
    }
    const parsed = this.parse(bytes)
    if (parsed.kind === 'bad' && parsed.reason.startsWith(DUPLICATE_KEY) && this.readByEarlierRules) {
      const older = (this.tally.older_rules ??= {path: this.file.path, records: 0, first_line: lineNo, reason: parsed.reason})
      older.records++
      return
    }
    if (parsed.kind !== 'record') {
      this.problems.add('record', name(), `its line does not read as a record (${parsed.kind === 'bad' ? parsed.reason : 'blank'})`, group)
      return
    }
    const fresh = parsed.row
    for (const field of RECORD_FIELDS) {
      if (row[field] !== fresh[field]) {
        this.problems.add('record', name(), `${field} is ${shown(row[field])} in the case, but the line says ${shown(fresh[field])}`, group)
        return
      }
    }
    if (row.source !== this.file.source) this.problems.add('record', name(), `source is ${shown(row.source)}, but its file was ingested as ${shown(this.file.source)}`, group)
    // A line of this format holds one record, item 0: another item would have its texts read from no item of the line.
    if (row.item !== 0) this.problems.add('record', name(), `its item is ${shown(row.item)}, but its line holds one record (item 0)`, group)
    if (!this.extracted) return

    const response = fresh.response_text
    const tokens = response ? markerTokens(response) : []
    const xgroup = `${this.file.path}:extract`
    if (!sameTokens(storedTokens.map((t) => ({position: t[1], token: t[2]})), tokens)) {
      this.problems.add('extract', name(), `its marker tokens in the case (${storedTokens.length}) differ from those in its response (${tokens.length})`, xgroup)
    }
    const hits = this.hitsCurrent && response ? this.ctx.unconventional.hits(response) : []
    if (this.hits && !sameTokens(storedHits.map((t) => ({position: t[1], token: t[2]})), hits)) {
      this.problems.add('extract', name(), `its unconventional-marker hits in the case (${storedHits.length}) differ from those in its response (${hits.length})`, xgroup)
    }
    const fp = storedFp[0]
    if (!fp) this.problems.add('extract', name(), 'has no fingerprint row (provenance cannot see it)', xgroup)
    else if (this.ctx.deep && (fp.ts_ms !== fresh.ts_ms || fp.tenant_id !== fresh.tenant_id || fp.session_id !== fresh.session_id || fp.decode_node !== fresh.decode_node)) {
      this.problems.add('extract', name(), `its fingerprint row names ${shown(fp.tenant_id)}/${shown(fp.session_id)} at ${fp.ts_ms} on ${shown(fp.decode_node)}, not what its line says`, xgroup)
    }
    if (this.ctx.deep) this.checkDeepExtract(name(), fresh, fp, storedPii, xgroup)

    if (this.sightings) {
      this.tally.sightings_compared++
      const recipient = {tenant: fresh.tenant_id, session: fresh.session_id, promptHas: promptSearch(() => fresh.request_text, (text) => this.ctx.unconventional.hits(text))}
      const expected = responseSightings(tokens, hits, this.ctx.registry!, this.ctx.byMarker, recipient)
      const difference = compareSightings(storedSightings, expected)
      if (difference) this.problems.add('sighting', name(), difference, `${this.file.path}:sighting`)
    }
  }

  private checkDeepExtract(name: string, fresh: RecordRow, fp: FingerprintStored | undefined, storedPii: Array<[number, number, string, string, number]>, group: string): void {
    this.fpBuf.length = 0
    const x = extractRecord(fresh.request_text, fresh.response_text, this.fpBuf, this.hitsCurrent ? this.ctx.unconventional : undefined)
    const expectedPii = x.pii.map(([part, kind, hash]) => `${part}:${kind}:${hash}`).sort()
    const actualPii = storedPii.map(([, part, kind, hash]) => `${part}:${kind}:${hash}`).sort()
    if ([...new Set(expectedPii)].join(',') !== actualPii.join(',')) {
      this.problems.add('extract', name, `its personal-data values in the case (${actualPii.length}) differ from those in its texts (${new Set(expectedPii).size})`, group)
    }
    if (!fp) return
    const data = this.fpBuf.data
    const at = data.byteOffset + x.fpStart * 4
    const prompt = Buffer.from(data.buffer, at, x.fpPromptLen * 4)
    const response = Buffer.from(data.buffer, at + x.fpPromptLen * 4, x.fpResponseLen * 4)
    if (fp.prompt_words !== x.promptWords || fp.response_words !== x.responseWords || !prompt.equals(fp.prompt_fp!) || !response.equals(fp.response_fp!)) {
      this.problems.add('extract', name, 'its text fingerprints in the case differ from those of its texts', group)
    }
  }

  private checkDuplicate(row: DuplicateLineRow, bytes: Buffer, lineNo: number): void {
    this.counts.duplicates++
    const name = `duplicate line ${this.where(lineNo)}`
    const group = `${this.file.path}:duplicate`
    const parsed = this.parse(bytes)
    if (parsed.kind === 'bad' && parsed.reason.startsWith(DUPLICATE_KEY) && this.readByEarlierRules) {
      const older = (this.tally.older_rules ??= {path: this.file.path, records: 0, first_line: lineNo, reason: parsed.reason})
      older.records++
      return
    }
    if (parsed.kind !== 'record') {
      this.problems.add('duplicate', name, `does not read as a request line (${parsed.kind === 'bad' ? parsed.reason : 'blank'})`, group)
      return
    }
    if (parsed.row.request_id !== row.request_id) {
      this.problems.add('duplicate', name, `request_id is ${shown(row.request_id)} in the case, but the line says ${shown(parsed.row.request_id)}`, group)
      return
    }
    const first = this.priorRecord(this.file.source, row.request_id)
    if (!first || first.file_id > this.file.id || (first.file_id === this.file.id && first.line_no >= lineNo)) {
      this.problems.add('duplicate', name, `no earlier record of request ${shown(row.request_id)} in source ${shown(this.file.source)} (a record removed, or a record turned into a duplicate?)`, group)
      return
    }
    if ((row.identical === 1) !== (first.raw_crc32 === crc32(bytes))) {
      this.problems.add('duplicate', name, `marked ${row.identical === 1 ? 'identical to' : 'different from'} its first occurrence, but it is not`, group)
    }
  }

  private checkBadLine(row: BadLineStored, bytes: Buffer | null, lineNo: number): void {
    this.counts.bad_lines++
    const name = `quarantined ${this.where(lineNo)}`
    const group = `${this.file.path}:bad_line`
    const oversize = OVERSIZE.exec(row.reason)
    if (oversize) {
      if (row.byte_len <= Number(oversize[1])) this.problems.add('bad_line', name, `quarantined as over ${oversize[1]} bytes, but it is ${row.byte_len}`, group)
      return
    }
    if (!bytes) return
    if (!bytes.subarray(0, row.raw.length).equals(row.raw) || (row.raw_truncated === 1) !== (row.raw.length < bytes.length)) {
      this.problems.add('bad_line', name, `quarantined bytes differ from ${readFromOriginal(this.file) ? 'the line in the original' : 'the evidence store'}`, group)
      return
    }
    if (CUT_SHORT.test(row.reason)) return
    const parsed = this.parse(bytes)
    if (parsed.kind === 'record') this.problems.add('bad_line', name, `quarantined (${shown(row.reason)}), but the line reads as a record (a record turned into a bad line?)`, group)
    else if (parsed.kind === 'blank') this.problems.add('bad_line', name, 'quarantined, but the line is blank', group)
    else if (parsed.reason !== row.reason) this.problems.add('bad_line', name, `reason is ${shown(row.reason)} in the case, but the line gives ${shown(parsed.reason)}`, group)
  }

  private checkCounts(): void {
    const {file} = this
    const c = this.counts
    const lines = c.records + c.duplicates + c.bad_lines + c.blank_lines
    const pairs: Array<[string, number, number]> = [
      ['records', file.records, c.records], ['duplicates', file.duplicates, c.duplicates], ['bad_lines', file.bad_lines, c.bad_lines],
      ['blank_lines', file.blank_lines, c.blank_lines], ['lines', file.lines, lines],
    ]
    for (const [what, stored, found] of pairs) {
      if (stored !== found) this.problems.add('counts', file.path, `the file says ${stored} ${what.replace('_', ' ')}, its evidence holds ${found}`, file.path)
    }
    // What scope and status sum instead of reading the records (NULL: not counted at ingest).
    // Where the records themselves are not the ones ingest counted (one removed or added), the
    // line above says so; these counts would only repeat it, field by field.
    for (const field of file.records === c.records ? MISSING_FIELDS : []) {
      const stored = file[field]
      if (stored !== null && stored !== this.missing[field]) {
        this.problems.add('counts', file.path, `the file says ${stored} of its records have ${field.replace(/_/g, ' ')}, its records hold ${this.missing[field]}`, file.path)
      }
    }
    // A stored time that is no instant (edited) gives none here; its record is named above.
    const iso = (ms: number): string | null => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null)
    const first = c.records > 0 ? iso(c.first_ms) : null
    const last = c.records > 0 ? iso(c.last_ms) : null
    if (file.first_ts !== first || file.last_ts !== last) {
      this.problems.add('counts', file.path, `the file's time span ${file.first_ts ?? '-'} .. ${file.last_ts ?? '-'} is not its records' ${first ?? '-'} .. ${last ?? '-'}`, file.path)
    }
  }
}

/**
 * A native line decoded exactly as ingest decoded it (the file's parse spec: field mapping,
 * --assume-tz): one record, or the reason it is a bad line.
 */
function nativeLineParser(file: FileRow): (line: Buffer) => LineResult {
  const decoder = lineDecoder(decodeParseSpec(file.parse_spec))
  const at = {file: String(file.id), line: 0}
  return (line) => {
    const d = decodeLine(line, decoder, null, at)
    if (d.kind !== 'items') return d
    const first = d.records[0]
    if (d.records.length === 1 && first) return {kind: 'record', row: first.row}
    return {kind: 'bad', reason: d.problems[0]?.reason ?? `${d.records.length} records in one native line`}
  }
}

function describe(item: Item): string {
  if (item.kind === 'record') return `record ${ident(item.row.request_id)}`
  if (item.kind === 'duplicate') return `duplicate line ${item.line_no}`
  return `quarantined line ${item.line_no}`
}

function sameTokens(a: readonly MarkerToken[], b: readonly MarkerToken[]): boolean {
  if (a.length !== b.length) return false
  const key = (t: MarkerToken): string => `${t.position}:${t.token}`
  const left = a.map(key).sort()
  const right = b.map(key).sort()
  return left.every((k, i) => k === right[i])
}

/** The first difference between a record's stored sightings and their re-derivation, or null. */
function compareSightings(stored: readonly SightingStored[], expected: ReturnType<typeof responseSightings>): string | null {
  const byMarker = new Map(stored.map((s) => [s.marker, s]))
  for (const e of expected) {
    const s = byMarker.get(e.marker)
    if (!s) return `its ${e.class} sighting of ${shown(e.marker)} is missing from the case`
    byMarker.delete(e.marker)
    const fields: Array<[string, unknown, unknown]> = [
      ['class', s.class, e.class], ['source_tenant', s.source_tenant, e.sourceTenant], ['source_session', s.source_session, e.sourceSession],
      ['partial', s.partial === 1, e.partial], ['marker_key', s.marker_key, e.markerKey], ['position', s.position, e.position], ['token', s.token, e.token],
    ]
    for (const [field, was, should] of fields) {
      if (was !== should) return `its sighting of ${shown(e.marker)} has ${field} ${shown(was)} in the case, but re-derived ${shown(should)}`
    }
  }
  const extra = byMarker.values().next().value
  return extra ? `the case holds a ${extra.class} sighting of ${shown(extra.marker)} that its response does not give` : null
}

// ------------------------------------------------------------------ iteration helpers

/** Records, duplicates and quarantined lines of one file, merged in stream order. */
function* mergeByOffset(db: CaseDb, fileId: number): Generator<Item> {
  const sources: Array<Peekable<Item>> = [
    new Peekable(map(iterateRecordsOfFile(db, fileId), (values): Item => {
      const row = toRecord(values)
      return {kind: 'record', byte_offset: row.byte_offset, byte_len: row.byte_len, line_no: row.line_no, row}
    })),
    new Peekable(map(iterateDuplicatesOfFile(db, fileId), (row): Item => ({kind: 'duplicate', byte_offset: row.byte_offset, byte_len: row.byte_len, line_no: row.line_no, row}))),
    new Peekable(map(iterateBadLinesOfFile(db, fileId), (row): Item => ({kind: 'bad_line', byte_offset: row.byte_offset, byte_len: row.byte_len, line_no: row.line_no, row}))),
  ]
  try {
    for (;;) {
      let best: Peekable<Item> | null = null
      for (const s of sources) {
        const head = s.peek()
        if (head && (!best || head.byte_offset < best.peek()!.byte_offset)) best = s
      }
      if (!best) return
      yield best.next()!
    }
  } finally {
    for (const s of sources) s.close()
  }
}

function toRecord(values: unknown[]): RecordRowStored {
  const row: Record<string, unknown> = {}
  for (let i = 0; i < RECORD_COLUMNS.length; i++) row[RECORD_COLUMNS[i]!] = values[i]
  return row as unknown as RecordRowStored
}

function* map<T, U>(it: Iterable<T>, f: (t: T) => U): Generator<U> {
  for (const t of it) yield f(t)
}

class Peekable<T> {
  private head: T | undefined
  private done = false
  constructor(private readonly it: Iterator<T>) {}

  peek(): T | undefined {
    if (this.head === undefined && !this.done) {
      const n = this.it.next()
      if (n.done) this.done = true
      else this.head = n.value
    }
    return this.head
  }

  next(): T | undefined {
    const v = this.peek()
    this.head = undefined
    return v
  }

  /** Ends the iteration (a statement behind it is reset). */
  close(): void {
    this.done = true
    this.head = undefined
    this.it.return?.()
  }
}

/**
 * Rows ordered by their record's (line, id), the order records are walked in, taken one record
 * at a time; rows of records never asked for are counted as strays.
 */
class Grouped<T> {
  private readonly rows: Peekable<T>
  private strays = 0
  constructor(
    it: Iterator<T>,
    private readonly keyOf: (row: T) => [number, number],
  ) {
    this.rows = new Peekable(it)
  }

  take(key: readonly [number, number]): T[] {
    const out: T[] = []
    for (let row = this.rows.peek(); row !== undefined; row = this.rows.peek()) {
      const [line, id] = this.keyOf(row)
      if (line > key[0] || (line === key[0] && id > key[1])) break
      this.rows.next()
      if (line === key[0] && id === key[1]) out.push(row)
      else this.strays++
    }
    return out
  }

  close(): void {
    this.rows.close()
  }

  /** Rows left over, counted with the strays met on the way. */
  rest(): number {
    while (this.rows.next() !== undefined) this.strays++
    return this.strays
  }
}

/**
 * Cuts a stream into lines as ingest does: at each LF; the last line needs no LF; an LF at
 * the very end starts no new line. The bytes of a line are kept only when `wants` asks for
 * them at its start, so a huge line that holds nothing is never assembled.
 */
class LineSplitter {
  private lineNo = 1
  private start = 0
  private offset = 0
  private begun = false
  private keep = false
  private parts: Buffer[] = []
  private length = 0
  private blank = true
  private bom = false

  constructor(
    private readonly wants: (lineNo: number, offset: number) => boolean,
    private readonly onLine: (line: Line) => void,
  ) {}

  push(chunk: Buffer): void {
    let pos = 0
    if (this.offset === 0 && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) this.bom = true
    while (pos < chunk.length) {
      if (!this.begun) {
        this.begun = true
        this.keep = this.wants(this.lineNo, this.start)
      }
      const nl = chunk.indexOf(10, pos)
      const end = nl === -1 ? chunk.length : nl
      const segment = chunk.subarray(pos, end)
      if (this.keep) this.parts.push(segment)
      else if (this.blank) {
        // The byte-order mark of the first line is not part of its content.
        const skip = this.lineNo === 1 && this.bom ? Math.max(0, 3 - (this.offset + pos)) : 0
        this.blank = isBlank(segment, skip)
      }
      this.length += segment.length
      if (nl === -1) break
      pos = nl + 1
      this.emit()
      this.start = this.offset + pos
    }
    this.offset += chunk.length
  }

  end(): void {
    if (this.begun) this.emit()
  }

  private emit(): void {
    const bytes = this.keep ? (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)) : null
    this.onLine({lineNo: this.lineNo, offset: this.start, length: this.length, bytes, blank: this.blank, bom: this.lineNo === 1 && this.bom})
    this.lineNo++
    this.begun = false
    this.keep = false
    this.parts = []
    this.length = 0
    this.blank = true
  }
}

/** White space only, as ingest's parser counts blank lines (space, tab, CR, LF, VT, FF). */
function isBlank(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) {
    const c = buf[i]
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 11 && c !== 12) return false
  }
  return true
}
