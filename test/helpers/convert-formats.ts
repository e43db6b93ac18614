import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'

// Independent converters for tests: a native JSONL incident (as `crosstalk generate` writes it)
// rewritten in each other format the way those tools would have recorded the same traffic.
// They share no code with src/: they read the native lines with their own idea of "what the
// client received" (SSE reassembled as an SDK does, JSON-in-a-string parsed, error bodies
// recognised) and write what an instrumented client, a Langfuse SDK, a LiteLLM proxy or the
// Batch API would. What a format cannot carry is dropped the way the tool drops it (LiteLLM
// keeps no status or node; a failed LiteLLM call keeps no partial text; Batch is never streamed).
//
// Deterministic: the same incident gives the same files. Forms are mixed by record number, so
// every adapter path is exercised on one incident.

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface NativeLine {
  file: string
  line: number
  value: Obj
}

/** Every native line that is a JSON object with the four required fields (the rest are the incident's deliberate bad lines). */
export function readNativeIncident(logsDir: string): NativeLine[] {
  const out: NativeLine[] = []
  for (const name of readdirSync(logsDir).sort()) {
    if (!/\.jsonl(\.gz)?$/.test(name)) continue
    let data = readFileSync(join(logsDir, name))
    if (name.endsWith('.gz')) data = gunzipSync(data)
    const text = data.toString('utf8').replace(/^\uFEFF/, '')
    text.split('\n').forEach((raw, i) => {
      const line = raw.replace(/\r$/, '')
      if (line.trim() === '') return
      let v: unknown
      try {
        v = JSON.parse(line)
      } catch {
        return
      }
      if (!isObj(v)) return
      if (['ts', 'request_id', 'tenant_id', 'session_id'].some((k) => v[k] === undefined || v[k] === null || v[k] === '')) return
      out.push({file: name, line: i + 1, value: v})
    })
  }
  return out
}

// ------------------------------------------------------------------ what the client saw

interface Message {
  role: string
  texts: string[]
  toolCalls: {id: string | null; name: string; args: string}[]
}

interface Choice {
  text: string[]
  reasoning: string | null
  toolCalls: {id: string | null; name: string; args: string}[]
  finish: string | null
}

export interface ClientView {
  /** Chat messages, or null for a completions prompt / raw text. */
  messages: Message[] | null
  /** Completions prompt strings (each a user turn), or raw request text. */
  prompts: string[] | null
  choices: Choice[] | null
  error: string | null
  kind: 'chat' | 'completion' | 'text'
  usage: {prompt: number | null; completion: number | null}
  /** Epoch milliseconds of the native ts. */
  ms: number
  /** Nanoseconds since the epoch, as decimal text (sub-millisecond digits kept). */
  ns: string
}

function partsText(content: unknown): string[] {
  if (typeof content === 'string') return [content]
  if (!Array.isArray(content)) return []
  return content.flatMap((p) => (typeof p === 'string' ? [p] : isObj(p) && typeof p.text === 'string' ? [p.text] : []))
}

function calls(list: unknown): Choice['toolCalls'] {
  if (!Array.isArray(list)) return []
  return list.flatMap((c) =>
    isObj(c) && isObj(c.function) && typeof c.function.arguments === 'string'
      ? [{id: typeof c.id === 'string' ? c.id : null, name: String(c.function.name ?? ''), args: c.function.arguments}]
      : [],
  )
}

function viewRequest(body: unknown): {messages: Message[] | null; prompts: string[] | null} {
  if (typeof body === 'string') {
    const t = body.trimStart()
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        const parsed = JSON.parse(body) as unknown
        if (isObj(parsed) || Array.isArray(parsed)) return viewRequest(parsed)
      } catch {
        // text
      }
    }
    return {messages: null, prompts: [body]}
  }
  if (Array.isArray(body)) body = {messages: body}
  if (!isObj(body)) return {messages: null, prompts: null}
  const messages: Message[] = []
  if (typeof body.system === 'string') messages.push({role: 'system', texts: [body.system], toolCalls: []})
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (typeof m === 'string') messages.push({role: 'user', texts: [m], toolCalls: []})
      else if (isObj(m)) messages.push({role: String(m.role ?? 'user'), texts: partsText(m.content), toolCalls: calls(m.tool_calls)})
    }
  }
  if (messages.length > 0) return {messages, prompts: null}
  if (typeof body.prompt === 'string') return {messages: null, prompts: [body.prompt]}
  if (Array.isArray(body.prompt)) return {messages: null, prompts: body.prompt.filter((p): p is string => typeof p === 'string')}
  return {messages: null, prompts: null}
}

