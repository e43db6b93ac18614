import {isUtf8} from 'node:buffer'
import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats} from 'node:fs'
import {basename, resolve} from 'node:path'
import {createRequire} from 'node:module'
import type {z as Zod} from 'zod'
import {InputError} from '../errors.js'
import {BLOCK_SIZE, EvidenceWriter} from '../evidence/evidence-store.js'
import {DuplicateKeyError, duplicateKeyPath} from '../extract/duplicate-keys.js'
import {CONVENTIONAL_MARKER, isDefaultIgnorable, MARKER_PREFIX, MIN_TOKEN_HEX, markerKey, memoryRegistry, sortedRegistry, type MarkerRegistry, type RegisteredMarker} from '../extract/markers.js'
import {stageRegistry} from '../store/canaries.js'
import {corpusFacts} from '../store/scale.js'
import {deleteFile, fileBySha256, insertRegistryFile, setRegistryEntries} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {begin, commit, rollback} from '../store/session.js'
import {ingestClaimant} from '../store/settings.js'
import {claimIngest, releaseIngest} from './ingest-lock.js'
import {isZoneless} from '../extract/timestamps-zone.js'
import {parseTimestamp} from '../util/timestamps.js'
import {firstInvisible} from '../util/invisible.js'
import {notUnicodeField} from '../util/unicode-text.js'
import {parseCsv} from './csv-parse.js'
import {nonFileKind} from './ingest-file.js'
import {nativeQuickStatus, nativeRegistryIndex} from './native-quick.js'
import {quoted as quote} from '../util/sanitize.js'
import {descriptorFile} from '../util/descriptor-path.js'

// A registry can hold a million markers (one per session, about 100 bytes each: 90 MB at
// 926,440 markers). It is read a chunk at a time, twice: once for its hash (a registry the
// case already holds is recognised before anything is parsed), then parsed, hashed again and
// kept as evidence from the same bytes as they pass. Its entries go to a staging table and
// are checked with SQL, so no per-entry object outlives its line, and every conflict in the
// file or against the case is found before anything is stored.

/**
 * The shortest marker outside the CANARY-<hex> convention. Such markers are matched as plain
 * text in every response: "a" or "the" matched tens of thousands of ordinary answers (37,983
 * echo sightings from one-character markers). Eight characters is the length of the shortest
 * marker-shaped token's hex part; conventional markers are longer anyway.
 */
export const MIN_UNCONVENTIONAL_MARKER = 8

/**
 * The schema of an entry, whose messages name what is wrong with one. Built on first use: only
 * an entry the plain check (plainEntry) does not pass needs it, and loading zod cost triage's
 * verdict about 45 ms of start-up (measured), for registries whose every row is plain.
 */
function entrySchema() {
  const {z} = createRequire(import.meta.url)('zod') as {z: typeof Zod}
  // Ids are kept exactly as written: a registry that trimmed " tenant-a" or turned a CRLF inside
  // a quoted field into LF would no longer match the logs that carry the same id (own sightings
  // read as echo, notices addressed to tenants that exist only in the registry). An id that is
  // empty or only white space identifies nobody and is refused.
  const id = (field: string) => z.string().refine((v) => v.trim() !== '', `${field} is empty or only white space`)
  return z.object({
    marker: id('marker'),
    tenant_id: id('tenant_id'),
    session_id: id('session_id'),
    issued_at: z.union([z.string(), z.number()]).nullish(),
  })
}

let builtSchema: ReturnType<typeof entrySchema> | undefined
const CanaryEntry = {safeParse: (value: unknown) => (builtSchema ??= entrySchema()).safeParse(value)}

export interface IngestCanariesResult {
  file: string
  sha256: string
  status: 'ingested' | 'already_present'
  entries: number
  added: number
  already_registered: number
}

const REQUIRED_COLUMNS = ['marker', 'tenant_id', 'session_id'] as const
const MAX_REGISTRY_LINE = 1 << 20

