import {createHash} from 'node:crypto'
import {EXTRACT_SCHEME, type UnconventionalSet} from '../extract/extract.js'
import type {LogFormat} from '../extract/formats/index.js'
import type {LineDecoder} from '../extract/line-decoder.js'
import {promptHasUnconventional, promptHex, type MarkerToken} from '../extract/markers.js'
import {buildCompanionIndex} from '../ingest/file-lines.js'
import {DamagedStreamError} from '../ingest/gunzip-recover.js'
import {UNIT_BYTES, type FileFormat} from '../ingest/ingest-file.js'
import {processUnit, type RecordItem} from '../ingest/process-unit.js'
import {readUnits} from '../ingest/unit-reader.js'

// Log shards -> the rows of their extracts: what detection needs from every record, taken with
// exactly ingest's reading (the same units of lines, processUnit: the log format's decoder,
// the per-line rules, bad lines and items, the detection extract), and where each record is
// (line, item, byte offset, length, CRC-32 of the line, and the other lines it was read with)
// so that a finding can be traced to the original bytes later. No case and no registry: the
// registry joins happen downstream (Spark), so each record carries what the echo check needs
// without it (see promptPrefix). Files of a format whose records join lines across files
// (OpenTelemetry spans and logs, Batch output and input) are read as one set, as ingest reads
// them.

export interface ShardFacts {
  uri: string
  sha256: string
  size: number
  compression: 'none' | 'gzip'
  content_sha256: string
  content_size: number
  log_format: LogFormat
  format_reason: string
  parse_spec: string
  lines: number
  blank_lines: number
  /** The first line began with a UTF-8 byte-order mark (skipped). */
  bom: boolean
  /** Record items (not yet deduplicated: a request id repeated across shards is decided downstream). */
  record_lines: number
  bad_lines: number
  ignored_items: number
  /** Ignored items that carry model texts in a convention not read, [convention, items] (absent from findings of an earlier job: none counted). */
  unread_conventions?: Array<[string, number]>
  /** What records lacked, [note, records] in the order ingest first met each note (ties keep that order). */
  record_notes: Array<[string, number]>
  /** null: read whole; else what could not be read (damaged gzip) */
  unread: string | null
  /** The first bad line or item, for the message when nothing in the file can be read. */
  first_bad: {line: number; reason: string} | null
  extract_scheme: string
  /** SHA-256 of the unconventional markers matched ('' when none). */
  unconventional_sha256: string
}

export interface TokenEntry {
  token: string
  position: number
  /**
   * How many of the token's hex digits (lower-cased), from the first, the prompt holds right
   * after a `CANARY-` (hex in either case). The echo check asks whether the prompt holds a marker
   * whose hex is always such a prefix (the registered marker's, or the token's own for a
   * partial), so "the prompt holds the marker" is "promptPrefix >= its hex length" for a
   * partial sighting and "promptWhole >= its hex length" for a full one, decidable without the
   * registry. The hex alone, without `CANARY-` before it, counts for nothing.
   */
  promptPrefix: number
  /** As many, where no more hex follows them in the prompt (a longer marker does not hold a shorter one). */
  promptWhole: number
}

export interface UnconventionalEntry {
  marker: string
  position: number
  /** The prompt holds the marker whole, exactly as registered (the echo check for such markers). */
  inPrompt: boolean
}

export interface CompanionRef {
  /** The URI of the shard holding the line (one of the same set). */
  uri: string
  lineNo: number
  offset: number
  length: number
  crc: number
}

export interface RecordRowOut {
  kind: 'record'
  /** The record's place among the file's records in the order ingest stores them (record ids follow it). */
  ord: number
  lineNo: number
  item: number
  offset: number
  length: number
  crc: number
  companions: CompanionRef[]
  requestId: string
  tenantId: string
  sessionId: string
  tsMs: number
  status: number | null
  decodeNode: string | null
  promptTokens: number | null
  completionTokens: number | null
  isError: boolean
  noRequestText: boolean
  noResponseText: boolean
  noResponse: boolean
  tokens: TokenEntry[]
  unconventional: UnconventionalEntry[]
  pii: Array<{inResponse: boolean; kind: string; sha256: Buffer}>
  /** Winnowed fingerprints, (h1, h2) pairs in text order, repeats kept. */
  promptFp: Uint32Array
  responseFp: Uint32Array
}

