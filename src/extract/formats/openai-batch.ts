import {epochSecondsTime, finishRecord, intOrNull, notAnObject, single, sniffByShare, strOrNull, unsetTime} from './common.js'
import {errorResponse, isObj, type Obj} from './messages.js'
import type {AdaptContext, AdaptResult, CompanionIndex, FormatAdapter, LinePosition} from './types.js'

// Specification: the OpenAI Batch API's files (https://platform.openai.com/docs/guides/batch,
// API reference "The request input object" / "The request output object"; OpenAPI schema
// BatchRequestInput / BatchRequestOutput):
//   input  line: {"custom_id", "method": "POST", "url": "/v1/chat/completions", "body": {...}}
//   output line: {"id": "batch_req_...", "custom_id", "response": {"status_code", "request_id",
//                 "body": {...}} | null, "error": {"code", "message"} | null}
// The output (and error) file is in no particular order and is joined with the input file by
// custom_id (a companion index of the input lines). An answer whose custom_id is in no input file
// given, or in several (batches reuse custom_ids), is a bad line: without its own request, it
// cannot be judged (a marker the user sent would read as a leak). An error line is kept, its
// request unknown.
//
//   response.request_id, else id  -> request_id
//   response.body.created (created_at of a /v1/responses body) -> ts (epoch SECONDS); error lines have none: --batch-ts
//   custom_id + --custom-id-pattern named groups (?<tenant>) (?<session>) -> tenant_id, session_id
//                                    (everything about the caller is only in custom_id)
//   response.status_code          -> status (the HTTP status of that request)
//   input url                     -> endpoint
//   body.model (input body.model) -> model
//   input body                    -> request
//   response.body, or error       -> response (an error object for a non-HTTP failure)
//
// Unknown in this format, and left null: prefill_node, decode_node; tokens come from the
// response's usage (the native decoder's fallback).
//
// Anthropic's Message Batches (https://docs.anthropic.com/en/api/retrieving-message-batch-results,
// "Retrieve Message Batch results"; MessageBatchIndividualResponse) are read by the same rules:
//   input  line: {"custom_id", "params": {...Messages API request...}} (one of a batch's `requests`)
//   result line: {"custom_id", "result": {"type": "succeeded", "message": {...Messages API message...}}
//                 | {"type": "errored", "error": {"type": "error", "error": {"type", "message"}}}
//                 | {"type": "canceled"} | {"type": "expired"}}
//   result.message.id -> request_id; result.message.model (params.model) -> model
//   result.message    -> response (its content blocks are the answer's text)
//   errored           -> response: an error object with the error's message (its text is searched)
//   canceled, expired -> response: an error object naming the result type: the request was never
//                        processed, so there is no answer, and the record says so (a note)
// A result line carries no time and no HTTP status: ts is --batch-ts (the batch's ended_at) or
// --map, and status is unknown (null).

export interface BatchInputIndex extends CompanionIndex {
  get(customId: string): {method: unknown; url: unknown; body: unknown; at: LinePosition} | undefined
  /** custom_ids seen on more than one line of one input file (the first is kept). */
  readonly duplicates: ReadonlySet<string>
  /**
   * custom_ids found in more than one input file with different requests, with those files. A
   * custom_id is unique only within its batch, and batches reuse them ("request-1"...): joined
   * with the wrong batch's input, an answer would be judged against another request's prompt.
   * The same request in two files (a resubmitted batch) is not in doubt.
   */
  readonly ambiguous: ReadonlyMap<string, readonly string[]>
}

