import {NOT_JSON_LINES} from './common.js'
import {langfuse} from './langfuse.js'
import {isObj} from './messages.js'
import {litellm} from './litellm.js'
import {native} from './native.js'
import {openaiBatch} from './openai-batch.js'
import {otel} from './otel.js'
import {FormatOptionError, LOG_FORMATS, type FormatAdapter, type FormatOptions, type LogFormat, type SniffResult} from './types.js'

// The registry of log formats and `--log-format auto`: every adapter looks at the first readable
// lines of a file, and the most confident one wins if it is confident enough and nothing else
// comes close. Anything else is refused with the reasons, never guessed.

export {resolveFormatOptions, DEFAULT_TENANT_ATTRIBUTES, EARLIER_DEFAULT_TENANT_ATTRIBUTES} from './common.js'
export * from './types.js'

export const ADAPTERS: Readonly<Record<LogFormat, FormatAdapter>> = {
  native: native as FormatAdapter,
  otel: otel as unknown as FormatAdapter,
  langfuse: langfuse as FormatAdapter,
  litellm: litellm as FormatAdapter,
  'openai-batch': openaiBatch as unknown as FormatAdapter,
}

export function adapterFor(format: LogFormat): FormatAdapter {
  return ADAPTERS[format]
}

/** How many first readable lines `auto` looks at. */
export const SNIFF_LINES = 20
/** The share of sampled lines a format must explain to be chosen. */
export const SNIFF_MIN_CONFIDENCE = 0.8
/** The share that suffices when no other format explains a single sampled line. */
export const SNIFF_ALONE_CONFIDENCE = 0.5

export type SniffDecision =
  | {format: LogFormat; confidence: number; reason: string; candidates: SniffResult[]}
  | {format: null; reason: string; candidates: SniffResult[]}

/**
 * Decides a file's format from its first readable lines (parsed JSON values; lines that did not
 * parse are left out by the caller). A native line also matches no other format, and the other
 * formats' shapes exclude each other, so a tie means a file that mixes formats: refused.
 */
export function sniffFormat(first: readonly unknown[]): SniffDecision {
  const sample = first.slice(0, SNIFF_LINES)
  const candidates = LOG_FORMATS.map((f) => ADAPTERS[f].sniff(sample)).sort((a, b) => b.confidence - a.confidence)
  const best = candidates[0]!
  if (sample.length === 0) return {format: null, reason: 'no readable JSON lines to decide the format from', candidates}
  // A few bad lines among the first (a line without its session) do not hide a format that
  // explains most of the sample when no other format explains any of it.
  const alone = best.confidence >= SNIFF_ALONE_CONFIDENCE && candidates.slice(1).every((c) => c.confidence === 0)
  if (best.confidence < SNIFF_MIN_CONFIDENCE && !alone) {
    // JSON, but records wrapped: arrays of them, or an API page ({data: [...]}) a line.
    const arrays = sample.filter((v) => Array.isArray(v)).length
    const pages = sample.filter((v) => isObj(v) && Array.isArray(v.data) && Object.keys(v).length <= 6).length
    if (arrays + pages >= sample.length * SNIFF_MIN_CONFIDENCE) {
      const what = arrays >= pages ? 'its lines are JSON arrays' : 'its lines are API pages ({"data": [...]})'
      return {format: null, reason: `${what}, not log records: the file is ${NOT_JSON_LINES}`, candidates}
    }
    const near = candidates.filter((c) => c.confidence > 0).map((c) => `${c.format}: ${c.reason}`)
    return {
      format: null,
      reason: `no known log format fits (${near.length > 0 ? near.join('; ') : `none of ${LOG_FORMATS.join(', ')} matched`}); give --log-format, or --log-format native with --map FIELD=PATH`,
      candidates,
    }
  }
  const second = candidates[1]
  if (second && second.confidence >= SNIFF_MIN_CONFIDENCE) {
    return {format: null, reason: `the first lines fit both ${best.format} (${best.reason}) and ${second.format} (${second.reason}); give --log-format`, candidates}
  }
  return {format: best.format, confidence: best.confidence, reason: best.reason, candidates}
}

/**
 * Options a format cannot do without, checked once before reading (a usage error, not a
 * bad line per record): openai-batch needs to know how to split custom_id.
 */
export function checkFormatOptions(format: LogFormat, options: FormatOptions): void {
  if (format !== 'openai-batch') return
  const tenant = options.map.tenant_id !== undefined || /\(\?<tenant>/.test(options.customIdPattern?.source ?? '')
  const session = options.map.session_id !== undefined || /\(\?<session>/.test(options.customIdPattern?.source ?? '')
  if (!tenant || !session) {
    const missing = [!tenant ? 'tenant' : '', !session ? 'session' : ''].filter(Boolean).join(' and ')
    throw new FormatOptionError(
      `--log-format openai-batch: the ${missing} of each request is only in custom_id; give --custom-id-pattern with named groups, e.g. '^(?<tenant>[^:]+):(?<session>[^:]+):', or --map ${!tenant ? 'tenant_id' : 'session_id'}=...`,
    )
  }
}
