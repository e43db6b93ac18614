import {createHash} from 'node:crypto'
import {closeSync, openSync, readSync, statSync} from 'node:fs'
import {crc32} from 'node:zlib'
import {InputError} from '../errors.js'
import {isGzipHead} from '../evidence/hash-file.js'
import {EXTRACT_SCHEME, extractRecord, type UnconventionalSet} from '../extract/extract.js'
import type {MarkerToken} from '../extract/markers.js'
import {parseLine, type FieldMap} from '../extract/parse-record.js'
import {encodeParseSpec} from '../extract/parse-spec.js'
import {FingerprintBuffer} from '../extract/winnow.js'
import {TruncatedStreamError} from '../ingest/line-reader.js'
import {readUnits} from '../ingest/unit-reader.js'

// One log shard -> the rows of its extract: what detection needs from every record, taken in
// one pass with exactly ingest's per-line rules (byte-order mark, blank lines, bad lines,
// --max-line-bytes, parseLine, extractRecord), and where each line is (offset, length,
// CRC-32 of its bytes) so that a finding can be traced to the original bytes later. No case
// and no registry: the registry joins happen downstream (Spark), so each record carries what
// the echo check needs without it (see promptPrefix).

export interface ShardFacts {
  uri: string
  sha256: string
  size: number
  compression: 'none' | 'gzip'
  content_sha256: string
  content_size: number
  lines: number
  blank_lines: number
  /** Record lines (not yet deduplicated: a request id repeated across shards is decided downstream). */
  record_lines: number
  bad_lines: number
  notes: string[]
  extract_scheme: string
  parse_spec: string
  /** SHA-256 of the unconventional markers matched ('' when none). */
  unconventional_sha256: string
}

export interface TokenEntry {
  token: string
  position: number
  /**
   * The longest prefix of the token's hex digits (lower-cased) that the lower-cased prompt
   * contains. The echo check asks whether the prompt contains a needle that is always such a
   * prefix (the registered marker's hex, or the token's own hex for a partial), so "the prompt
   * contains the needle" is "promptPrefix >= needle length", decidable without the registry.
   */
  promptPrefix: number
}

export interface UnconventionalEntry {
  marker: string
  position: number
  /** The lower-cased prompt contains the lower-cased marker (the echo check for such markers). */
  inPrompt: boolean
}

export interface PiiEntryRow {
  inResponse: boolean
  kind: string
  sha256: Buffer
}

export interface RecordRowOut {
  kind: 'record'
  lineNo: number
  offset: number
  length: number
  crc: number
  requestId: string
  tenantId: string
  sessionId: string
  tsMs: number
  status: number | null
  decodeNode: string | null
  promptTokens: number | null
  isError: boolean
  tokens: TokenEntry[]
  unconventional: UnconventionalEntry[]
  pii: PiiEntryRow[]
  /** Winnowed fingerprints, (h1, h2) pairs in text order, repeats kept. */
  promptFp: Uint32Array
  responseFp: Uint32Array
}

export interface BadRowOut {
  kind: 'bad'
  lineNo: number
  offset: number
  length: number
  reason: string
}

export type ExtractRow = RecordRowOut | BadRowOut

export interface ExtractShardOptions {
  path: string
  /** Recorded as the shard's location (a file:// URI, or where the shard was copied from). */
  uri: string
  map: FieldMap
  maxLineBytes: number
  unconventional: UnconventionalSet
  /** Called with each row, in file order. */
  onRow: (row: ExtractRow) => void
}

const UNIT_BYTES = 512 << 10