function newBatchIndex(): BatchInputIndex {
  const inputs = new Map<string, {method: unknown; url: unknown; body: unknown; at: LinePosition}>()
  const duplicates = new Set<string>()
  const ambiguous = new Map<string, string[]>()
  return {
    add(line: unknown, at: LinePosition) {
      if (!isObj(line) || !isInputLine(line)) return
      const id = line.custom_id as string
      // A Message Batches request gives its Messages API request as `params`, and no method or url.
      const value: Obj = isMessageBatchInput(line) ? {custom_id: id, method: undefined, url: undefined, body: line.params} : line
      const first = inputs.get(id)
      if (!first) inputs.set(id, {method: value.method, url: value.url, body: value.body, at})
      else if (first.at.file === at.file) duplicates.add(id)
      // The same request in another batch (failed requests resubmitted as a new batch): one prompt, no doubt.
      else if (JSON.stringify(first.body) === JSON.stringify(value.body) && first.url === value.url) return
      else {
        const files = ambiguous.get(id) ?? [first.at.name ?? first.at.file]
        if (!files.includes(at.name ?? at.file)) files.push(at.name ?? at.file)
        ambiguous.set(id, files)
      }
    },
    get: (id) => inputs.get(id),
    duplicates,
    ambiguous,
  }
}

const isMessageBatchInput = (v: Obj): boolean => typeof v.custom_id === 'string' && isObj(v.params) && !('result' in v) && !('body' in v)
const isMessageBatchResult = (v: Obj): boolean => typeof v.custom_id === 'string' && isObj(v.result) && typeof v.result.type === 'string' && !('response' in v)
const isInputLine = (v: unknown): boolean => isObj(v) && typeof v.custom_id === 'string' && (('body' in v && 'url' in v && !('response' in v)) || isMessageBatchInput(v))
const isOutputLine = (v: unknown): boolean => isObj(v) && typeof v.custom_id === 'string' && ('response' in v || 'error' in v || isMessageBatchResult(v))

/** A Message Batches result's types whose request was never processed: no answer was given. */
const UNPROCESSED_RESULTS = new Set(['canceled', 'expired'])