/**
 * Stores a registry file under the case's ingest claim (ingest-lock.ts), as `ingest logs`, `scan`
 * and `drop` take it: a registry that grew while a scan ran was not the one the scan classified
 * against, yet its gate passed and its summary counted the new markers. Triage's registry step,
 * taken while its own ingest holds the claim, keeps that claim.
 */
export async function ingestCanaries(db: CaseDb, options: {path: string; now: () => Date; expectSha256?: string}): Promise<IngestCanariesResult> {
  const held = ingestClaimant(db) === process.pid
  claimIngest(db)
  try {
    return await storeRegistryFile(db, options)
  } finally {
    if (!held) releaseIngest(db)
  }
}

async function storeRegistryFile(db: CaseDb, options: {path: string; now: () => Date; expectSha256?: string}): Promise<IngestCanariesResult> {
  // A file descriptor (`/dev/stdin < canaries.csv`) is recorded as the file it is open on, as a log's is: recorded as given,
  // verify re-hashed whatever the next process had there and reported the registry's original altered.
  const path = descriptorFile(options.path) ?? options.path
  const first = hashFile(path)
  // The caller has already answered for a registry of these bytes (triage's verdict): one that is
  // no longer those bytes is refused before anything of it is stored.
  if (options.expectSha256 !== undefined && first.sha256 !== options.expectSha256) {
    throw new InputError(`${path}: changed while it was being read (its SHA-256 differs between the read for the verdict and the read into the case); nothing of it was stored; run triage again once nothing writes to it`, 'E_CHANGED')
  }
  const existing = fileBySha256(db, first.sha256)
  if (existing?.state === 'complete') {
    return {file: path, sha256: first.sha256, status: 'already_present', entries: existing.records, added: 0, already_registered: existing.records}
  }
  // The sightings of a case of Spark findings were classified by the job against the registry it
  // ran with, and `scan` cannot classify them again here (detection runs in the job): a registry
  // added now would leave every draft saying to run a scan that is refused.
  if (corpusFacts(db)) {
    throw new InputError(
      `${path}: this case holds Spark findings (ingest findings), classified by the job against the registry it ran with: run the job again with this registry (crosstalk registry-export from a case holding it) and bring its findings into a new case`,
      'E_REFERENCE_CASE',
    )
  }

  const staging = stageRegistry(db)
  let entries = 0
  begin(db)
  try {
    if (existing) deleteFile(db, existing.id)
    // The row goes in first (the evidence blocks name it); its entry count when the last line is read.
    const fileId = insertRegistryFile(db, {
      path, name: basename(path), absPath: resolve(path), sha256: first.sha256, size: first.size,
      format: /\.csv$/i.test(path) ? 'csv' : 'jsonl', at: options.now().toISOString(), entries: 0,
    })
    // The copy kept as evidence is compressed a block at a time on libuv's pool while the
    // registry is parsed (a few blocks held at most), its last block while the entries are
    // checked and copied into the registry (it was compressed on the main thread: 39 ms of a
    // 37,000-marker registry's 340).
    const evidence = new EvidenceWriter(db, fileId, 'deflate', true)
    const hash = createHash('sha256')
    let size = 0
    const reads = fileReads(path, (bytes) => {
      hash.update(bytes)
      evidence.push(bytes)
      size += bytes.length
    })
    let nextTurn = BLOCK_SIZE
    for (const entry of readRegistry(path, reads)) {
      staging.add({...entry, marker_key: markerKey(entry.marker)})
      entries++
      // zlib hands a block to the pool only once the event loop turns: a turn per block read
      // starts its compression, and the parse waits while more than a few are compressing.
      if (size >= nextTurn) {
        nextTurn = size + BLOCK_SIZE
        await eventLoopTurn()
        await evidence.backpressure()
        evidence.writeReady()
      }
    }
    const stored = evidence.finish()
    // Awaited below; a refusal thrown before then must not leave its failure unhandled.
    stored.catch(() => {})
    await eventLoopTurn()
    // The bytes parsed and kept are the bytes hashed: a file rewritten between the two reads
    // (or while the second ran) is refused rather than stored under a hash its copy does not have.
    if (size !== first.size || hash.digest('hex') !== first.sha256) {
      throw new InputError(`${path}: changed while it was being read (size or SHA-256 differs between two reads); ingest it again once nothing writes to it`, 'E_CHANGED')
    }
    const clashes = staging.conflicts(4)
    const conflicts = describeConflicts(clashes)
    if (conflicts.length > 0) {
      const shown = conflicts.slice(0, 3).join('; ')
      // A conflict with the case's registry may be the case's mistake: say how to withdraw it.
      const withdraw = clashes.inCase.length > 0 ? ' (if the registry already in the case is the wrong one, withdraw it first: crosstalk drop REGISTRY --reason TEXT, then ingest this one and scan)' : ''
      throw new InputError(`${path}: the same marker registered to two sessions: ${shown}${conflicts.length > 3 ? '; and more' : ''}${withdraw}`, 'E_CANARY_CONFLICT')
    }
    setRegistryEntries(db, fileId, entries)
    // A marker the file gives twice (to the same session) is one marker, and not one the case already held.
    const distinct = staging.distinctMarkers()
    const added = staging.commit(fileId)
    await stored
    evidence.writeReady()
    commit(db)
    return {file: path, sha256: first.sha256, status: 'ingested', entries, added, already_registered: distinct - added}
  } catch (error) {
    rollback(db)
    throw error
  } finally {
    staging.drop()
  }
}