function errorIn(o: Obj): string | null {
  if (o.object === 'error') return typeof o.message === 'string' ? o.message : 'error'
  if (isObj(o.error)) return typeof o.error.message === 'string' ? o.error.message : JSON.stringify(o.error)
  if (typeof o.error === 'string') return o.error
  return null
}

function viewResponse(body: unknown): {choices: Choice[] | null; error: string | null; kind: ClientView['kind']; usage: Obj | null} {
  if (body === undefined || body === null) return {choices: null, error: null, kind: 'text', usage: null}
  if (typeof body === 'string') {
    const t = body.trimStart()
    if (t.startsWith('data:') || t.startsWith('event:') || t.startsWith(':')) return reassembleStream(body)
    if (t.startsWith('{')) {
      try {
        const parsed = JSON.parse(body) as unknown
        if (isObj(parsed)) return viewResponse(parsed)
      } catch {
        // text
      }
    }
    return {choices: [{text: [body], reasoning: null, toolCalls: [], finish: 'stop'}], error: null, kind: 'text', usage: null}
  }
  if (!isObj(body)) return {choices: [{text: [JSON.stringify(body)], reasoning: null, toolCalls: [], finish: null}], error: null, kind: 'text', usage: null}
  const error = errorIn(body)
  let choices: Choice[] | null = null
  let kind: ClientView['kind'] = 'text'
  if (Array.isArray(body.choices)) {
    choices = []
    for (const c of body.choices) {
      if (!isObj(c)) continue
      if (isObj(c.message)) {
        kind = 'chat'
        choices.push({
          text: partsText(c.message.content),
          reasoning: typeof c.message.reasoning_content === 'string' ? c.message.reasoning_content : null,
          toolCalls: calls(c.message.tool_calls),
          finish: typeof c.finish_reason === 'string' ? c.finish_reason : null,
        })
      } else if (typeof c.text === 'string') {
        kind = 'completion'
        choices.push({text: [c.text], reasoning: null, toolCalls: [], finish: typeof c.finish_reason === 'string' ? c.finish_reason : null})
      }
    }
  }
  return {choices, error, kind, usage: isObj(body.usage) ? body.usage : null}
}

/** What an SDK accumulates from a stream: text per choice in order, tool-call arguments per call, an error event as an error. */
function reassembleStream(raw: string): ReturnType<typeof viewResponse> {
  const byIndex = new Map<number, Choice>()
  const tools: Choice['toolCalls'] = []
  const toolAt = new Map<string, number>()
  let error: string | null = null
  let usage: Obj | null = null
  let kind: ClientView['kind'] = 'completion'
  let errorNext = false
  for (const line of raw.split(/\r?\n/)) {
    if (line.startsWith('event:')) {
      errorNext = line.slice(6).trim() === 'error'
      continue
    }
    if (!line.startsWith('data:')) continue
    const payload = line.slice(5).trim()
    if (payload === '[DONE]') break
    let chunk: unknown
    try {
      chunk = JSON.parse(payload)
    } catch {
      continue
    }
    if (!isObj(chunk)) continue
    const e = errorIn(chunk)
    if (e !== null || errorNext) {
      error = e ?? JSON.stringify(chunk)
      errorNext = false
      continue
    }
    if (isObj(chunk.usage)) usage = chunk.usage
    if (!Array.isArray(chunk.choices)) continue
    for (const c of chunk.choices) {
      if (!isObj(c)) continue
      const index = typeof c.index === 'number' ? c.index : 0
      const choice = byIndex.get(index) ?? {text: [''], reasoning: null, toolCalls: [], finish: null}
      byIndex.set(index, choice)
      if (typeof c.finish_reason === 'string') choice.finish = c.finish_reason
      if (isObj(c.delta)) {
        kind = 'chat'
        const d = c.delta
        if (typeof d.reasoning_content === 'string') choice.text[0] += d.reasoning_content
        choice.text[0] += partsText(d.content).join('')
        if (Array.isArray(d.tool_calls)) {
          for (const t of d.tool_calls) {
            if (!isObj(t) || !isObj(t.function) || typeof t.function.arguments !== 'string') continue
            const key = `${index}:${typeof t.index === 'number' ? t.index : 0}`
            let at = toolAt.get(key)
            if (at === undefined) {
              at = tools.push({id: typeof t.id === 'string' ? t.id : null, name: String(t.function.name ?? ''), args: ''}) - 1
              toolAt.set(key, at)
            }
            tools[at]!.args += t.function.arguments
          }
        }
      } else if (typeof c.text === 'string') choice.text[0] += c.text
    }
  }
  const choices = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c)
  // A stream's tool calls were decoded after every choice's text: keep them on the last choice.
  if (tools.length > 0) {
    if (choices.length === 0) choices.push({text: [], reasoning: null, toolCalls: [], finish: 'tool_calls'})
    choices[choices.length - 1]!.toolCalls.push(...tools)
  }
  for (const c of choices) if (c.text.length === 1 && c.text[0] === '' && c.toolCalls.length > 0) c.text = []
  return {choices: choices.length > 0 ? choices : null, error, kind, usage}
}

