import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'

export interface RawLine {
  file: string
  /** 1-based physical line number. */
  line: number
  bytes: Buffer
}

/** Every physical line of a generated file (gunzipped; BOM, CR and the final newline removed). */
export function readLines(dir: string, rel: string): RawLine[] {
  let data = readFileSync(join(dir, rel))
  if (rel.endsWith('.gz')) data = gunzipSync(data)
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) data = data.subarray(3)
  const out: RawLine[] = []
  let start = 0
  let n = 0
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0x0a) continue
    let end = i
    if (end > start && data[end - 1] === 0x0d) end--
    out.push({file: rel, line: ++n, bytes: data.subarray(start, end)})
    start = i + 1
  }
  if (start < data.length) out.push({file: rel, line: ++n, bytes: data.subarray(start)})
  return out
}

export type LogRecord = Record<string, unknown> & {request_id: string; tenant_id: string; session_id: string}