/** A registry read and checked in memory, not yet stored (see previewRegistry). */
export interface RegistryPreview {
  sha256: string
  /** The registry as the case will hold it once this file is stored into a case with no registry. */
  registry: MarkerRegistry
  /** Its markers: what countCanaries will say then. */
  markers: number
  /** Its markers outside the CANARY-<hex> convention, as unconventionalMarkers will list them. */
  unconventional: string[]
}

/**
 * The registry file read, checked and resolved in memory (first line of a marker wins, as
 * ingestCanaries stores it), for triage's quick verdict before the registry is stored: with
 * every error ingestCanaries gives for the file's own lines, thrown here. null where it is not
 * worth holding (over `maxBytes`; over `mapMaxBytes` where the native reader does not answer for
 * it) or where ingestCanaries must word the refusal (a marker given to two sessions; a file that
 * cannot be opened). The caller stores the file with ingestCanaries afterwards, and must refuse
 * the run if the hash stored is not this one.
 */
export function previewRegistry(path: string, maxBytes: number, mapMaxBytes = maxBytes): RegistryPreview | null {
  let size: number
  try {
    size = statSync(path).size
  } catch {
    return null
  }
  // Without the addon no file over mapMaxBytes can be held: not read for nothing.
  if (size > maxBytes || (size > mapMaxBytes && !nativeQuickStatus().native)) return null
  // Read whole (it is at most maxBytes), hashed and read from the same bytes.
  const bytes = Buffer.concat([...fileReads(path)])
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  // The native reader answers for a plain CSV whose every row is accepted (36,997 rows: 0.2-0.3
  // s of cold JavaScript on the verdict's path), with the distinct keys in order, each key's
  // first row, whether any key has two owners and the markers outside the convention. A key's
  // marker is made from its row when the verdict first looks it up: a map of every row, built
  // before the pass, held the main thread 40-60 ms while the parse workers waited for their
  // first units (measured). Any other file is read here, which words every refusal.
  const index = nativeRegistryIndex(bytes)
  if (index !== null) {
    // ingestCanaries refuses the file (and words why).
    if (index.conflict) return null
    const {keys, order} = index
    const registry = sortedRegistry(keys, (i) => {
      const [marker, tenant, session] = index.row(order[i]!)
      return {key: keys[i]!, marker, tenant, session}
    }, index.wide, index.unconventionalAt)
    return {sha256, registry, markers: keys.length, unconventional: index.unconventional}
  }
  // A map of every marker takes about twice the native index's memory (185,807 markers: 144 MB
  // of RSS against 74, measured).
  if (size > mapMaxBytes) return null
  const byKey = new Map<string, RegisteredMarker>()
  const add = (marker: string, tenant: string, session: string): boolean => {
    const key = markerKey(marker)
    const prior = byKey.get(key)
    if (prior === undefined) byKey.set(key, {key, marker, tenant, session})
    else if (prior.tenant !== tenant || prior.session !== session) return false
    return true
  }
  for (const entry of readRegistry(path, chunksOf(bytes))) if (!add(entry.marker, entry.tenant_id, entry.session_id)) return null
  const registry = memoryRegistry(byKey)
  // Copies: a marker cut from the file's text is a slice that keeps the whole decoded chunk (1
  // MiB) alive, and these stay with the parse pool through ingest (3.6 MB of chunks at 200k).
  const unconventional = registry.unconventional.map((m) => Buffer.from(m.marker, 'utf8').toString('utf8'))
  return {sha256, registry, markers: byKey.size, unconventional}
}