/** The native ts as epoch ms and ns text: ISO with Z or offset, zone-less (UTC, Langfuse style), or epoch ms. */
function instant(ts: unknown): {ms: number; ns: string} {
  if (typeof ts === 'number') return {ms: Math.floor(ts), ns: `${BigInt(Math.floor(ts)) * 1_000_000n}`}
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?\s*(Z|z|[+-]\d{2}:?\d{2})?$/.exec(String(ts).trim())
  if (!m) {
    const n = Number(ts)
    return {ms: n, ns: `${BigInt(Math.floor(n)) * 1_000_000n}`}
  }
  const zone = m[4] === undefined || m[4] === 'z' ? 'Z' : m[4].length === 5 ? `${m[4].slice(0, 3)}:${m[4].slice(3)}` : m[4]
  const whole = Date.parse(`${m[1]}T${m[2]}${m[2]!.length === 5 ? ':00' : ''}${zone}`)
  const frac = (m[3] ?? '').slice(0, 9).padEnd(9, '0')
  const ns = BigInt(whole) * 1_000_000n + BigInt(frac)
  return {ms: whole + Math.floor(Number(frac) / 1e6), ns: ns.toString()}
}

export function clientView(v: Obj): ClientView {
  const req = viewRequest(v.request)
  const res = viewResponse(v.response)
  const usage = isObj(res.usage) ? res.usage : {}
  const num = (x: unknown): number | null => (typeof x === 'number' && Number.isInteger(x) ? x : null)
  const t = instant(v.ts)
  return {
    messages: req.messages,
    prompts: req.prompts,
    choices: res.choices,
    error: res.error,
    kind: res.kind,
    usage: {prompt: num(v.prompt_tokens) ?? num(usage.prompt_tokens), completion: num(v.completion_tokens) ?? num(usage.completion_tokens)},
    ms: t.ms,
    ns: t.ns,
  }
}

// ------------------------------------------------------------------ OpenTelemetry

type AnyValue = Obj

function any(v: unknown): AnyValue {
  if (typeof v === 'string') return {stringValue: v}
  if (typeof v === 'boolean') return {boolValue: v}
  if (typeof v === 'number') return Number.isInteger(v) ? {intValue: String(v)} : {doubleValue: v}
  if (Array.isArray(v)) return {arrayValue: {values: v.map(any)}}
  if (isObj(v)) return {kvlistValue: {values: Object.entries(v).filter(([, x]) => x !== undefined && x !== null).map(([key, x]) => ({key, value: any(x)}))}}
  return {}
}
const kv = (key: string, v: unknown) => ({key, value: any(v)})

function hex(seed: string, length: number): string {
  // FNV-1a rounds over the seed: stable, well spread, no crypto needed for test ids.
  let out = ''
  let h = 0x811c9dc5
  for (let round = 0; out.length < length; round++) {
    for (const ch of `${seed}#${round}`) {
      h ^= ch.charCodeAt(0)
      h = Math.imul(h, 0x01000193) >>> 0
    }
    out += h.toString(16).padStart(8, '0')
  }
  return out.slice(0, length)
}