export interface BadRowOut {
  kind: 'bad'
  lineNo: number
  /** null: the whole line; else the item of the line that could not be read */
  item: number | null
  offset: number
  length: number
  reason: string
  /** Bytes of the line the case keeps with the quarantined line (ingest's raw): 0 for a line over --max-line-bytes. */
  rawKept: number
}

export type ExtractRow = RecordRowOut | BadRowOut

export interface ShardToExtract {
  path: string
  /** Recorded as the shard's location (a file:// URI, or where the shard was copied from). */
  uri: string
  size: number
  gzip: boolean
  how: FileFormat
}

export interface ExtractSetOptions {
  /** One file, or a set whose records join lines across its files (read with one companion index). */
  files: readonly ShardToExtract[]
  decoder: LineDecoder
  joined: boolean
  maxLineBytes: number
  unconventional: UnconventionalSet
  /** Called with each row of file `index` (of `files`), in the order ingest stores them. */
  onRow: (index: number, row: ExtractRow) => void
}

/** Reads the files (a set, or one file), calling onRow for every record and bad line or item in order; returns each file's facts. */
export async function extractShards(options: ExtractSetOptions): Promise<ShardFacts[]> {
  const {files, decoder} = options
  const index = options.joined
    ? await buildCompanionIndex(decoder.spec.format ?? 'native', decoder.options, files.map((f) => ({path: f.path, gzip: f.gzip, size: f.size, key: f.uri})), options.maxLineBytes)
    : null
  const out: ShardFacts[] = []
  for (const [i, f] of files.entries()) out.push(await extractOne(f, index, options, (row) => options.onRow(i, row)))
  return out
}