/** The registry's entries as readRegistry reads them from these bytes (for tests: the reference of the native reader). */
export function registryEntries(path: string, bytes: Buffer): Entry[] {
  return [...readRegistry(path, chunksOf(bytes))]
}

/** Bytes in pieces of a read's size, as fileReads hands a file to the reader. */
function* chunksOf(bytes: Buffer): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += READ_BYTES) yield bytes.subarray(at, at + READ_BYTES)
}

const eventLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Bytes of the registry read at a time. */
const READ_BYTES = 1 << 20

const unreadable = (path: string, error: unknown): InputError =>
  new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')

/**
 * A registry that is not a regular file. It is read twice (its hash first, then its entries, from
 * bytes that must hash the same), and kept as evidence: a pipe or FIFO yields its bytes once,
 * a device may never end.
 */
function notRegular(path: string, stat: Stats): InputError {
  const how = stat.isFIFO()
    ? 'a pipe cannot be read twice, and the registry is read twice (its SHA-256, then its entries) and kept as evidence: save it to a file (for example `cat … > registry.csv`) and give that file'
    : 'crosstalk keeps the exact bytes of the registry as evidence, so copy it into a file first'
  return new InputError(`${path}: ${stat.isFIFO() ? 'a pipe or FIFO' : nonFileKind(stat)}, not a regular file; ${how}`, 'E_NOT_A_FILE')
}

/** The file read a chunk at a time, each chunk handed to `seen` before it is yielded; refused unless it is a regular file. */
function* fileReads(path: string, seen: (bytes: Buffer) => void = () => {}): Generator<Buffer> {
  let fd: number
  try {
    // Without blocking: a FIFO with no writer would block a plain open (and the signal handlers with it) forever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw unreadable(path, error)
  }
  try {
    let stat: Stats
    try {
      stat = fstatSync(fd)
    } catch (error) {
      throw unreadable(path, error)
    }
    if (!stat.isFile()) throw notRegular(path, stat)
    for (;;) {
      // A fresh buffer per read: the caller may keep the tail of one (a line cut by the read).
      const buf = Buffer.allocUnsafe(READ_BYTES)
      let n: number
      try {
        n = readSync(fd, buf, 0, READ_BYTES, null)
      } catch (error) {
        throw unreadable(path, error)
      }
      if (n === 0) return
      const bytes = buf.subarray(0, n)
      seen(bytes)
      yield bytes
    }
  } finally {
    closeSync(fd)
  }
}

function hashFile(path: string): {sha256: string; size: number} {
  const hash = createHash('sha256')
  let size = 0
  for (const bytes of fileReads(path)) {
    hash.update(bytes)
    size += bytes.length
  }
  return {sha256: hash.digest('hex'), size}
}

/** A marker's owner in a refusal: both ids, quoted (either may be what differs). */
const owner = (tenant: string, session: string): string => `tenant ${quote(tenant)} session ${quote(session)}`

/** Markers the file gives to two sessions, or gives to a session other than the case's. */
function describeConflicts(c: ReturnType<ReturnType<typeof stageRegistry>['conflicts']>): string[] {
  return [
    ...c.inFile.map((x) => `${x.marker} registered to ${owner(x.tenant_a, x.session_a)} (line ${x.line_a}) and ${owner(x.tenant_b, x.session_b)} (line ${x.line_b})`),
    ...c.inCase.map((x) => `${x.marker} (line ${x.line}) is already registered to session ${x.stored_session} of tenant ${x.stored_tenant}, not ${x.session_id}`),
  ]
}

