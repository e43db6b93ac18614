import {readFileSync} from 'node:fs'
import {crc32} from 'node:zlib'
import {z} from 'zod'
import {InputError, IntegrityError} from '../errors.js'
import {safeLine} from '../util/sanitize.js'
import {SourceChain, type AttributionContext} from '../detect/provenance/attribute.js'
import {HashTable} from '../detect/provenance/hash-table.js'
import {decodeRecordTexts, type RecordTexts} from '../evidence/record-texts.js'
import {lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {readShardRanges, shardPath, type PrefixRewrite} from './shard-reader.js'

// `crosstalk provenance-verify`: the Spark job counts each response's candidate sources
// (the tallies of detect/provenance/candidates.ts, in Spark SQL) and hands them here, one
// group of responses at a time, in time order; the chain rule, the verification and the
// choice of the source are SourceChain (attribute.ts), the very code `scan` runs. A group is
// closed under the chain rule (a response and every response whose attribution it may
// depend on, through candidates that are themselves responses with candidates), so groups
// are independent and run in parallel. Texts are decoded again from the original lines (and
// the lines each record was read with), read from the shards by offset and checked against
// their CRC-32, with the decoder of each shard's parse spec.

const Companion = z.object({
  /** The shard holding the line (one of the same set). */
  uri: z.string(),
  line_no: z.number().int().positive(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  crc: z.number().int(),
})
const Line = z.object({
  file_idx: z.number().int().nonnegative(),
  ord: z.number().int().nonnegative(),
  line_no: z.number().int().positive(),
  item: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  crc: z.number().int(),
  companions: z.array(Companion),
  ts_ms: z.number(),
  node: z.string().nullable(),
  tenant_id: z.string(),
  session_id: z.string(),
  /** The record has a contaminating canary sighting (cross-session or cross-tenant): a copy. */
  copy: z.boolean(),
})
type Line = z.infer<typeof Line>
const Candidate = Line.extend({part: z.union([z.literal(0), z.literal(1)]), n: z.number().int().positive()})
export const VerifyTask = z.object({
  r: Line,
  /** The source sessions (tenant, session) the response's contaminating sightings name. */
  named: z.array(z.tuple([z.string().nullable(), z.string()])),
  /** Every candidate the response had (earlier postings of other sessions), with its shared fingerprints. */
  c: z.array(Candidate).min(1),
})
export type VerifyTask = z.infer<typeof VerifyTask>

/** A shard's location and how its lines are decoded. */
export const ShardSpec = z.object({file_idx: z.number().int().nonnegative(), uri: z.string(), parse_spec: z.string()})
export type ShardSpec = z.infer<typeof ShardSpec>

export interface VerifyOutcome {
  file_idx: number
  ord: number
  source_file_idx: number
  source_ord: number
  overlap_words: number
  word_start: number
  overlap_sha256: string
  matched: 'prompt' | 'response'
  candidates: number
  /** earlier, or unknown for a prompt logged after the response (attribute.ts). */
  source_order: 'earlier' | 'unknown'
  /** named, ambiguous (source_tenants tenants hold the run alike) or unknown (attribute.ts). */
  source_status: 'named' | 'ambiguous' | 'unknown'
  source_tenants: number
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

/** The shards' table the job writes (JSON: [{file_idx, uri, parse_spec}]). */
export function loadShardSpecs(path: string): ShardSpec[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new InputError(`${safeLine(path)}: the shards table cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    // The parser's message quotes the file's text: not repeated.
    throw new InputError(`${safeLine(path)}: not a shards table of the Spark job (not JSON)`)
  }
  const parsed = z.array(ShardSpec).safeParse(json)
  if (!parsed.success) throw new InputError(`${safeLine(path)}: not a shards table of the Spark job (${parsed.error.issues[0]?.message})`)
  return parsed.data
}

export interface VerifyOptions {
  shards: readonly ShardSpec[]
  minWords: number
  boilerplate: HashTable
  rewrites?: PrefixRewrite
}

const key = (fileIdx: number, ord: number): string => `${fileIdx}:${ord}`

export async function verifyCandidates(tasks: readonly VerifyTask[], options: VerifyOptions): Promise<VerifyOutcome[]> {
  const shards = new Map(options.shards.map((s) => [s.file_idx, s]))
  const shardOf = (fileIdx: number): ShardSpec => {
    const s = shards.get(fileIdx)
    if (!s) throw new InputError(`provenance-verify: shard ${fileIdx} is not in the shards table`)
    return s
  }
  const byUri = new Map(options.shards.map((s) => [s.uri, s.file_idx]))
  const fileOfUri = (uri: string): number => {
    const i = byUri.get(uri)
    if (i === undefined) throw new InputError(`provenance-verify: ${uri} is not in the shards table`)
    return i
  }
  // Every record the tasks name, in time order (time, then ingest's record order): the ranks.
  const lines = new Map<string, Line>()
  for (const t of tasks) {
    for (const l of [t.r, ...t.c]) {
      const k = key(l.file_idx, l.ord)
      const seen = lines.get(k)
      lines.set(k, seen && seen.copy ? seen : l)
    }
  }
  const ordered = [...lines.values()].sort((a, b) => a.ts_ms - b.ts_ms || a.file_idx - b.file_idx || a.ord - b.ord)
  const rankOf = new Map(ordered.map((l, i) => [key(l.file_idx, l.ord), i]))

  // Their bytes (and the bytes of the lines they were read with), read once per shard and CRC-checked.
  const wanted = new Map<number, Map<number, {offset: number; length: number; crc: number}>>()
  const want = (fileIdx: number, r: {offset: number; length: number; crc: number}): void => {
    let m = wanted.get(fileIdx)
    if (!m) wanted.set(fileIdx, (m = new Map()))
    m.set(r.offset, r)
  }
  for (const l of ordered) {
    want(l.file_idx, l)
    for (const c of l.companions) want(fileOfUri(c.uri), c)
  }
  const bytes = new Map<number, Map<number, Buffer>>()
  for (const [fileIdx, ranges] of wanted) {
    const {uri} = shardOf(fileIdx)
    const read = await readShardRanges(shardPath(uri, options.rewrites), [...ranges.values()])
    for (const r of ranges.values()) {
      const b = read.lines.get(r.offset)
      if (!b || b.length !== r.length || crc32(b) >>> 0 !== r.crc >>> 0) {
        throw new IntegrityError(`${uri}: the line at byte ${r.offset} (${r.length} bytes) is not the line that was extracted (CRC-32 differs): the shard changed since`)
      }
    }
    bytes.set(fileIdx, read.lines)
  }
  const read = (fileIdx: number, offset: number): Buffer => bytes.get(fileIdx)!.get(offset)!
  const decoders = new Map<number, LineDecoder>()
  const decoderOf = (fileIdx: number): LineDecoder => {
    let d = decoders.get(fileIdx)
    if (!d) decoders.set(fileIdx, (d = lineDecoder(decodeParseSpec(shardOf(fileIdx).parse_spec))))
    return d
  }
  const texts = new Map<number, RecordTexts>()
  const nodes = new Map<string, number>()
  const ctx: AttributionContext = {
    text: (part, rank) => {
      let t = texts.get(rank)
      if (!t) {
        const l = ordered[rank]!
        const location = {
          file_id: l.file_idx, line_no: l.line_no, item: l.item, byte_offset: l.offset, byte_len: l.length, raw_crc32: l.crc, parse_spec: shardOf(l.file_idx).parse_spec,
          companions: l.companions.map((c) => ({file_id: fileOfUri(c.uri), line_no: c.line_no, byte_offset: c.offset, byte_len: c.length, raw_crc32: c.crc})),
        }
        texts.set(rank, (t = decodeRecordTexts(location, decoderOf(l.file_idx), (fileId, offset) => read(fileId, offset))))
      }
      return t[part] ?? ''
    },
    // Decode nodes compared by name (attribution only asks "the same node as the recipient's?"), as scan numbers them.
    node: (rank) => {
      const node = ordered[rank]!.node
      if (node === null || node === '') return -1
      let n = nodes.get(node)
      if (n === undefined) nodes.set(node, (n = nodes.size))
      return n
    },
    session: (rank) => ordered[rank]!,
    isBoiler: (h1, h2) => options.boilerplate.size > 0 && options.boilerplate.get(h1, h2) >= 0,
    minWords: options.minWords,
  }

  // The chain rule's state: copies by sighting first, then every response in time order.
  const chain = new SourceChain(ordered.length)
  for (const [i, l] of ordered.entries()) if (l.copy) chain.markCopy(i, null)
  const byRank = tasks.map((t) => ({t, r: rankOf.get(key(t.r.file_idx, t.r.ord))!})).sort((a, b) => a.r - b.r)
  for (const {t, r} of byRank) for (const [tenant, session] of t.named) chain.markCopy(r, {tenant, session})
  const out: VerifyOutcome[] = []
  for (const {t, r} of byRank) {
    const found = t.c.map((c) => [rankOf.get(key(c.file_idx, c.ord))! * 2 + c.part, c.n] as const)
    const best = chain.attribute(r, found, ctx)
    if (best === null) continue
    const source = ordered[best.v >>> 1]!
    out.push({
      file_idx: t.r.file_idx, ord: t.r.ord, source_file_idx: source.file_idx, source_ord: source.ord,
      overlap_words: best.run.len, word_start: best.run.start, overlap_sha256: best.overlapSha256, matched: best.matched, candidates: best.candidates,
      source_order: best.sourceOrder,
      source_status: best.sourceStatus,
      source_tenants: best.sourceTenants,
    })
  }
  return out
}