export const openaiBatch: FormatAdapter<BatchInputIndex> = {
  format: 'openai-batch',
  specification: 'OpenAI Batch API input and output files (https://platform.openai.com/docs/api-reference/batch/request-output)',

  sniff(first) {
    const out = sniffByShare('openai-batch', first, (o) => isOutputLine(o) || isInputLine(o), 'are OpenAI Batch or Anthropic Message Batches lines (custom_id with response/error or result, or with method/url/body or params)')
    return out
  },

  newIndex: () => newBatchIndex(),

  adapt(value, ctx): AdaptResult {
    if (!isObj(value)) return notAnObject(value)
    if (isInputLine(value)) return {records: [], problems: [], ignored: 1}
    if (!isOutputLine(value)) return {records: [], problems: [{item: null, reason: 'not a Batch output line (no custom_id with response or error, nor a Message Batches result)'}], ignored: 0}
    if (isMessageBatchResult(value)) return adaptMessageBatchResult(value, ctx)
    const customId = value.custom_id as string
    const notes: string[] = []
    const res: Obj = isObj(value.response) ? value.response : {}
    const body = res.body
    const error: Obj | null = isObj(value.error) ? value.error : null
    // An answer must be judged against its own request: without it, a marker the user sent could
    // not be told from a leak (echo). So must an error line: its message may quote the request
    // (a marker the user sent, repeated in the error, was stated as another tenant's leak). Such
    // a line waits, quarantined, for its input.
    const status = intOrNull(res.status_code)
    const answer = error === null && body !== undefined && body !== null && (status === null || status < 400)
    const what = answer ? 'its answer' : 'its error line'
    const inAll = ctx.index?.ambiguous.get(customId)
    if (inAll) {
      return {records: [], ignored: 0, problems: [{item: null, reason: `custom_id ${JSON.stringify(customId)} is in more than one input file given (${inAll.join(', ')}), so which request it answered is not known${answer ? '' : ' and its error line cannot be judged'}: ingest each batch's output file with its own input file, one ingest per batch`}]}
    }
    const input = ctx.index?.get(customId)
    if (!input) {
      return {records: [], ignored: 0, problems: [{item: null, reason: `custom_id ${JSON.stringify(customId)} is in no input file given, so its request is unknown and ${what} cannot be judged (a marker the user sent would read as a leak): give the batch's input file with its output file (both paths, or their folder)`}]}
    }
    if (ctx.index?.duplicates.has(customId)) notes.push('a custom_id appears more than once in its input file; the first line was used')

    let ts: string | number | null = null
    // A chat or text completion says `created`; a /v1/responses body says `created_at` (both epoch seconds).
    // 0 is a time never set, not 1970: as absent (the --batch-ts fallback, or a missing ts).
    const createdKey = isObj(body) ? (!unsetTime(body.created) ? 'created' : !unsetTime(body.created_at) ? 'created_at' : null) : null
    if (createdKey !== null && ctx.options.map.ts === undefined) {
      const converted = epochSecondsTime((body as Obj)[createdKey], `body.${createdKey}`, `response.body.${createdKey}`)
      // Epoch seconds outside 2000-2100 (milliseconds, most likely): the line's own time is wrong, which --batch-ts would hide.
      if ('bad' in converted) return {records: [], ignored: 0, problems: [{item: null, reason: converted.bad}]}
      ts = converted.iso
    }
    if (ts === null && ctx.options.fallbackTs !== null) {
      ts = ctx.options.fallbackTs
      notes.push('no body.created (or created_at) on this line: the --batch-ts time was used')
    }

    let tenant: string | null = null
    let session: string | null = null
    const pattern = ctx.options.customIdPattern
    let idHint = 'the caller is only in custom_id: give --custom-id-pattern with (?<tenant>...) and (?<session>...) groups, or --map'
    if (pattern) {
      const m = pattern.exec(customId)
      if (m) {
        tenant = strOrNull(m.groups?.tenant)
        session = strOrNull(m.groups?.session)
        idHint = `--custom-id-pattern /${pattern.source}/ has no such group, or it matched empty text in custom_id ${JSON.stringify(customId)}`
      } else idHint = `custom_id ${JSON.stringify(customId)} does not match --custom-id-pattern /${pattern.source}/`
    }

    const response = error !== null && !isObj(value.response) ? errorResponse(strOrNull(error.message) ?? 'batch request failed', {code: strOrNull(error.code)}) : (body ?? null)
    const inputBody: Obj = input && isObj(input.body) ? input.body : {}
    const out = finishRecord(
      {
        ts,
        request_id: strOrNull(res.request_id) ?? strOrNull(value.id),
        tenant_id: tenant,
        session_id: session,
        status,
        endpoint: input ? strOrNull(input.url) : null,
        model: (isObj(body) ? strOrNull(body.model) : null) ?? strOrNull(inputBody.model),
        prefill_node: null,
        decode_node: null,
        prompt_tokens: null,
        completion_tokens: null,
        request: input ? input.body : null,
        response,
      },
      {...value, input: input ? {method: input.method, url: input.url, body: input.body} : null},
      ctx.options,
      {
        ts: 'the line has no response.body.created or created_at (error lines carry none); give the batch completion time with --batch-ts ISO, or --map ts=...',
        request_id: 'the line has neither response.request_id nor id',
        tenant_id: idHint,
        session_id: idHint,
      },
    )
    const result = single(out, notes)
    if (input && result.records[0]) result.records[0].companions = [input.at]
    return result
  },
}

/**
 * One Anthropic Message Batches result line (the header above): a succeeded request's message as
 * its answer, an errored one's error, and a canceled or expired one as an error with no answer.
 * Joined with its request (a `params` input line) by custom_id, under the rules of an OpenAI Batch
 * output line: an answer without its own request is a bad line.
 */