export interface Entry {
  line: number
  marker: string
  tenant_id: string
  session_id: string
  issued_at: string | null
}

/** Validated entries of a CSV (header marker,tenant_id,session_id,issued_at) or JSONL registry. */
function* readRegistry(path: string, reads: Iterable<Buffer>): Generator<Entry> {
  let columns: string[] | undefined
  let format: 'csv' | 'jsonl' | undefined
  let pending = '' // a CSV record whose quoted field spans lines
  let pendingLine = 0
  for (const {lineNo, text: line} of registryLines(path, reads)) {
    let text = line
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    // The CR of a CRLF line end is kept until the record is complete: inside a quoted field it is
    // part of the value.
    const cr = text.endsWith('\r')
    const bare = cr ? text.slice(0, -1) : text
    if (!format) {
      if (!bare.trim()) continue
      format = bare.trimStart().startsWith('{') ? 'jsonl' : 'csv'
    }
    if (format === 'jsonl') {
      if (!bare.trim()) continue
      let value: unknown
      try {
        value = JSON.parse(bare)
      } catch (error) {
        throw new InputError(`${path}:${lineNo}: not valid JSON (${(error as Error).message})`)
      }
      // JSON.parse keeps the last copy of a repeated key; jq, a SIEM or a person reading the line
      // may take the first: an owner that depends on the copy read is refused, as in a log line.
      const repeated = duplicateKeyPath(bare)
      if (repeated !== null) {
        throw new InputError(`${path}:${lineNo}: duplicate key ${quote(repeated)}: the line gives it twice, and which value is the entry's cannot be told`)
      }
      yield validate(path, lineNo, value)
      continue
    }
    const joined = pending ? `${pending}\n${text}` : text
    const at = pending ? pendingLine : lineNo
    // A quote that neither opens nor closes a quoted field: parseCsv would read it as a letter, but
    // counted as an opening quote it joins the following lines into one record (whose rows
    // between were dropped); read as a letter, it stays in an id ("sess-a\"") that no log carries.
    if (joined.includes('"')) {
      const stray = strayQuote(joined)
      if (stray !== -1) {
        const line = at + countLf(joined, stray)
        const before = joined.slice(Math.max(joined.lastIndexOf(',', stray), joined.lastIndexOf('\n', stray)) + 1, stray)
        // `, "t1"`: the quote after a space does not open a quoted field.
        const why = joined[stray] === '"' && before.trim() === '' && before !== '' ? ' (white space before it: a space after a comma?)' : ''
        throw new InputError(`${path}:${line}: a double quote inside an unquoted field (or after a closing quote)${why}: a field that holds a quote must be quoted whole from its first character, its quotes doubled ("a""b")`)
      }
    }
    if (oddQuotes(joined)) {
      // Inside a quoted field: the line end (CR included) is part of the value.
      pending = joined
      pendingLine = at
      continue
    }
    pending = ''
    const record = joined.endsWith('\r') ? joined.slice(0, -1) : joined
    if (!record.trim()) continue
    let cells: string[]
    let quoted: boolean[] = []
    if (isPlainCsv(record)) cells = record.split(',')
    else {
      try {
        const rows = parseCsv(record)
        // One line end outside a quoted field is a CR of its own (the LFs and CRLFs were cut
        // already): every row after the first would be dropped without a word.
        if (rows.length > 1) {
          throw new InputError(
            `${path}:${at}: a CR (carriage return) outside a quoted field ends a row inside this line: lines must end with LF or CRLF (a "CSV (Macintosh)" export ends them with CR alone); save the registry with LF or CRLF line ends`,
          )
        }
        cells = rows[0]?.cells ?? []
        quoted = rows[0]?.quoted ?? []
      } catch (error) {
        if (error instanceof InputError) throw error
        throw new InputError(`${path}:${at}: ${(error as Error).message.replace(/^line \d+: /, '')}`)
      }
    }
    if (!columns) {
      columns = cells.map((c) => c.trim().toLowerCase())
      for (const need of REQUIRED_COLUMNS) {
        if (!columns.includes(need)) throw new InputError(`${path}:${at}: header must be marker,tenant_id,session_id,issued_at (missing ${need})`)
      }
      // Of two columns with one name a row would keep the last; another reader (a person, a
      // spreadsheet's lookup) takes the first: an owner that depends on which is read is refused.
      const twice = columns.find((c, i) => c !== '' && columns!.indexOf(c) !== i)
      if (twice !== undefined) throw new InputError(`${path}:${at}: the header names column ${quote(twice)} twice, and which of the two is the entry's cannot be told`)
      continue
    }
    // A cell past the header's columns (an unquoted comma inside a value) would be dropped, and
    // the values after the comma read as the next columns' (an id shifted into another).
    if (cells.length > columns.length) {
      throw new InputError(`${path}:${at}: ${cells.length} cells, the header has ${columns.length} (an unquoted comma inside a value? quote the value)`)
    }
    const row = Object.create(null) as Record<string, string>
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = cells[i] ?? ''
    // A CSV written by hand often has a space after each comma. Kept, " t1" would never match the
    // logs' "t1" (a session's own marker read as another tenant's leak, a real leak read as an
    // orphan); trimmed, an id that does carry the space would stop matching. Unquoted, it is
    // refused, naming it; quoted (" t1 "), the space was written on purpose and is the id's.
    for (const need of REQUIRED_COLUMNS) {
      const at_ = columns.indexOf(need)
      const value = row[need]!
      if (!quoted[at_] && value.trim() !== '' && value !== value.trim()) {
        throw new InputError(
          `${path}:${at}: ${need} ${quote(value.length > 80 ? `${value.slice(0, 80)}…` : value)} begins or ends with white space (a space after a comma?); ids must match the logs exactly: remove it, or quote the value if the logs carry it`,
        )
      }
    }
    yield validate(path, at, row)
  }
  if (pending) throw new InputError(`${path}:${pendingLine}: unterminated quoted field`)
}

