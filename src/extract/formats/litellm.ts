import {LITELLM_NO_RESPONSE_LOGGED, LITELLM_NO_RESPONSE_STORED} from '../redaction.js'
import {epochSecondsTime, finishRecord, intOrNull, notAnObject, onlyRedacted, pickTime, REDACTED, single, sniffByShare, strOrNull} from './common.js'
import {errorResponse, isObj, parseJsonText, toChatMessages, type Obj} from './messages.js'
import type {FormatAdapter} from './types.js'

// Specification: LiteLLM proxy spend logs, the `LiteLLM_SpendLogs` table as defined by the
// proxy's Prisma schema (BerriAI/litellm, schema.prisma, model LiteLLM_SpendLogs; seen at
// https://github.com/BerriAI/litellm/blob/main/schema.prisma) and its `SpendLogsMetadata` /
// `StandardLoggingPayloadErrorInformation` types (litellm/proxy/_types.py,
// litellm/types/utils.py), one row a line as a JSON export of the table or of /spend/logs writes
// it. Columns read:
//
//   request_id            -> request_id
//   endTime (startTime)   -> ts, as written: the columns are `timestamp without time zone`, so a
//                            zone-less value is passed on zone-less and needs --assume-tz
//   team_id, else metadata.user_api_key_team_id -> tenant_id
//   session_id            -> session_id
//   model (model_group)   -> model
//   prompt_tokens, completion_tokens -> the same, on success rows only (failure rows hold 0)
//   proxy_server_request, else messages -> request (the body; stored only with
//                            store_prompts_in_spend_logs, and `{}` when not stored)
//   response              -> response (the chat completion, assembled when streamed; `{}` when not stored)
//   status "failure"      -> an error response built from metadata.error_information
//                            (error_message, error_class, error_code)
//
// Unknown in this format, and left null: status (no HTTP status is recorded; "success" is not
// 200), endpoint, prefill_node, decode_node. `api_base` names the upstream deployment, not a
// serving node; map it explicitly (--map decode_node=api_base) if that is what you want.
//
// The same proxy's StandardLoggingPayload (what its logging callbacks are handed, and what its
// S3, GCS and other bucket loggers write, one JSON object a request; docs.litellm.ai/docs/proxy/
// logging_spec) is read too, where its names differ:
//
//   id                    -> request_id
//   endTime (startTime)   -> ts: epoch seconds as a float, read to the millisecond
//   trace_id              -> session_id (the session LiteLLM groups calls by: litellm_session_id)
//   metadata.user_api_key_team_id -> tenant_id
//   messages / response   -> request / response; "redacted-by-litellm" (message logging turned
//                            off) is no text, not a prompt
//   status "failure"      -> an error built from error_information (top level), else error_str

const TENANT_HINT = 'the row has no team_id (nor metadata.user_api_key_team_id); name the tenant with --map tenant_id=PATH (e.g. metadata.user_api_key_user_id) or --map tenant_id=const:NAME'

