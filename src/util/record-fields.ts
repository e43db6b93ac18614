// The fields one record has once its line is decoded, whatever the format: what ingest
// writes to the records table (texts aside, which the evidence keeps) and what verify parses
// again. extract/ produces them and store/ writes them; neither imports the other, so the one
// definition lives here.

/** A record's fields, in the records table's insert order (positional binding is cheaper on the hot path). */
export interface RecordFields {
  request_id: string
  ts: string
  ts_ms: number
  tenant_id: string
  session_id: string
  status: number | null
  endpoint: string | null
  model: string | null
  prefill_node: string | null
  decode_node: string | null
  prompt_tokens: number | null
  completion_tokens: number | null
  cached_tokens: number | null
  stream: number
  response_kind: string
  is_error: number
  error_message: string | null
}