/**
 * The file's lines (LF ends; a CR before it stays for the caller), numbered from 1, each
 * checked for length and UTF-8 in order. The reads are cut at their last line end (an LF
 * byte never occurs inside a multi-byte character, so a piece's lines are the file's) and
 * the rest carried into the next, so that no line is split and no decoded copy of the whole
 * file is ever held; a piece that is not UTF-8 throughout, or that holds a line past the
 * limit, is read line by line as bytes, so the error names the first bad line.
 */
function* registryLines(path: string, reads: Iterable<Buffer>): Generator<{lineNo: number; text: string}> {
  const tooLong = (lineNo: number) => new InputError(`${path}:${lineNo}: line longer than ${MAX_REGISTRY_LINE} bytes`)
  let lineNo = 1
  function* piece(bytes: Buffer): Generator<{lineNo: number; text: string}> {
    if (bytes.length <= CHUNK_BYTES + MAX_REGISTRY_LINE && isUtf8(bytes)) {
      const text = bytes.toString('utf8')
      for (let at = 0; at < text.length; lineNo++) {
        let nl = text.indexOf('\n', at)
        if (nl === -1) nl = text.length
        const line = text.slice(at, nl)
        // Three bytes at most per UTF-16 unit: only a long line needs its bytes counted.
        if (line.length * 3 > MAX_REGISTRY_LINE && Buffer.byteLength(line) > MAX_REGISTRY_LINE) throw tooLong(lineNo)
        yield {lineNo, text: line}
        at = nl + 1
      }
      return
    }
    for (let at = 0; at < bytes.length; lineNo++) {
      let nl = bytes.indexOf(10, at)
      if (nl === -1) nl = bytes.length
      if (nl - at > MAX_REGISTRY_LINE) throw tooLong(lineNo)
      const line = bytes.subarray(at, nl)
      if (!isUtf8(line)) throw new InputError(`${path}:${lineNo}: not UTF-8 text`)
      yield {lineNo, text: line.toString('utf8')}
      at = nl + 1
    }
  }
  let carry: Buffer | null = null
  for (const read of reads) {
    const bytes: Buffer = carry === null ? read : Buffer.concat([carry, read])
    const lf = bytes.lastIndexOf(10)
    if (lf === -1) {
      // No line end yet: the line so far is carried, unless it is already past the limit.
      if (bytes.length > MAX_REGISTRY_LINE) throw tooLong(lineNo)
      carry = bytes
      continue
    }
    carry = lf + 1 < bytes.length ? bytes.subarray(lf + 1) : null
    yield* piece(bytes.subarray(0, lf + 1))
  }
  if (carry !== null) yield* piece(carry)
}