function partsMessages(view: ClientView): Obj[] {
  if (view.messages) {
    return view.messages.map((m) => ({
      role: m.role,
      parts: [
        ...m.texts.map((content) => ({type: 'text', content})),
        ...m.toolCalls.map((c) => ({type: 'tool_call', id: c.id, name: c.name, arguments: c.args})),
      ],
    }))
  }
  return (view.prompts ?? []).map((p) => ({role: 'user', parts: [{type: 'text', content: p}]}))
}

function outputParts(view: ClientView, structuredArgs: boolean): Obj[] {
  return (view.choices ?? []).map((c) => ({
    role: 'assistant',
    parts: [
      ...(c.reasoning !== null ? [{type: 'reasoning', content: c.reasoning}] : []),
      ...c.text.map((content) => ({type: 'text', content})),
      ...c.toolCalls.map((t) => ({type: 'tool_call', id: t.id, name: t.name, arguments: structuredArgs && isJsonObjectText(t.args) ? JSON.parse(t.args) : t.args})),
    ],
    finish_reason: view.error !== null ? 'error' : (c.finish ?? 'stop'),
  }))
}

/** A choice's text as one string (reasoning first, on its own line), or null when it has none: the single-string forms. */
function choiceContent(c: Choice): string | null {
  const parts = [c.reasoning, c.text.join('')].filter((t): t is string => t !== null && t !== '')
  if (parts.length > 0) return parts.join('\n')
  return c.text.length > 0 ? '' : null
}

/** Only arguments that JSON.stringify writes back byte for byte are recorded structured. */
function isJsonObjectText(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as unknown
    return isObj(parsed) && JSON.stringify(parsed) === text
  } catch {
    return false
  }
}

export interface OtelConversion {
  traces: string[]
  logs: string[]
}

/**
 * Five content forms, by record number: (0) gen_ai.*.messages as JSON strings on the span,
 * (1) the same structured, (2) OpenLLMetry gen_ai.prompt.N / gen_ai.completion.N attributes,
 * (3) the JS instrumentation's log records (span without content), (4) v1.26
 * gen_ai.content.* span events. Every request also has an application span that carries
 * session.id (and tenant.id for half of them; the others have it on the resource), exported
 * in a later batch than its child. Export requests hold 7 spans, of several requests.
 */
