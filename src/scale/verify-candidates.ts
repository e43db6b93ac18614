import {readFileSync} from 'node:fs'
import {crc32} from 'node:zlib'
import {z} from 'zod'
import {InputError, IntegrityError} from '../errors.js'
import {HashTable} from '../detect/provenance/hash-table.js'
import {attributeResponse, type AttributionContext} from '../detect/provenance/attribute.js'
import {parseLine, type FieldMap} from '../extract/parse-record.js'
import {readShardRanges, shardPath, type PrefixRewrite} from './shard-reader.js'

// `crosstalk provenance-verify`: the Spark job counts each response's candidate sources
// (the tallies of detect/provenance/candidates.ts, in Spark SQL) and hands them here, a
// partition at a time; the verification and the choice of the best source are
// attributeResponse, the very function `scan` runs. Texts are decoded again from the
// original lines, read from the shards by offset and checked against their CRC-32.

const Line = z.object({
  uri: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  crc: z.number().int(),
  ts_ms: z.number(),
  file_idx: z.number().int(),
  line_no: z.number().int(),
  node: z.string().nullable(),
})
const Candidate = Line.extend({part: z.union([z.literal(0), z.literal(1)]), n: z.number().int().positive()})
export const VerifyTask = z.object({
  id: z.unknown(),
  r: Line,
  /** The best candidates (at most MAX_VERIFIED), as Spark ranked them. */
  c: z.array(Candidate).min(1),
  /** Distinct candidates the response had before that cut. */
  total: z.number().int().positive(),
})
export type VerifyTask = z.infer<typeof VerifyTask>

export interface VerifyOutcome {
  id: unknown
  /** Index in the task's `c` of the source chosen. */
  c: number
  overlap_words: number
  word_start: number
  overlap_sha256: string
  matched: 'prompt' | 'response'
  candidates: number
}

/** Boilerplate fingerprints, one signed 64-bit key (h1 high, h2 low) per line, as the job writes them. */
export function loadBoilerplate(path: string | undefined): HashTable {
  const table = new HashTable(1024)
  if (!path) return table
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim()
    if (!t) continue
    const key = BigInt.asUintN(64, BigInt(t))
    table.add(Number(key >> 32n), Number(key & 0xffffffffn))
  }
  return table
}

export interface VerifyOptions {
  map: FieldMap
  minWords: number
  boilerplate: HashTable
  rewrites?: PrefixRewrite
}

const lineKey = (l: {uri: string; offset: number}): string => `${l.offset}\u0000${l.uri}`

export async function verifyCandidates(tasks: readonly VerifyTask[], options: VerifyOptions): Promise<VerifyOutcome[]> {
  // Every line the tasks name, read once per shard.
  const byShard = new Map<string, Map<number, {offset: number; length: number; crc: number}>>()
  for (const t of tasks) {
    for (const l of [t.r, ...t.c]) {
      let m = byShard.get(l.uri)
      if (!m) byShard.set(l.uri, (m = new Map()))
      m.set(l.offset, {offset: l.offset, length: l.length, crc: l.crc})
    }
  }
  const bytes = new Map<string, Buffer>()
  for (const [uri, ranges] of byShard) {
    const read = await readShardRanges(shardPath(uri, options.rewrites), [...ranges.values()])
    for (const r of ranges.values()) {
      const b = read.lines.get(r.offset)
      if (!b || b.length !== r.length || crc32(b) >>> 0 !== r.crc >>> 0) {
        throw new IntegrityError(`${uri}: the line at byte ${r.offset} (${r.length} bytes) is not the line that was extracted (CRC-32 differs): the shard changed since`)
      }
      bytes.set(lineKey({uri, offset: r.offset}), b)
    }
  }
  const isBoiler = (h1: number, h2: number): boolean => options.boilerplate.size > 0 && options.boilerplate.get(h1, h2) >= 0
  // Decode nodes compared by name (attribution only asks "the same node as the recipient's?"), as scan numbers them.
  const nodeNumbers = new Map<string, number>()
  const nodeNumber = (node: string | null): number => {
    if (node === null || node === '') return -1
    let n = nodeNumbers.get(node)
    if (n === undefined) nodeNumbers.set(node, (n = nodeNumbers.size))
    return n
  }
  const out: VerifyOutcome[] = []
  for (const task of tasks) {
    // Local ranks: the records of this task in (time, file order, line order), the order in
    // which `scan` ranks them (time, then record id, and record ids follow file and line order).
    const records = new Map<string, z.infer<typeof Line>>()
    for (const l of [task.r, ...task.c]) records.set(lineKey(l), l)
    const ordered = [...records.values()].sort((a, b) => a.ts_ms - b.ts_ms || a.file_idx - b.file_idx || a.line_no - b.line_no)
    const rankOf = new Map(ordered.map((l, i) => [lineKey(l), i]))
    const r = rankOf.get(lineKey(task.r))!
    if (r !== ordered.length - 1) throw new InputError(`provenance-verify: a candidate of ${task.r.uri} byte ${task.r.offset} is not earlier than the response`)
    const texts = new Map<number, {request_text: string | null; response_text: string | null}>()
    const ctx: AttributionContext = {
      text: (part, rank) => {
        let t = texts.get(rank)
        if (!t) {
          const parsed = parseLine(bytes.get(lineKey(ordered[rank]!))!, options.map)
          t = parsed.kind === 'record' ? {request_text: parsed.row.request_text, response_text: parsed.row.response_text} : {request_text: null, response_text: null}
          texts.set(rank, t)
        }
        return t[part] ?? ''
      },
      node: (rank) => nodeNumber(ordered[rank]!.node),
      isBoiler,
      minWords: options.minWords,
    }
    const vs = task.c.map((c) => rankOf.get(lineKey(c))! * 2 + c.part)
    const best = attributeResponse(r, task.c.map((c, i) => [vs[i]!, c.n]), ctx, task.total)
    if (best === null) continue
    out.push({
      id: task.id, c: vs.indexOf(best.v), overlap_words: best.run.len, word_start: best.run.start,
      overlap_sha256: best.overlapSha256, matched: best.matched, candidates: best.candidates,
    })
  }
  return out
}