/** Bytes of the registry decoded at a time (up to the next line end). */
const CHUNK_BYTES = 1 << 20

/** The number of LFs in text before `end`. */
function countLf(text: string, end: number): number {
  let n = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++
  return n
}

/**
 * Where a quote stands that does not open a field (RFC 4180: only a field's first character
 * opens a quoted field) or where anything but a comma or a line end follows a closing quote; -1
 * where there is none. The text may end inside a quoted field (a record that spans lines).
 */
export function strayQuote(text: string): number {
  let fieldStart = true
  let quoted = false
  let closed = false
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (quoted) {
      if (c === 0x22) {
        if (text.charCodeAt(i + 1) === 0x22) i++
        else (quoted = false), (closed = true)
      }
      continue
    }
    if (c === 0x2c || c === 0x0a || c === 0x0d) {
      fieldStart = true
      closed = false
      continue
    }
    if (closed) return i
    if (c === 0x22 && fieldStart) quoted = true
    else if (c === 0x22) return i
    fieldStart = false
  }
  return -1
}

function oddQuotes(text: string): boolean {
  let odd = false
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i + 1)) odd = !odd
  return odd
}

/**
 * A record that RFC 4180 parsing would only split at its commas: no quote, no CR or LF (either
 * ends a CSV row) and no BOM for parseCsv to drop.
 */
export function isPlainCsv(record: string): boolean {
  return !record.includes('"') && !record.includes('\r') && !record.includes('\n') && record.charCodeAt(0) !== 0xfeff
}

type CanaryFields = Zod.infer<ReturnType<typeof entrySchema>>

/**
 * The entry when it plainly satisfies CanaryEntry (three ids that are non-blank strings, an
 * issued_at that is absent, null, a string or a finite number), without zod's cost per row;
 * anything else goes through CanaryEntry, whose message names what is wrong.
 * test/ingest/registry-fast-path.test.ts holds the two to the same verdicts.
 */
export function plainEntry(value: unknown): CanaryFields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const {marker, tenant_id, session_id, issued_at} = value as Record<string, unknown>
  if (!isId(marker) || !isId(tenant_id) || !isId(session_id)) return undefined
  if (!(issued_at === undefined || issued_at === null || typeof issued_at === 'string' || (typeof issued_at === 'number' && Number.isFinite(issued_at)))) return undefined
  return {marker, tenant_id, session_id, issued_at}
}

const isId = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''