export function toOtel(lines: readonly NativeLine[]): OtelConversion {
  type Pending = {tenant: string; tenantOnResource: boolean; span: Obj}
  const pending: Pending[] = []
  const logRecords: {tenant: string; record: Obj}[] = []
  const traces: string[] = []
  const logs: string[] = []
  const scope = {name: '@opentelemetry/instrumentation-openai', version: '0.21.0'}
  const flushSpans = (all = false) => {
    while (pending.length >= 7 || (all && pending.length > 0)) {
      const batch = pending.splice(0, 7)
      const byResource = new Map<string, Pending[]>()
      for (const p of batch) {
        const key = p.tenantOnResource ? p.tenant : ''
        byResource.set(key, [...(byResource.get(key) ?? []), p])
      }
      traces.push(
        JSON.stringify({
          resourceSpans: [...byResource.entries()].map(([tenant, ps]) => ({
            resource: {attributes: [kv('service.name', 'chat-gateway'), ...(tenant ? [kv('tenant.id', tenant)] : [])]},
            scopeSpans: [{scope, spans: ps.map((p) => p.span)}],
          })),
        }),
      )
    }
    while (logRecords.length >= 9 || (all && logRecords.length > 0)) {
      const batch = logRecords.splice(0, 9)
      logs.push(JSON.stringify({resourceLogs: [{resource: {attributes: [kv('service.name', 'chat-gateway')]}, scopeLogs: [{scope, logRecords: batch.map((b) => b.record)}]}]}))
    }
  }
  let deferredParents: Pending[] = []
  lines.forEach((l, n) => {
    const v = l.value
    const view = clientView(v)
    const tenant = String(v.tenant_id)
    const form = n % 5
    const traceId = hex(`${l.file}:${l.line}:trace`, 32)
    const spanId = hex(`${l.file}:${l.line}:chat`, 16)
    const parentId = hex(`${l.file}:${l.line}:app`, 16)
    const tenantOnResource = n % 2 === 0
    const start = (BigInt(view.ns) - 1_500_000_000n).toString()
    const attrs: Obj[] = [
      kv('gen_ai.operation.name', view.kind === 'completion' ? 'text_completion' : 'chat'),
      kv('gen_ai.system', 'openai'),
      kv('gen_ai.response.id', String(v.request_id)),
    ]
    if (typeof v.model === 'string') attrs.push(kv('gen_ai.request.model', v.model))
    if (typeof v.decode_node === 'string') attrs.push(kv('server.address', v.decode_node))
    if (view.usage.prompt !== null) attrs.push(kv('gen_ai.usage.input_tokens', view.usage.prompt))
    if (view.usage.completion !== null) attrs.push(kv('gen_ai.usage.output_tokens', view.usage.completion))
    if (form < 2 && typeof v.status === 'number') attrs.push(kv('http.response.status_code', v.status))
    const input = partsMessages(view)
    const output = outputParts(view, form === 1)
    const events: Obj[] = []
    if (form === 0) {
      attrs.push(kv('gen_ai.input.messages', JSON.stringify(input)))
      if (output.length > 0) attrs.push(kv('gen_ai.output.messages', JSON.stringify(output)))
    } else if (form === 1) {
      attrs.push(kv('gen_ai.input.messages', input))
      if (output.length > 0) attrs.push(kv('gen_ai.output.messages', output))
    } else if (form === 2) {
      ;(view.messages ?? (view.prompts ?? []).map((p) => ({role: 'user', texts: [p], toolCalls: []}))).forEach((m, i) => {
        attrs.push(kv(`gen_ai.prompt.${i}.role`, m.role))
        attrs.push(kv(`gen_ai.prompt.${i}.content`, m.texts.length === 1 ? m.texts[0]! : JSON.stringify(m.texts.map((text) => ({type: 'text', text})))))
      })
      ;(view.choices ?? []).forEach((c, i) => {
        attrs.push(kv(`gen_ai.completion.${i}.role`, 'assistant'))
        const content = choiceContent(c)
        if (content !== null) attrs.push(kv(`gen_ai.completion.${i}.content`, content))
        if (c.finish) attrs.push(kv(`gen_ai.completion.${i}.finish_reason`, c.finish))
        c.toolCalls.forEach((t, j) => {
          if (t.id) attrs.push(kv(`gen_ai.completion.${i}.tool_calls.${j}.id`, t.id))
          attrs.push(kv(`gen_ai.completion.${i}.tool_calls.${j}.name`, t.name))
          attrs.push(kv(`gen_ai.completion.${i}.tool_calls.${j}.arguments`, t.args))
        })
      })
    } else if (form === 3) {
      // The JS instrumentation: one log record per input message, one gen_ai.choice per choice.
      const rec = (event: string, body: Obj, time: string) => ({
        timeUnixNano: time,
        observedTimeUnixNano: time,
        severityNumber: 9,
        body: any(body),
        attributes: [kv('event.name', event), kv('gen_ai.system', 'openai')],
        traceId,
        spanId,
      })
      for (const m of view.messages ?? (view.prompts ?? []).map((p) => ({role: 'user', texts: [p], toolCalls: []}))) {
        const body: Obj = {content: m.texts.join('')}
        if (m.toolCalls.length > 0) body.tool_calls = m.toolCalls.map((c) => ({id: c.id, type: 'function', function: {name: c.name, arguments: c.args}}))
        logRecords.push({tenant, record: rec(`gen_ai.${['system', 'user', 'assistant', 'tool'].includes(m.role) ? m.role : 'user'}.message`, body, start)})
      }
      ;(view.choices ?? []).forEach((c, index) => {
        const message: Obj = {}
        const content = choiceContent(c)
        if (content !== null) message.content = content
        if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.map((t) => ({id: t.id, type: 'function', function: {name: t.name, arguments: t.args}}))
        logRecords.push({tenant, record: rec('gen_ai.choice', {finish_reason: view.error !== null ? 'error' : (c.finish ?? 'stop'), index, message}, view.ns)})
      })
    } else {
      const prompt = view.messages
        ? JSON.stringify(view.messages.map((m) => ({role: m.role, content: m.texts.length === 1 ? m.texts[0] : m.texts.map((text) => ({type: 'text', text}))})))
        : (view.prompts ?? []).join('\n')
      events.push({timeUnixNano: start, name: 'gen_ai.content.prompt', attributes: [kv('gen_ai.prompt', prompt)]})
      if (view.choices) {
        const completion = view.choices.map((c) => {
          const msg: Obj = {role: 'assistant', content: choiceContent(c)}
          if (c.toolCalls.length > 0) msg.tool_calls = c.toolCalls.map((t) => ({id: t.id, type: 'function', function: {name: t.name, arguments: t.args}}))
          return msg
        })
        events.push({timeUnixNano: view.ns, name: 'gen_ai.content.completion', attributes: [kv('gen_ai.completion', JSON.stringify(completion))]})
      }
    }
    const status = view.error !== null ? {code: 2, message: view.error} : {}
    if (view.error !== null) attrs.push(kv('error.type', 'APIError'))
    pending.push({
      tenant,
      tenantOnResource,
      span: {traceId, spanId, parentSpanId: parentId, name: `chat ${String(v.model ?? '')}`.trim(), kind: 3, startTimeUnixNano: start, endTimeUnixNano: view.ns, attributes: attrs, events, status},
    })
    // The application span ends after its child and is exported with a later batch.
    deferredParents.push({
      tenant,
      tenantOnResource,
      span: {
        traceId,
        spanId: parentId,
        name: 'POST /chat',
        kind: 2,
        startTimeUnixNano: (BigInt(start) - 1_000_000n).toString(),
        endTimeUnixNano: (BigInt(view.ns) + 1_000_000n).toString(),
        attributes: [kv('session.id', String(v.session_id)), ...(tenantOnResource ? [] : [kv('tenant.id', tenant)]), kv('http.route', '/chat')],
        status: {},
      },
    })
    if (deferredParents.length >= 4) {
      pending.push(...deferredParents)
      deferredParents = []
    }
    flushSpans()
  })
  pending.push(...deferredParents)
  flushSpans(true)
  return {traces, logs}
}

