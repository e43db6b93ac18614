import {finishRecord, notAnObject, single, sniffByShare, type Candidate} from './common.js'
import {isObj} from './messages.js'
import type {FormatAdapter} from './types.js'

// Specification: crosstalk's own native log format, the external contract
// (CONTRACT.md, "Native log format"): one JSON object a line with ts, request_id, tenant_id,
// session_id (required) and status, endpoint, model, prefill_node, decode_node, prompt_tokens,
// completion_tokens, request, response (optional).
//
// Field mapping: the identity. `--map FIELD=SPEC` overrides a field from anywhere in the line
// (field-path.ts), which is how a gateway's own JSON-lines log is read without a converter.

export const native: FormatAdapter<null> = {
  format: 'native',
  specification: 'crosstalk native log format (CONTRACT.md, "Native log format")',

  sniff(first) {
    const result = sniffByShare(
      'native',
      first,
      (o) => 'ts' in o && 'request_id' in o && 'tenant_id' in o && 'session_id' in o,
      'have ts, request_id, tenant_id and session_id',
    )
    return result
  },

  newIndex: () => null,

  adapt(value, ctx) {
    if (!isObj(value)) return notAnObject(value)
    // The line itself is the candidate: values keep their types, so the native decoder sees
    // exactly what it always saw.
    const out = finishRecord({...value} as unknown as Candidate, value, ctx.options, {
      ts: 'the line has no ts; name the field holding the time with --map ts=PATH',
      request_id: 'the line has no request_id; name one with --map request_id=PATH',
      tenant_id: 'the line has no tenant_id; name one with --map tenant_id=PATH (or --map tenant_id=const:NAME)',
      session_id: 'the line has no session_id; name one with --map session_id=PATH',
    })
    if ('record' in out) out.record = {...value, ...out.record} as typeof out.record
    return single(out)
  },
}
