import {readFileSync} from 'node:fs'
import {basename} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {adapterFor, resolveFormatOptions, type FormatOptionsInput, type LogFormat, type NativeRecord} from '../../../src/extract/formats/index.js'
import {resolveZoneless, type AssumedZone} from '../../../src/extract/timestamps-zone.js'
import {parseLine, type RecordRow} from '../../../src/extract/parse-record.js'

// What the ingest wiring will do, in miniature, for tests: parse every line of a file set,
// offer them all to the adapter's companion index, adapt each line, then push every produced
// record through the existing native path (parseLine on its JSON text), with the zone check
// in front of it.

export interface Produced {
  file: string
  line: number
  item: number
  record: NativeRecord
  notes: string[]
  /** parseLine's verdict on JSON.stringify(record). */
  row: RecordRow | null
  bad: string | null
}

export interface RunResult {
  produced: Produced[]
  problems: {file: string; line: number; item: number | null; reason: string}[]
  ignored: number
}

export function readJsonLines(path: string): {line: number; value: unknown}[] {
  let data = readFileSync(path)
  if (path.endsWith('.gz')) data = gunzipSync(data)
  const out: {line: number; value: unknown}[] = []
  data
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return
      try {
        out.push({line: i + 1, value: JSON.parse(text) as unknown})
      } catch {
        // not JSON: the native path quarantines such lines; adapters never see them
      }
    })
  return out
}

export function runAdapter(format: LogFormat, paths: readonly string[], input: FormatOptionsInput = {}, assumeTz: AssumedZone | null = null): RunResult {
  const adapter = adapterFor(format)
  const options = resolveFormatOptions(input)
  const files = paths.map((p) => ({file: basename(p), lines: readJsonLines(p)}))
  const index = adapter.newIndex(options)
  if (index) for (const f of files) for (const l of f.lines) index.add(l.value, {file: f.file, line: l.line})
  const result: RunResult = {produced: [], problems: [], ignored: 0}
  for (const f of files) {
    for (const l of f.lines) {
      const at = {file: f.file, line: l.line}
      const out = adapter.adapt(l.value, {options, index, at})
      result.ignored += out.ignored
      for (const p of out.problems) result.problems.push({...at, item: p.item, reason: p.reason})
      for (const r of out.records) result.produced.push({...at, item: r.item, record: r.record, notes: r.notes, ...decode(r.record, assumeTz)})
    }
  }
  return result
}

export function decode(record: NativeRecord, assumeTz: AssumedZone | null = null): {row: RecordRow | null; bad: string | null} {
  const ts = resolveZoneless(record.ts, assumeTz)
  if (!ts.ok) return {row: null, bad: ts.reason}
  const parsed = parseLine(Buffer.from(JSON.stringify({...record, ts: ts.value})))
  if (parsed.kind === 'record') return {row: parsed.row, bad: null}
  return {row: null, bad: parsed.kind === 'bad' ? parsed.reason : 'blank'}
}