// ------------------------------------------------------------------ Langfuse

function langfuseInput(view: ClientView): unknown {
  if (view.messages) return view.messages.map((m) => toOpenAiMessage(m))
  const p = view.prompts ?? []
  return p.length === 1 ? p[0] : p.length === 0 ? null : p
}

function toOpenAiMessage(m: Message): Obj {
  const msg: Obj = {role: m.role, content: m.texts.length === 1 ? m.texts[0] : m.texts.length === 0 ? null : m.texts.map((text) => ({type: 'text', text}))}
  if (m.toolCalls.length > 0) msg.tool_calls = m.toolCalls.map((c) => ({id: c.id, type: 'function', function: {name: c.name, arguments: c.args}}))
  return msg
}

function assistantMessage(c: Choice): Obj {
  const content = c.text.length === 0 ? null : c.text.join('')
  const msg: Obj = {role: 'assistant', content}
  if (c.reasoning !== null) msg.reasoning_content = c.reasoning
  if (c.toolCalls.length > 0) msg.tool_calls = c.toolCalls.map((t) => ({id: t.id, type: 'function', function: {name: t.name, arguments: t.args}}))
  return msg
}

function langfuseOutput(view: ClientView): unknown {
  const choices = view.choices ?? []
  if (choices.length === 0) return null
  if (view.kind === 'completion' || view.kind === 'text') {
    if (choices.length === 1 && choices[0]!.toolCalls.length === 0) return choices[0]!.text.join('')
  }
  if (choices.length === 1) return assistantMessage(choices[0]!)
  return choices.map(assistantMessage)
}

