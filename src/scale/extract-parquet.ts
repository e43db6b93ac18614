import {fileWriter, ParquetWriter, type ColumnSource, type SchemaElement} from 'hyparquet-writer'
import {canonicalJson} from '../util/canonical-json.js'
import type {ExtractRow, ShardFacts} from './extract-shard.js'

// The extract of one shard as a Parquet file (hyparquet-writer: pure JavaScript, one
// dependency, writes nested LIST columns that Spark reads as arrays). One row per record
// (several can share a line: OTLP exports), one per bad line or item, and a last row of kind
// 'shard' with the shard's facts as canonical JSON (its SHA-256 is known only once the whole
// file has been read). Rows are in the order ingest stores them and nothing in the file
// depends on the time or the machine, so the same shard always gives the same bytes.

/** Names the layout below; Spark refuses extracts of another version. */
export const EXTRACT_FORMAT = 'crosstalk-extract/2'

const str = (name: string, required = false): SchemaElement => ({name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: required ? 'REQUIRED' : 'OPTIONAL'})
const i64 = (name: string, required = false): SchemaElement => ({name, type: 'INT64', repetition_type: required ? 'REQUIRED' : 'OPTIONAL'})
const i32 = (name: string, required = false): SchemaElement => ({name, type: 'INT32', repetition_type: required ? 'REQUIRED' : 'OPTIONAL'})
const bool = (name: string, required = false): SchemaElement => ({name, type: 'BOOLEAN', repetition_type: required ? 'REQUIRED' : 'OPTIONAL'})
/** A LIST of required elements (Parquet's three-level list). */
const list = (name: string, element: SchemaElement[]): SchemaElement[] => [
  {name, repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1},
  {name: 'list', repetition_type: 'REPEATED', num_children: 1},
  ...element,
]
const struct = (fields: SchemaElement[]): SchemaElement[] => [{name: 'element', repetition_type: 'REQUIRED', num_children: fields.length}, ...fields]

const COLUMNS: Array<[string, SchemaElement[]]> = [
  ['kind', [str('kind', true)]],
  ['uri', [str('uri', true)]],
  ['ord', [i64('ord')]],
  ['line_no', [i64('line_no')]],
  ['item', [i32('item')]],
  ['byte_offset', [i64('byte_offset')]],
  ['byte_len', [i64('byte_len')]],
  ['crc32', [i64('crc32')]],
  ['companions', list('companions', struct([str('uri', true), i64('line_no', true), i64('offset', true), i64('length', true), i64('crc', true)]))],
  ['request_id', [str('request_id')]],
  ['tenant_id', [str('tenant_id')]],
  ['session_id', [str('session_id')]],
  ['ts_ms', [i64('ts_ms')]],
  ['status', [i32('status')]],
  ['decode_node', [str('decode_node')]],
  ['prompt_tokens', [i64('prompt_tokens')]],
  ['completion_tokens', [i64('completion_tokens')]],
  ['is_error', [bool('is_error')]],
  ['no_request_text', [bool('no_request_text')]],
  ['no_response_text', [bool('no_response_text')]],
  ['no_response', [bool('no_response')]],
  ['tokens', list('tokens', struct([str('token', true), i32('position', true), i32('prompt_prefix', true), i32('prompt_whole', true)]))],
  ['unconventional', list('unconventional', struct([str('marker', true), i32('position', true), bool('in_prompt', true)]))],
  ['pii', list('pii', struct([bool('in_response', true), str('kind', true), {name: 'sha256', type: 'FIXED_LEN_BYTE_ARRAY', type_length: 32, repetition_type: 'REQUIRED'}]))],
  ['prompt_fp', list('prompt_fp', [i64('element', true)])],
  ['response_fp', list('response_fp', [i64('element', true)])],
  ['reason', [str('reason')]],
  ['raw_kept', [i64('raw_kept')]],
  ['shard', [str('shard')]],
]

const LIST_COLUMNS = new Set(COLUMNS.filter(([, els]) => els[0]!.converted_type === 'LIST').map(([name]) => name))

export const EXTRACT_SCHEMA: SchemaElement[] = [{name: 'root', num_children: COLUMNS.length}, ...COLUMNS.flatMap(([, els]) => els)]

/** Rows per row group: bounds the writer's memory (a row holds a record's fingerprints). */
const BATCH_ROWS = 4096

/** A fingerprint (h1, h2) as one signed 64-bit value, h1 in the high half: what Spark groups and joins on. */
export function fingerprintKey(h1: number, h2: number): bigint {
  return BigInt.asIntN(64, (BigInt(h1 >>> 0) << 32n) | BigInt(h2 >>> 0))
}

