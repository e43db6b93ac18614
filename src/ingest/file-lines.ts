import {crc32} from 'node:zlib'
import {adapterFor, sniffFormat, SNIFF_LINES, type CompanionIndex, type FormatOptions, type LogFormat, type SniffDecision} from '../extract/formats/index.js'
import {readLineJson} from '../extract/parse-record.js'
import {DamagedStreamError} from './gunzip-recover.js'
import {readUnits} from './unit-reader.js'

// The readable JSON lines of a file, with the positions ingest gives them (same cutting, same
// line numbers and offsets as the stream pass): for `--log-format auto`, which looks at the
// first of them, and for formats whose records join other lines, whose companion index is
// offered every line of the file set before any record is made.

export interface JsonLine {
  lineNo: number
  offset: number
  length: number
  crc: number
  value: unknown
}

export interface FileToRead {
  path: string
  gzip: boolean
  size: number
}

/** `refused.twice`, where given, counts the lines passed over for giving a key twice (JSON no format reads). */
async function* jsonLines(f: FileToRead, maxLineBytes: number, refused?: {twice: number}): AsyncGenerator<JsonLine> {
  try {
    for await (const e of readUnits(f.path, {gzip: f.gzip, size: f.size, unitBytes: 256 << 10, maxLineBytes})) {
      if (e.kind !== 'unit') continue
      let lineNo = e.firstLineNo
      for (let s = 0; s < e.bytes.length; lineNo++) {
        let end = e.bytes.indexOf(10, s)
        if (end === -1) end = e.bytes.length
        let line = e.bytes.subarray(s, end)
        let offset = e.offset + s
        s = end + 1
        if (lineNo === 1 && offset === 0 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) {
          line = line.subarray(3)
          offset += 3
        }
        if (line.length > maxLineBytes) continue
        const json = readLineJson(line)
        if (json.kind === 'json') yield {lineNo, offset, length: line.length, crc: crc32(line), value: json.value}
        else if (refused !== undefined && json.kind === 'bad' && /^duplicate key /.test(json.reason)) refused.twice++
      }
    }
  } catch (error) {
    // The stream pass reads the file again and reports the damage; what came before it is here.
    if (!(error instanceof DamagedStreamError)) throw error
  }
}

/** Said of a file whose only JSON lines give a key twice. */
export const DUPLICATE_KEY_LINES = 'its JSON lines give a key twice, which no format reads'

/** Bytes of a file `auto` reads at most to find its first readable lines. */
const SNIFF_BYTES = 64 << 20

/** `--log-format auto` for one file: the first readable JSON lines decide. */
export async function sniffFile(f: FileToRead, maxLineBytes: number): Promise<SniffDecision> {
  const values: unknown[] = []
  const refused = {twice: 0}
  for await (const l of jsonLines(f, maxLineBytes, refused)) {
    values.push(l.value)
    if (values.length >= SNIFF_LINES || l.offset > SNIFF_BYTES) break
  }
  const decision = sniffFormat(values)
  // Lines that are JSON, each giving a key twice, are readable as JSON: the format is not what is
  // wrong with them, and no format reads them (ingest-logs.ts says so).
  if (values.length === 0 && refused.twice > 0) return {...decision, reason: `${decision.reason}: ${DUPLICATE_KEY_LINES}`}
  return decision
}

/** The companion index of a format, offered every readable line of the files, in order; null for formats without one. */
export async function buildCompanionIndex(
  format: LogFormat, options: FormatOptions, files: ReadonlyArray<FileToRead & {key: string; name?: string}>, maxLineBytes: number, signal?: AbortSignal,
): Promise<CompanionIndex | null> {
  const index = adapterFor(format).newIndex(options)
  if (!index) return null
  for (const f of files) {
    for await (const l of jsonLines(f, maxLineBytes)) {
      if (signal?.aborted) return index
      index.add(l.value, {file: f.key, name: f.name, line: l.lineNo, offset: l.offset, length: l.length, crc: l.crc})
    }
  }
  return index
}

/**
 * Of a joined set's files new to the case (`fresh`), those whose lines read otherwise with the
 * set's files already in the case (`index`, offered every file of the set) than without them (an
 * index of the new files alone): a wrapper whose call, or a log record whose span, is in a file an
 * earlier ingest stored. The stored file is not read again, so those texts would be joined to a
 * record that is never made again: judged nowhere. Each line is adapted both ways and what it
 * gives compared (records, problems, items ignored and not read); the keys of the files that
 * differ.
 */
export async function readsWithStoredFiles(
  format: LogFormat, options: FormatOptions, index: CompanionIndex, fresh: ReadonlyArray<FileToRead & {key: string; name?: string}>, maxLineBytes: number, signal?: AbortSignal,
): Promise<Set<string>> {
  const adapter = adapterFor(format)
  const alone = await buildCompanionIndex(format, options, fresh, maxLineBytes, signal)
  const out = new Set<string>()
  const reading = (value: unknown, with_: CompanionIndex, at: Parameters<CompanionIndex['add']>[1]): string => {
    try {
      const r = adapter.adapt(value, {options, index: with_, at})
      return JSON.stringify([r.records.length, r.problems.length, r.ignored, r.unread ?? {}])
    } catch (error) {
      return `thrown: ${(error as Error).message}`
    }
  }
  for (const f of fresh) {
    for await (const l of jsonLines(f, maxLineBytes)) {
      if (signal?.aborted) return out
      const at = {file: f.key, name: f.name, line: l.lineNo, offset: l.offset, length: l.length, crc: l.crc}
      if (reading(l.value, index, at) !== reading(l.value, alone!, at)) {
        out.add(f.key)
        break
      }
    }
  }
  return out
}