function langfuseTime(ms: number, ns: string, snake: boolean): string {
  const iso = new Date(ms).toISOString()
  const micro = ns.slice(-9, -3)
  return snake ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${micro}` : `${iso.slice(0, 19)}.${micro.slice(0, 3)}Z`
}

/** Observation exports: API v2 style (camelCase, I/O as JSON strings) and blob-export style (snake_case, zone-less UTC), alternating; a SPAN observation every fifth line. */
export function toLangfuse(lines: readonly NativeLine[]): string[] {
  const out: string[] = []
  lines.forEach((l, n) => {
    const v = l.value
    const view = clientView(v)
    const snake = n % 2 === 1
    const input = langfuseInput(view)
    const output = view.error !== null && (view.choices === null || view.choices.every((c) => c.text.join('') === '' && c.toolCalls.length === 0)) ? null : langfuseOutput(view)
    const level = view.error !== null ? 'ERROR' : 'DEFAULT'
    const usage = {input: view.usage.prompt ?? undefined, output: view.usage.completion ?? undefined}
    const traceId = hex(`${l.file}:${l.line}:lf`, 32)
    if (snake) {
      out.push(
        JSON.stringify({
          id: v.request_id,
          trace_id: traceId,
          project_id: 'proj-1',
          type: 'GENERATION',
          name: 'chat',
          start_time: langfuseTime(view.ms - 1500, view.ns, true),
          end_time: langfuseTime(view.ms, view.ns, true),
          input,
          output,
          metadata: {tenant_id: v.tenant_id, gateway: v.gateway},
          provided_model_name: v.model ?? null,
          usage_details: usage,
          level,
          status_message: view.error ?? '',
          session_id: v.session_id,
          user_id: null,
        }),
      )
    } else {
      out.push(
        JSON.stringify({
          id: v.request_id,
          traceId,
          startTime: langfuseTime(view.ms - 1500, view.ns, false),
          endTime: langfuseTime(view.ms, view.ns, false),
          projectId: 'proj-1',
          parentObservationId: null,
          type: 'GENERATION',
          name: 'chat',
          level,
          statusMessage: view.error ?? '',
          input: input === null ? null : JSON.stringify(view.messages ? {messages: input} : input),
          output: output === null ? null : JSON.stringify(output),
          metadata: {tenant_id: v.tenant_id},
          model: v.model ?? null,
          usageDetails: usage,
          sessionId: v.session_id,
          userId: null,
        }),
      )
    }
    if (n % 5 === 4) out.push(JSON.stringify({id: `${String(v.request_id)}-span`, traceId, type: 'SPAN', name: 'retrieve', startTime: langfuseTime(view.ms - 2000, view.ns, false), input: {q: 'x'}}))
  })
  return out
}

// ------------------------------------------------------------------ LiteLLM

function completionObject(view: ClientView, created: number, model: unknown): Obj {
  const choices = view.choices ?? []
  if (view.kind === 'completion') {
    return {id: 'cmpl-x', object: 'text_completion', created, model, choices: choices.map((c, index) => ({index, text: c.text.join(''), finish_reason: c.finish}))}
  }
  return {id: 'chatcmpl-x', object: 'chat.completion', created, model, choices: choices.map((c, index) => ({index, message: assistantMessage(c), finish_reason: c.finish}))}
}

function requestObject(v: Obj, view: ClientView): Obj {
  if (view.messages) return {model: v.model, messages: view.messages.map(toOpenAiMessage)}
  const p = view.prompts ?? []
  return {model: v.model, prompt: p.length === 1 ? p[0] : p}
}

/** Spend-log rows: zone-less UTC times, no status code, no nodes; failures keep no response and 0 tokens. */
export function toLitellm(lines: readonly NativeLine[]): string[] {
  return lines.map((l, n) => {
    const v = l.value
    const view = clientView(v)
    const failed = view.error !== null
    // Postgres `timestamp without time zone`, exported with a T or a space, microseconds kept.
    const wall = (ms: number) => {
      const iso = new Date(ms).toISOString()
      return `${iso.slice(0, 10)}${n % 2 === 0 ? 'T' : ' '}${iso.slice(11, 23)}${view.ns.slice(-6, -3)}`
    }
    const body = requestObject(v, view)
    return JSON.stringify({
      request_id: v.request_id,
      call_type: view.kind === 'completion' ? 'atext_completion' : 'acompletion',
      api_key: hex(String(v.tenant_id), 64),
      spend: failed ? 0 : 0.0001,
      total_tokens: failed ? 0 : (view.usage.prompt ?? 0) + (view.usage.completion ?? 0),
      prompt_tokens: failed ? 0 : (view.usage.prompt ?? 0),
      completion_tokens: failed ? 0 : (view.usage.completion ?? 0),
      startTime: wall(view.ms - 1500),
      endTime: wall(view.ms),
      model: v.model ?? '',
      model_group: v.model ?? '',
      api_base: 'http://serving.internal:8000/v1',
      user: '',
      metadata: JSON.stringify({
        user_api_key_team_id: v.tenant_id,
        status: failed ? 'failure' : 'success',
        error_information: failed ? {error_code: String(v.status ?? ''), error_class: 'APIError', llm_provider: 'openai', error_message: view.error} : null,
      }),
      cache_hit: 'False',
      team_id: v.tenant_id,
      end_user: '',
      // Older releases stored the messages column; newer ones the whole proxy_server_request.
      messages: n % 3 === 0 && view.messages ? view.messages.map(toOpenAiMessage) : {},
      proxy_server_request: n % 3 === 0 && view.messages ? {} : body,
      response: failed ? {} : completionObject(view, Math.floor(view.ms / 1000), v.model ?? null),
      session_id: v.session_id,
      status: failed ? 'failure' : 'success',
    })
  })
}

// ------------------------------------------------------------------ OpenAI Batch

export interface BatchConversion {
  input: string[]
  output: string[]
  errors: string[]
}

export const BATCH_CUSTOM_ID_PATTERN = '^(?<tenant>[^|]+)\\|(?<session>[^|]+)\\|'

/** Input file plus output and error files (HTTP errors), output in a shuffled order; custom_id is "tenant|session|n". */
export function toOpenaiBatch(lines: readonly NativeLine[]): BatchConversion {
  const input: string[] = []
  const results: {key: string; text: string; error: boolean}[] = []
  lines.forEach((l, n) => {
    const v = l.value
    const view = clientView(v)
    const customId = `${String(v.tenant_id)}|${String(v.session_id)}|${n}`
    input.push(JSON.stringify({custom_id: customId, method: 'POST', url: typeof v.endpoint === 'string' && v.endpoint.startsWith('/v1/') ? v.endpoint : '/v1/chat/completions', body: requestObject(v, view)}))
    const failed = view.error !== null
    const status = typeof v.status === 'number' ? v.status : failed ? 500 : 200
    const body = failed ? {error: {message: view.error, type: 'server_error', param: null, code: null}} : completionObject(view, Math.floor(view.ms / 1000), v.model ?? null)
    results.push({
      key: hex(customId, 8),
      error: failed,
      text: JSON.stringify({id: `batch_req_${hex(customId, 24)}`, custom_id: customId, response: {status_code: status, request_id: v.request_id, body}, error: null}),
    })
  })
  results.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return {input, output: results.filter((r) => !r.error).map((r) => r.text), errors: results.filter((r) => r.error).map((r) => r.text)}
}

// ------------------------------------------------------------------ files

export interface ConvertedIncident {
  otel: {traces: string; logs: string}
  langfuse: string
  litellm: string
  batch: {input: string; output: string; errors: string}
}

/** Writes the incident of `logsDir` in every format under `outDir`; returns the paths. */
export function convertIncident(logsDir: string, outDir: string): ConvertedIncident {
  const lines = readNativeIncident(logsDir)
  mkdirSync(outDir, {recursive: true})
  const write = (name: string, rows: readonly string[]) => {
    const path = join(outDir, name)
    writeFileSync(path, rows.map((r) => `${r}\n`).join(''))
    return path
  }
  const o = toOtel(lines)
  const b = toOpenaiBatch(lines)
  return {
    otel: {traces: write('otel-traces.jsonl', o.traces), logs: write('otel-logs.jsonl', o.logs)},
    langfuse: write('langfuse-observations.jsonl', toLangfuse(lines)),
    litellm: write('litellm-spend-logs.jsonl', toLitellm(lines)),
    batch: {input: write('batch-input.jsonl', b.input), output: write('batch-output.jsonl', b.output), errors: write('batch-errors.jsonl', b.errors)},
  }
}