function fingerprintList(fp: Uint32Array): bigint[] {
  const out: bigint[] = new Array(fp.length >>> 1)
  for (let i = 0; i + 1 < fp.length; i += 2) out[i >>> 1] = fingerprintKey(fp[i]!, fp[i + 1]!)
  return out
}

export class ExtractWriter {
  private readonly writer: ParquetWriter
  private cols: Record<string, unknown[]> = {}
  bytes = 0
  rows = 0

  constructor(private readonly path: string) {
    const out = fileWriter(path)
    this.writer = new ParquetWriter({
      writer: out, schema: EXTRACT_SCHEMA, statistics: false, createdBy: EXTRACT_FORMAT,
      kvMetadata: [{key: 'crosstalk.extract_format', value: EXTRACT_FORMAT}],
    })
    this.reset()
  }

  private reset(): void {
    this.cols = Object.fromEntries(COLUMNS.map(([name]) => [name, []]))
  }

  add(row: ExtractRow, uri: string): void {
    const c = this.cols
    const rec = row.kind === 'record' ? row : null
    c.kind!.push(row.kind)
    c.uri!.push(uri)
    c.ord!.push(rec ? BigInt(rec.ord) : null)
    c.line_no!.push(BigInt(row.lineNo))
    c.item!.push(row.item)
    c.byte_offset!.push(BigInt(row.offset))
    c.byte_len!.push(BigInt(row.length))
    c.crc32!.push(rec ? BigInt(rec.crc >>> 0) : null)
    c.companions!.push(
      rec ? rec.companions.map((x) => ({uri: x.uri, line_no: BigInt(x.lineNo), offset: BigInt(x.offset), length: BigInt(x.length), crc: BigInt(x.crc >>> 0)})) : [],
    )
    c.request_id!.push(rec?.requestId ?? null)
    c.tenant_id!.push(rec?.tenantId ?? null)
    c.session_id!.push(rec?.sessionId ?? null)
    c.ts_ms!.push(rec ? BigInt(rec.tsMs) : null)
    c.status!.push(rec?.status ?? null)
    c.decode_node!.push(rec?.decodeNode ?? null)
    c.prompt_tokens!.push(rec === null || rec.promptTokens === null ? null : BigInt(rec.promptTokens))
    c.completion_tokens!.push(rec === null || rec.completionTokens === null ? null : BigInt(rec.completionTokens))
    c.is_error!.push(rec ? rec.isError : null)
    c.no_request_text!.push(rec ? rec.noRequestText : null)
    c.no_response_text!.push(rec ? rec.noResponseText : null)
    c.no_response!.push(rec ? rec.noResponse : null)
    c.tokens!.push(rec ? rec.tokens.map((t) => ({token: t.token, position: t.position, prompt_prefix: t.promptPrefix, prompt_whole: t.promptWhole})) : [])
    c.unconventional!.push(rec ? rec.unconventional.map((u) => ({marker: u.marker, position: u.position, in_prompt: u.inPrompt})) : [])
    c.pii!.push(rec ? rec.pii.map((p) => ({in_response: p.inResponse, kind: p.kind, sha256: new Uint8Array(p.sha256)})) : [])
    c.prompt_fp!.push(rec ? fingerprintList(rec.promptFp) : [])
    c.response_fp!.push(rec ? fingerprintList(rec.responseFp) : [])
    c.reason!.push(row.kind === 'bad' ? row.reason : null)
    c.raw_kept!.push(row.kind === 'bad' ? BigInt(row.rawKept) : null)
    c.shard!.push(null)
    if (c.kind!.length >= BATCH_ROWS) this.flush()
  }

  /** The shard's facts as the last row, then the footer. */
  finish(facts: ShardFacts): void {
    const c = this.cols
    for (const [name] of COLUMNS) {
      const v = name === 'kind' ? 'shard' : name === 'uri' ? facts.uri : name === 'shard' ? canonicalJson(facts) : LIST_COLUMNS.has(name) ? [] : null
      c[name]!.push(v)
    }
    this.flush()
    this.writer.finish()
  }

  private flush(): void {
    const n = this.cols.kind!.length
    if (n === 0) return
    const columnData: ColumnSource[] = COLUMNS.map(([name]) => ({name, data: this.cols[name]!}))
    this.writer.write({columnData, rowGroupSize: n})
    this.rows += n
    this.reset()
  }
}