async function extractOne(f: ShardToExtract, index: Awaited<ReturnType<typeof buildCompanionIndex>>, options: ExtractSetOptions, onRow: (row: ExtractRow) => void): Promise<ShardFacts> {
  const fileHash = createHash('sha256')
  const contentHash = f.gzip ? createHash('sha256') : null
  let contentSize = 0
  const facts: ShardFacts = {
    uri: f.uri, sha256: '', size: f.size, compression: f.gzip ? 'gzip' : 'none', content_sha256: '', content_size: 0,
    log_format: f.how.format, format_reason: f.how.reason, parse_spec: f.how.spec, lines: 0, blank_lines: 0, bom: false,
    record_lines: 0, bad_lines: 0, ignored_items: 0, unread_conventions: [], record_notes: [], unread: null, first_bad: null,
    extract_scheme: EXTRACT_SCHEME, unconventional_sha256: options.unconventional.hash,
  }
  const notes = new Map<string, number>()
  const unreadItems = new Map<string, number>()
  let ord = 0
  const bad = (row: BadRowOut): void => {
    facts.bad_lines++
    facts.first_bad ??= {line: row.lineNo, reason: row.reason}
    onRow(row)
  }
  // What the echo check needs, taken from each record's prompt while processUnit has it.
  const promptFacts = new Map<RecordItem, {tokens: TokenEntry[]; unconventional: UnconventionalEntry[]}>()
  const onTexts = (item: RecordItem, texts: {request_text: string | null}): void => {
    const prompt = texts.request_text ?? ''
    promptFacts.set(item, {
      tokens: item.tokens.map((t) => {
        const held = promptHex(t, () => prompt)
        return {...t, promptPrefix: held.prefix, promptWhole: held.whole}
      }),
      unconventional: item.unconventional.map((u) => ({marker: u.token, position: u.position, inPrompt: promptHasUnconventional(prompt, u.token, (text) => options.unconventional.hits(text))})),
    })
  }
  let seq = 0
  try {
    for await (const event of readUnits(f.path, {
      // Ingest's unit size: notes are bounded per unit, so the same cut gives the same notes.
      gzip: f.gzip, size: f.size, unitBytes: UNIT_BYTES, maxLineBytes: options.maxLineBytes,
      onFileChunk: (chunk) => fileHash.update(chunk),
      onChunk: (chunk) => {
        contentHash?.update(chunk)
        contentSize += chunk.length
      },
    })) {
      if (event.kind === 'skipping') continue
      if (event.kind === 'oversize') {
        facts.lines++
        bad({kind: 'bad', lineNo: event.lineNo, item: null, offset: event.offset, length: event.length, reason: `line is ${event.length} bytes, over --max-line-bytes ${options.maxLineBytes}`, rawKept: 0})
        continue
      }
      if (event.kind === 'cut') {
        facts.lines++
        const reason = `line cut short where the gzip stream is damaged (its end could not be decompressed)`
        bad({kind: 'bad', lineNo: event.lineNo, item: null, offset: event.offset, length: event.length, reason, rawKept: event.raw.length})
        continue
      }
      const task = {seq: seq++, bytes: event.bytes, offset: event.offset, firstLineNo: event.firstLineNo, spec: f.how.spec, file: f.uri, maxLineBytes: options.maxLineBytes}
      const r = processUnit(task, options.unconventional, index, onTexts)
      facts.lines += r.lines
      facts.blank_lines += r.blank
      facts.ignored_items += r.ignored
      for (const [convention, n] of Object.entries(r.unread)) unreadItems.set(convention, (unreadItems.get(convention) ?? 0) + n)
      if (r.bom) facts.bom = true
      for (const [note, n] of Object.entries(r.notes)) notes.set(note, (notes.get(note) ?? 0) + n)
      for (const item of r.items) {
        if (item.k === 'b') {
          bad({kind: 'bad', lineNo: item.lineNo, item: item.item, offset: item.offset, length: item.length, reason: item.reason, rawKept: item.raw.length})
          continue
        }
        facts.record_lines++
        const w = item.row
        const p = promptFacts.get(item)!
        const at = item.fpStart
        onRow({
          kind: 'record', ord: ord++, lineNo: item.lineNo, item: item.item, offset: item.offset, length: item.length, crc: item.crc,
          companions: item.companions.map((c) => ({uri: c.file, lineNo: c.line, offset: c.offset!, length: c.length!, crc: c.crc!})),
          requestId: w.request_id, tenantId: w.tenant_id, sessionId: w.session_id, tsMs: w.ts_ms, status: w.status, decodeNode: w.decode_node,
          promptTokens: w.prompt_tokens, completionTokens: w.completion_tokens, isError: w.is_error === 1,
          noRequestText: item.noRequestText, noResponseText: item.noResponseText, noResponse: item.noResponse,
          tokens: p.tokens, unconventional: p.unconventional,
          pii: item.pii.map(([part, kind, hash]) => ({inResponse: part === 1, kind, sha256: Buffer.from(hash, 'hex')})),
          promptFp: r.fp.slice(at, at + item.fpPromptLen),
          responseFp: r.fp.slice(at + item.fpPromptLen, at + item.fpPromptLen + item.fpResponseLen),
        })
      }
      promptFacts.clear()
    }
  } catch (error) {
    // A damaged gzip stream: what came before the damage is read, the rest is said to be unread (as ingest says it).
    if (!(error instanceof DamagedStreamError)) throw error
    facts.unread = error.message
  }
  facts.record_notes = [...notes]
  facts.unread_conventions = [...unreadItems]
  facts.sha256 = fileHash.digest('hex')
  facts.content_sha256 = contentHash ? contentHash.digest('hex') : facts.sha256
  facts.content_size = contentSize
  return facts
}

