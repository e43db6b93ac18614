import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {z} from 'zod'
import {SIGHTING_CLASSES} from '../extract/markers.js'
import {PII_KINDS} from '../extract/pii.js'

// The published shapes of detection's --json results (schemas/*.schema.json, committed so a
// change in output shows in review; a test checks they match). The result types in list.ts
// are inferred from these, so the code cannot drift from them either.
// Regenerate: npx tsc -p . && node -e "import('./dist/detect/schemas.js').then(m => m.writeDetectSchemas('schemas'))"

const iso = z.string().describe('UTC, toISOString() form')
const sha256 = z.string().regex(/^[0-9a-f]{64}$/)

export const sightingSchema = z.object({
  request_id: z.string(),
  ts: iso,
  class: z.enum(SIGHTING_CLASSES),
  marker: z.string().describe('the registered marker in full, or the token found for an orphan'),
  partial: z.boolean().describe('a 16+ hex-digit strict prefix of registered markers: of one marker, or of several of one session (marker: the first of them), or of several sessions (possible_sources)'),
  recipient_session: z.string(),
  recipient_tenant: z.string(),
  source_session: z.string().nullable().describe('null for orphans, and where the source is ambiguous (possible_sources)'),
  source_tenant: z.string().nullable().describe('null for orphans, and where the source is ambiguous among tenants (possible_sources)'),
  possible_sources: z
    .array(z.object({tenant: z.string(), session: z.string()}))
    .describe(
      'where the marker found is cut short (16+ hex digits) of registered markers of two or more sessions, none of them the recipient\'s own: those sessions (the source is one of them, not known which; the class is the least severe they all give). Empty otherwise',
    ),
  log_source: z.string().describe('the log source of the response (ingest logs --source): a request id is unique within one source, so show REQUEST_ID --source takes it where the id is in several'),
})
export const sightingsResultSchema = z.array(sightingSchema)

export const provenanceEntrySchema = z.object({
  request_id: z.string(),
  ts: iso,
  recipient_session: z.string(),
  recipient_tenant: z.string(),
  source_request_id: z.string(),
  source_ts: iso,
  source_session: z.string(),
  source_tenant: z.string(),
  overlap_words: z.number().int().positive().describe('longest verbatim overlap, in words'),
  overlap_sha256: sha256.describe('SHA-256 of the overlapping words, normalised, joined by single spaces'),
  matched: z.enum(['prompt', 'response']).describe("which of the source's texts the response repeats"),
  candidates: z.number().int().nonnegative().describe('other earlier records that shared fingerprints (before verification)'),
  source_order: z
    .enum(['earlier', 'unknown'])
    .describe(
      "earlier: the source was logged before this response; unknown: the source is a prompt logged after it. A log gives a record's time as when its response was returned, not when its request arrived, so a request in flight (prefilled while this response was decoded) cannot be told from a later one",
    ),
  source_status: z
    .enum(['named', 'ambiguous', 'unknown'])
    .describe(
      'named: source_session/source_tenant are the source; ambiguous: the same overlap is in the prompts (or answers) of source_tenants tenants alike, so source_tenant is one of them, not the source; unknown: only answers whose own prompts were not logged hold it (such an answer may have received the text itself), so source_tenant is where the text was seen, not its source',
    ),
  source_tenants: z.number().int().positive().describe('tenants whose texts hold the overlap alike (1 unless source_status is ambiguous)'),
  possible_sources: z
    .array(z.object({tenant: z.string(), session: z.string()}))
    .nullable()
    .describe('where source_status is ambiguous: the sessions (with their tenants) whose texts hold the overlap alike, each a possible source; null: not recorded (a case scanned before schema 13, or findings imported): scan again. Empty otherwise'),
  overlap_text: z.string().optional().describe('only with --show-text: the normalised overlapping words'),
})
export const provenanceResultSchema = z.array(provenanceEntrySchema)

export const piiFindingSchema = z.object({
  request_id: z.string(),
  ts: iso,
  kind: z.enum(PII_KINDS),
  value_ref: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .describe("the value's reference in this case: HMAC of its hash under a key kept in the case (same value, same reference; not reversible without the case)"),
  recipient_session: z.string(),
  recipient_tenant: z.string(),
  source_request_id: z.string().nullable(),
  source_session: z.string().nullable(),
  source_tenant: z.string().nullable(),
  value: z.string().optional().describe('only with --show-values'),
  value_sha256: sha256.optional().describe('only with --show-values: SHA-256 of "kind:value" as stored (unsalted, so as revealing as the value)'),
})
export const piiResultSchema = z.array(piiFindingSchema)

export const DETECT_SCHEMAS = {
  sightings: sightingsResultSchema,
  provenance: provenanceResultSchema,
  pii: piiResultSchema,
} as const

export function detectJsonSchema(name: keyof typeof DETECT_SCHEMAS): string {
  return JSON.stringify({$id: `crosstalk/${name}.schema.json`, ...z.toJSONSchema(DETECT_SCHEMAS[name])}, null, 2) + '\n'
}

export function writeDetectSchemas(dir: string): string[] {
  return (Object.keys(DETECT_SCHEMAS) as Array<keyof typeof DETECT_SCHEMAS>).map((name) => {
    const path = join(dir, `${name}.schema.json`)
    writeFileSync(path, detectJsonSchema(name))
    return path
  })
}
