import {canonicalJson} from '../util/canonical-json.js'
import type {FieldMap} from './parse-record.js'

// How a file's lines are decoded into records: kept with the file (files.parse_spec) so
// that a record's texts can be decoded again from its bytes exactly as ingest did.

export interface ParseSpec {
  /** --map: native field -> path in each line */
  map?: FieldMap
}

/** Canonical JSON ({} when nothing differs from the native defaults). */
export function encodeParseSpec(spec: ParseSpec): string {
  const out: ParseSpec = {}
  if (spec.map && Object.keys(spec.map).length > 0) out.map = spec.map
  return canonicalJson(out)
}

export function decodeParseSpec(json: string): ParseSpec {
  const value = JSON.parse(json) as ParseSpec
  return value && typeof value === 'object' ? value : {}
}