export const litellm: FormatAdapter<null> = {
  format: 'litellm',
  specification: 'LiteLLM proxy spend logs: LiteLLM_SpendLogs (BerriAI/litellm schema.prisma; https://docs.litellm.ai/docs/proxy/cost_tracking)',

  sniff(first) {
    return sniffByShare(
      'litellm',
      first,
      (o) => ('request_id' in o || ('id' in o && 'trace_id' in o)) && ('startTime' in o || 'endTime' in o) && ('call_type' in o || 'spend' in o || 'api_key' in o || 'response_cost' in o),
      'are LiteLLM spend-log rows or logging payloads (request_id or id and trace_id, startTime/endTime, call_type/spend/api_key/response_cost)',
    )
  },

  newIndex: () => null,

  adapt(value, ctx) {
    if (!isObj(value)) return notAnObject(value)
    const metadata = parseJsonText(value.metadata)
    const meta: Obj = isObj(metadata) ? metadata : {}
    const failed = value.status === 'failure'
    const notes: string[] = []

    // A logging payload (StandardLoggingPayload) rather than a spend-log row: no request_id column, its id instead.
    const payload = !('request_id' in value) && 'id' in value
    const request = requestBody(value)
    if (request === null) notes.push(payload ? 'no request text logged (message logging turned off, or redacted)' : 'no request body stored (LiteLLM stores it only with store_prompts_in_spend_logs)')
    const rawResponse = parseJsonText(value.response)
    let response = stored(rawResponse)
    // LiteLLM's placeholder in a spend-log row too says message logging was off, not that the body was left out.
    const placeholder = onlyRedacted(rawResponse)
    if (failed) {
      const top = isObj(value.error_information) ? value.error_information : null
      const info = top ?? (isObj(meta.error_information) ? meta.error_information : {})
      const message = strOrNull(info.error_message) ?? strOrNull(value.error_str) ?? 'LiteLLM recorded status "failure" without an error message'
      response = errorResponse(message, {type: strOrNull(info.error_class), code: strOrNull(info.error_code)})
    } else if (response === null) notes.push(payload || placeholder ? LITELLM_NO_RESPONSE_LOGGED : LITELLM_NO_RESPONSE_STORED)
    // 0 or '' is a time never set (a payload's endTime: 0), not 1970: the next key is read.
    const tsKey = ['endTime', 'end_time', 'startTime', 'start_time'].find((k) => pickTime(value, k) !== undefined)
    const rawTs = tsKey === undefined ? undefined : value[tsKey]
    let ts: string | number | undefined = rawTs as string | number | undefined
    // A payload's times are epoch seconds (floats); a spend-log row's are timestamps as written.
    if (payload && typeof rawTs === 'number' && ctx.options.map.ts === undefined) {
      const converted = epochSecondsTime(rawTs, tsKey!, tsKey!)
      if ('bad' in converted) return {records: [], ignored: 0, problems: [{item: null, reason: converted.bad}]}
      ts = converted.iso
    }

    const out = finishRecord(
      {
        ts,
        request_id: strOrNull(value.request_id) ?? (payload ? strOrNull(value.id) : null),
        tenant_id: strOrNull(value.team_id) ?? strOrNull(meta.user_api_key_team_id),
        session_id: strOrNull(value.session_id) ?? (payload ? strOrNull(value.trace_id) : null),
        status: null,
        endpoint: null,
        model: strOrNull(value.model) ?? strOrNull(value.model_group),
        prefill_node: null,
        decode_node: null,
        // A failure row's zero tokens mean "not counted", not "no tokens".
        prompt_tokens: failed ? null : intOrNull(value.prompt_tokens),
        completion_tokens: failed ? null : intOrNull(value.completion_tokens),
        request,
        response,
      },
      // --map reads the row with its JSON-text columns parsed (a Postgres export writes metadata as text).
      {...value, metadata, messages: parseJsonText(value.messages), response: rawResponse, proxy_server_request: parseJsonText(value.proxy_server_request)},
      ctx.options,
      {
        ts: 'the row has no endTime or startTime',
        request_id: 'the row has no request_id (nor, in a logging payload, an id)',
        tenant_id: TENANT_HINT,
        session_id: 'the row has no session_id (nor, in a logging payload, a trace_id; LiteLLM fills them from litellm_session_id / the session header); name one with --map session_id=PATH',
      },
    )
    return single(out, notes)
  },
}

function requestBody(row: Obj): unknown {
  const proxy = stored(parseJsonText(row.proxy_server_request))
  if (proxy !== null) return proxy
  const messages = stored(parseJsonText(row.messages))
  if (messages === null) return null
  // A logging payload says whether the call streamed (top-level stream, or its model_parameters).
  const params = parseJsonText(row.model_parameters)
  const stream = row.stream === true || (isObj(params) && params.stream === true) ? {stream: true} : {}
  if (Array.isArray(messages)) return {messages: toChatMessages(messages), ...stream}
  if (isObj(messages)) return {...messages, ...stream}
  return messages
}

/**
 * LiteLLM's column defaults (`{}`, `[]`, '') mean "not stored", and its redaction marker "not
 * logged": unknown, not an empty body or a text.
 */
function stored(v: unknown): unknown {
  if (v === undefined || v === null || v === '' || v === REDACTED || onlyRedacted(v)) return null
  if (isObj(v) && Object.keys(v).length === 0) return null
  if (Array.isArray(v) && v.length === 0) return null
  return v
}