/** Reads one shard, calling onRow for every record and bad line in order; returns the shard's facts. */
export async function extractShard(options: ExtractShardOptions): Promise<ShardFacts> {
  const {path} = options
  let size: number
  let head: Buffer
  try {
    size = statSync(path).size
    const fd = openSync(path, 'r')
    try {
      head = Buffer.alloc(4)
      head = head.subarray(0, readSync(fd, head, 0, 4, 0))
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const gzip = isGzipHead(head)
  const fileHash = createHash('sha256')
  const contentHash = createHash('sha256')
  let contentSize = 0
  const facts: ShardFacts = {
    uri: options.uri,
    sha256: '',
    size,
    compression: gzip ? 'gzip' : 'none',
    content_sha256: '',
    content_size: 0,
    lines: 0,
    blank_lines: 0,
    record_lines: 0,
    bad_lines: 0,
    notes: [],
    extract_scheme: EXTRACT_SCHEME,
    parse_spec: encodeParseSpec({map: options.map}),
    unconventional_sha256: options.unconventional.hash,
  }
  let bom = false
  const fp = new FingerprintBuffer()
  const bad = (lineNo: number, offset: number, length: number, reason: string): void => {
    facts.bad_lines++
    options.onRow({kind: 'bad', lineNo, offset, length, reason})
  }
  try {
    for await (const event of readUnits(path, {
      gzip, unitBytes: UNIT_BYTES, maxLineBytes: options.maxLineBytes,
      onFileChunk: (chunk) => fileHash.update(chunk),
      onChunk: (chunk) => {
        contentHash.update(chunk)
        contentSize += chunk.length
      },
    })) {
      if (event.kind === 'oversize') {
        facts.lines++
        bad(event.lineNo, event.offset, event.length, `line is ${event.length} bytes, over --max-line-bytes ${options.maxLineBytes}`)
        continue
      }
      // The per-line rules of ingest's processUnit, line by line.
      const bytes = event.bytes
      let lineNo = event.firstLineNo
      for (let s = 0; s < bytes.length; lineNo++) {
        let e = bytes.indexOf(10, s)
        if (e === -1) e = bytes.length
        let line = bytes.subarray(s, e)
        let offset = event.offset + s
        s = e + 1
        facts.lines++
        if (lineNo === 1 && offset === 0 && line.length >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) {
          bom = true
          line = line.subarray(3)
          offset += 3
        }
        if (line.length > options.maxLineBytes) {
          bad(lineNo, offset, line.length, `line is ${line.length} bytes, over --max-line-bytes ${options.maxLineBytes}`)
          continue
        }
        const parsed = parseLine(line, options.map)
        if (parsed.kind === 'blank') {
          facts.blank_lines++
          continue
        }
        if (parsed.kind === 'bad') {
          bad(lineNo, offset, line.length, parsed.reason)
          continue
        }
        const row = parsed.row
        fp.length = 0
        const x = extractRecord(row.request_text, row.response_text, fp, options.unconventional)
        let lower: string | null = null
        const promptLower = (): string => (lower ??= (row.request_text ?? '').toLowerCase())
        facts.record_lines++
        options.onRow({
          kind: 'record', lineNo, offset, length: line.length, crc: crc32(line),
          requestId: row.request_id, tenantId: row.tenant_id, sessionId: row.session_id, tsMs: row.ts_ms,
          status: row.status, decodeNode: row.decode_node, promptTokens: row.prompt_tokens, isError: row.is_error === 1,
          tokens: x.tokens.map((t) => ({...t, promptPrefix: promptPrefix(t, promptLower)})),
          unconventional: x.unconventional.map((u) => ({marker: u.token, position: u.position, inPrompt: promptLower().includes(u.token.toLowerCase())})),
          pii: x.pii.map(([part, kind, hash]) => ({inResponse: part === 1, kind, sha256: Buffer.from(hash, 'hex')})),
          promptFp: fp.data.slice(x.fpStart, x.fpStart + x.fpPromptLen),
          responseFp: fp.data.slice(x.fpStart + x.fpPromptLen, x.fpStart + x.fpPromptLen + x.fpResponseLen),
        })
      }
    }
  } catch (error) {
    if (!(error instanceof TruncatedStreamError)) {
      throw new InputError(`${path}: read failed after line ${facts.lines} (${(error as Error).message})`, 'E_UNREADABLE')
    }
    facts.notes.push(error.message)
  }
  // The notes ingest records for the same file, in the same order.
  if (bom) facts.notes.unshift('UTF-8 byte-order mark at the start of the file skipped')
  if (facts.lines === 0) facts.notes.push('empty file: no lines')
  facts.sha256 = fileHash.digest('hex')
  facts.content_sha256 = gzip ? contentHash.digest('hex') : facts.sha256
  facts.content_size = contentSize
  return facts
}

/** Longest prefix of the token's lower-cased hex that the lower-cased prompt contains (monotone, so a binary search). */
export function promptPrefix(t: MarkerToken, promptLower: () => string): number {
  const hex = t.token.slice('CANARY-'.length).toLowerCase()
  const prompt = promptLower()
  if (prompt.length === 0 || !prompt.includes(hex.slice(0, 1))) return 0
  let lo = 1 // known contained
  let hi = hex.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if (prompt.includes(hex.slice(0, mid))) lo = mid
    else hi = mid - 1
  }
  return lo
}