function adaptMessageBatchResult(value: Obj, ctx: AdaptContext<BatchInputIndex>): AdaptResult {
  const customId = value.custom_id as string
  const result = value.result as Obj
  const type = result.type as string
  const notes: string[] = []
  const message: Obj | null = type === 'succeeded' && isObj(result.message) ? result.message : null
  if (type === 'succeeded' && message === null) return {records: [], ignored: 0, problems: [{item: null, reason: 'a Message Batches result of type "succeeded" without its message'}]}
  if (type !== 'succeeded' && type !== 'errored' && !UNPROCESSED_RESULTS.has(type)) {
    return {records: [], ignored: 0, problems: [{item: null, reason: `a Message Batches result of type ${JSON.stringify(type.slice(0, 60))}, which this release does not read`}]}
  }
  // A result with text (an answer, or an error's message, which may quote the request) waits for
  // its request (see adapt above); one canceled or expired carries none, and is kept, its request
  // named unknown.
  const judged = message !== null || type === 'errored'
  const what = message !== null ? 'its answer' : 'its error'
  const inAll = ctx.index?.ambiguous.get(customId)
  if (judged && inAll) {
    return {records: [], ignored: 0, problems: [{item: null, reason: `custom_id ${JSON.stringify(customId)} is in more than one input file given (${inAll.join(', ')}), so which request it answered is not known${message !== null ? '' : ' and its error cannot be judged'}: ingest each batch's results with its own requests file, one ingest per batch`}]}
  }
  const input = inAll ? undefined : ctx.index?.get(customId)
  if (judged && !input) {
    return {records: [], ignored: 0, problems: [{item: null, reason: `custom_id ${JSON.stringify(customId)} is in no input file given, so its request is unknown and ${what} cannot be judged (a marker the user sent would read as a leak): give the batch's requests ({"custom_id", "params"} lines) with its results (both paths, or their folder)`}]}
  }
  if (!input) notes.push(inAll ? 'a result with no answer whose custom_id is in several input files: request unknown' : 'a result with no answer whose custom_id is in no input file given: request unknown')
  else if (ctx.index?.duplicates.has(customId)) notes.push('a custom_id appears more than once in its input file; the first line was used')

  let response: unknown
  if (message !== null) response = message
  else if (type === 'errored') {
    // An ErrorResponse ({"type": "error", "error": {"type", "message"}}), or the inner error alone.
    const outer = isObj(result.error) ? result.error : {}
    const inner = isObj(outer.error) ? outer.error : outer
    response = errorResponse(strOrNull(inner.message) ?? 'batch request errored', {type: strOrNull(inner.type)})
  } else {
    // No answer: the request was never processed. The error's message is crosstalk's, naming the result type.
    response = errorResponse(`Message Batches request ${type}: not processed, no answer`, {type})
    notes.push(`a Message Batches request ${type} before it was processed: no answer`)
  }
  let ts: string | number | null = null
  if (ctx.options.fallbackTs !== null) {
    ts = ctx.options.fallbackTs
    notes.push('a Message Batches result line carries no time: the --batch-ts time was used')
  }
  const inputBody: Obj = input && isObj(input.body) ? input.body : {}
  const {tenant, session, hint} = callerOf(customId, ctx.options.customIdPattern)
  // Only a succeeded result names its message; any other is known by the custom_id the caller gave the request.
  const messageId = message !== null ? strOrNull(message.id) : null
  if (messageId === null) notes.push('no message id: the request is known by its custom_id')
  const out = finishRecord(
    {
      ts,
      request_id: messageId ?? customId,
      tenant_id: tenant,
      session_id: session,
      status: null,
      endpoint: null,
      model: (message !== null ? strOrNull(message.model) : null) ?? strOrNull(inputBody.model),
      prefill_node: null,
      decode_node: null,
      prompt_tokens: null,
      completion_tokens: null,
      request: input ? input.body : null,
      response,
    },
    {...value, input: input ? {params: input.body} : null},
    ctx.options,
    {
      ts: "a Message Batches result line carries no time: give the batch's ended_at with --batch-ts ISO, or --map ts=...",
      tenant_id: hint,
      session_id: hint,
    },
  )
  const adapted = single(out, notes)
  if (input && adapted.records[0]) adapted.records[0].companions = [input.at]
  return adapted
}

/** The tenant and session a custom_id names by --custom-id-pattern's groups, or the hint why not. */
function callerOf(customId: string, pattern: RegExp | null): {tenant: string | null; session: string | null; hint: string} {
  if (!pattern) return {tenant: null, session: null, hint: 'the caller is only in custom_id: give --custom-id-pattern with (?<tenant>...) and (?<session>...) groups, or --map'}
  const m = pattern.exec(customId)
  if (!m) return {tenant: null, session: null, hint: `custom_id ${JSON.stringify(customId)} does not match --custom-id-pattern /${pattern.source}/`}
  return {tenant: strOrNull(m.groups?.tenant), session: strOrNull(m.groups?.session), hint: `--custom-id-pattern /${pattern.source}/ has no such group, or it matched empty text in custom_id ${JSON.stringify(customId)}`}
}