/** CanaryEntry's own verdict (the reference plainEntry is held to). */
export function parseCanaryEntry(value: unknown): CanaryFields | undefined {
  const parsed = CanaryEntry.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

function validate(path: string, line: number, value: unknown): Entry {
  let e = plainEntry(value)
  if (!e) {
    const parsed = CanaryEntry.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new InputError(`${path}:${line}: ${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}`)
    }
    e = parsed.data
  }
  // A registry's ids and markers are matched against the logs' and stored as UTF-8: one holding a
  // lone surrogate (a JSON escape such as "\ud800") would be stored as another entry's id
  // (util/unicode-text.ts), and a leak between the two read as a session's own marker.
  const notText = notUnicodeField({marker: e.marker, tenant_id: e.tenant_id, session_id: e.session_id})
  if (notText !== null) throw new InputError(`${path}:${line}: ${notText}`)
  // An id holding a character that prints as nothing (a tag character, a variation selector, a
  // zero-width mark, a Hangul filler) prints as another id: `tn-acme` + U+E0020 in the registry
  // against the logs' `tn-acme` made the session's own marker read as a leak from `tn-acme` to
  // `tn-acme`. Refused, as white space at an edge is; the logs' ids are kept as written (they are
  // the evidence) and shown with such characters escaped.
  for (const field of ['tenant_id', 'session_id'] as const) {
    const invisible = firstInvisible(e[field])
    if (invisible !== null) {
      throw new InputError(
        `${path}:${line}: ${field} ${quote(e[field].length > 80 ? `${e[field].slice(0, 80)}…` : e[field])} holds ${invisible}, a character that prints as nothing: the id prints as another id and would not match a log that lacks it; remove it (ids must match the logs exactly)`,
      )
    }
  }
  // The marker convention is `CANARY-` in upper case (hex in either case): responses are searched
  // for that spelling, so `canary-<hex>` would be keyed as a conventional marker that no response
  // can show as written, and never found.
  if (CONVENTIONAL_MARKER.test(e.marker) && !e.marker.startsWith('CANARY-')) {
    throw new InputError(
      `${path}:${line}: marker ${quote(e.marker.slice(0, 40))} starts ${quote(e.marker.slice(0, 7))}: the marker convention is CANARY- in upper case followed by hex digits, and responses are searched for that spelling only, so this marker could never be found as written; register the marker exactly as it was sent (CANARY-…)`,
    )
  }
  // A marker holding an invisible character (a zero width space a copy from a document left, a
  // bidi mark) is found in no response as registered: responses are searched with every such
  // character folded out of a marker (markers.ts), so the entry would never match, and the leak
  // of the marker the client saw would read as an orphan. Refused, naming the character.
  const invisible = [...e.marker].find((ch) => isDefaultIgnorable(ch.codePointAt(0)!))
  if (invisible !== undefined) {
    const u = `U+${invisible.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
    throw new InputError(
      `${path}:${line}: marker ${quote(e.marker.slice(0, 48))} holds ${u}, an invisible character: no response is searched for it (invisible characters are folded out of markers found in answers), so this entry could never match; register the marker as it was sent, without ${u}`,
    )
  }
  if (CONVENTIONAL_MARKER.test(e.marker) && e.marker.length - MARKER_PREFIX.length < MIN_TOKEN_HEX) {
    // Shorter than a marker-shaped token, it is never a token of its own: it would be matched
    // as text, inside every longer marker and token that starts with it (a false leak each).
    throw new InputError(
      `${path}:${line}: marker ${quote(e.marker.slice(0, 40))} is too short: a CANARY- marker needs at least ${MIN_TOKEN_HEX} hex digits (the convention's have 16 or more), or it is found inside longer markers`,
    )
  }
  if (!CONVENTIONAL_MARKER.test(e.marker) && [...e.marker].length < MIN_UNCONVENTIONAL_MARKER) {
    throw new InputError(
      `${path}:${line}: marker ${quote(e.marker.slice(0, 40))} is too short: a marker outside the CANARY-<hex> convention needs at least ${MIN_UNCONVENTIONAL_MARKER} characters, or it matches ordinary text`,
    )
  }
  let issued: string | null = null
  if (e.issued_at !== undefined && e.issued_at !== null && e.issued_at !== '') {
    // Read as UTC, a time written in local wall time would move by the zone's offset without a
    // word; log timestamps without a zone are refused the same way (unless --assume-tz).
    if (isZoneless(e.issued_at)) {
      throw new InputError(`${path}:${line}: issued_at ${quote(String(e.issued_at).slice(0, 40))} has no time zone; add Z or an offset such as +02:00`)
    }
    try {
      issued = parseTimestamp(e.issued_at).iso
    } catch (error) {
      throw new InputError(`${path}:${line}: issued_at: ${(error as Error).message}`)
    }
  }
  return {line, marker: e.marker, tenant_id: e.tenant_id, session_id: e.session_id, issued_at: issued}
}
