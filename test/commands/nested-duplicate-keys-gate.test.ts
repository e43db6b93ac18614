import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {toLangfuse, toLitellm, toOpenaiBatch, BATCH_CUSTOM_ID_PATTERN, type NativeLine} from '../helpers/convert-formats.js'
import {resetNativeAddon} from '../../src/util/native-addon.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// A key given twice below a line's top level (a response body with two "content"s, a span with two
// "attributes", an OTLP attribute list giving gen_ai.completion.0.content twice) was read
// last-wins, by JSON.parse and by the addon's serde_json alike: a leak in the first copy was never
// judged, and `scan --fail-on-leak` exited 0. Each line here carries tn-alpha's marker in the
// first copy and a clean text in the second; the line must be quarantined naming the key's path,
// and the gate must fail closed (exit 1), with the native addon and without.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const CLEAN = 'nothing to see here'

const alpha = chatLine({request_id: 'req-a', tenant_id: 'tn-alpha', session_id: 'sess-a1', prompt: `remember ${A}`, answer: 'noted'})
const beta = (answer = CLEAN): string => chatLine({request_id: 'req-b', tenant_id: 'tn-beta', session_id: 'sess-b1', ts: '2026-11-02T06:49:30.289Z', answer})
const nativeLines = (): NativeLine[] => [alpha, beta()].map((text, i) => ({file: 'app.jsonl', line: i + 1, value: JSON.parse(text) as Record<string, unknown>}))

/** `text` with its clean answer's `"content"` member given twice, the marker first (as written, or escaped in a JSON string). */
function contentTwice(text: string): string {
  for (const q of ['"', '\\"']) {
    const member = `${q}content${q}:${q}${CLEAN}${q}`
    if (text.includes(member)) return text.replace(member, `${q}content${q}:${q}here is ${A}${q},${member}`)
  }
  throw new Error(`no content member to repeat in ${text}`)
}

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})

/** One OpenLLMetry-style GenAI span of a tenant's session; `attributes` as given (written as a JSON text, so a key may repeat). */
function otlpLine(attributes: string, tenant = 'tn-beta', spanId = '00000000000000b1'): string {
  const span = `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"${spanId}","parentSpanId":"","kind":3,"name":"chat m","startTimeUnixNano":"1793604570000000000","endTimeUnixNano":"1793604570289000000",${attributes},"status":{}}`
  const resource = JSON.stringify({attributes: [kv('service.name', 'app'), kv('tenant.id', tenant)]})
  return `{"resourceSpans":[{"resource":${resource},"scopeSpans":[{"scope":{"name":"opentelemetry.instrumentation.openai"},"spans":[${span}]}]}]}`
}
const spanAttrs = (completion: string, session = 'sess-b1'): Attr[] => [
  kv('gen_ai.system', 'openai'), kv('gen_ai.request.model', 'm'), kv('session.id', session),
  kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hello'),
  kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', completion),
]

interface Case {
  name: string
  /** files to write: name → lines */
  files: Record<string, string[]>
  flags?: string[]
  /** the path the bad line's reason names */
  path: string
}

// Request ids of their own: the native file's req-a is another request.
const batch = toOpenaiBatch(nativeLines().map((l) => ({...l, value: {...l.value, request_id: `batch-${String(l.value.request_id)}`}})))
/** A clean span of tn-alpha's, so that the file has a line that reads as OTLP. */
const otlpAlpha = otlpLine(`"attributes":${JSON.stringify(spanAttrs('noted', 'sess-a1'))}`, 'tn-alpha', '00000000000000a1')
const CASES: Case[] = [
  {name: 'native: two contents in a response message', files: {'app.jsonl': [alpha, contentTwice(beta())]}, path: 'response.choices[0].message.content'},
  {
    name: 'native: two contents in a response logged as a JSON string',
    files: {'app.jsonl': [alpha, contentTwice(JSON.stringify({...(JSON.parse(beta()) as object), response: JSON.stringify((JSON.parse(beta()) as {response: unknown}).response)}))]},
    path: 'response.choices[0].message.content',
  },
  {
    name: 'native: two choices in a response',
    files: {'app.jsonl': [alpha, beta().replace('"choices":', `"choices":[{"index":0,"message":{"role":"assistant","content":"here is ${A}"}}],"choices":`)]},
    path: 'response.choices',
  },
  {
    name: 'otel: an attribute list giving gen_ai.completion.0.content twice',
    files: {'app.jsonl': [alpha], 'traces.jsonl': [otlpAlpha, otlpLine(`"attributes":${JSON.stringify([kv('gen_ai.completion.0.content', `here is ${A}`), ...spanAttrs(CLEAN)])}`)]},
    path: 'resourceSpans[0].scopeSpans[0].spans[0].attributes["gen_ai.completion.0.content"]',
  },
  {
    name: 'otel: a span giving its attributes twice',
    files: {'app.jsonl': [alpha], 'traces.jsonl': [otlpAlpha, otlpLine(`"attributes":${JSON.stringify(spanAttrs(`here is ${A}`))},"attributes":${JSON.stringify(spanAttrs(CLEAN))}`)]},
    path: 'resourceSpans[0].scopeSpans[0].spans[0].attributes',
  },
  {name: 'langfuse: an observation output giving content twice', files: {'app.jsonl': [alpha], 'langfuse.jsonl': [toLangfuse(nativeLines())[0]!, contentTwice(toLangfuse(nativeLines())[1]!)]}, path: 'output.content'},
  {name: 'litellm: a spend-log response giving content twice', files: {'app.jsonl': [alpha], 'litellm.jsonl': [toLitellm(nativeLines())[0]!, contentTwice(toLitellm(nativeLines())[1]!)]}, flags: ['--assume-tz', 'UTC'], path: 'response.choices[0].message.content'},
  {
    name: 'openai-batch: an output body giving content twice',
    files: {'app.jsonl': [alpha], 'batch-input.jsonl': batch.input, 'batch-output.jsonl': batch.output.map((l) => (l.includes('tn-beta') ? contentTwice(l) : l))},
    flags: ['--custom-id-pattern', BATCH_CUSTOM_ID_PATTERN, '--batch-ts', '2026-11-03T00:00:00Z'],
    path: 'response.body.choices[0].message.content',
  },
]

describe('a key given twice below the top level, the leak in its first copy', () => {
  for (const c of CASES) {
    for (const native of [true, false]) {
      it(`${c.name}: quarantined naming the key, and --fail-on-leak fails (${native ? 'with' : 'without'} the addon)`, async () => {
        const dir = tempDir()
        writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n`)
        const paths = Object.entries(c.files).map(([name, lines]) => {
          writeFileSync(join(dir, name), lines.map((l) => `${l}\n`).join(''))
          return join(dir, name)
        })
        const before = process.env.CROSSTALK_NATIVE
        if (native) delete process.env.CROSSTALK_NATIVE
        else process.env.CROSSTALK_NATIVE = '0'
        resetNativeAddon()
        try {
          const db = join(dir, 'case.db')
          expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
          // Each format's files in an ingest of their own (the native file is read as native).
          await run(['ingest', 'logs', paths[0]!, '--db', db])
          if (paths.length > 1) await run(['ingest', 'logs', ...paths.slice(1), '--db', db, ...(c.flags ?? [])])
          const scan = await run(['scan', '--fail-on-leak', '--db', db])
          expect(scan.code).toBe(1)
          expect(scan.stderr).toMatch(/quarantined lines? never judged/)
          const bad = await run(['status', '--bad-lines', '--db', db])
          expect(bad.stdout).toContain(`duplicate key ${JSON.stringify(c.path)}`)
        } finally {
          if (before === undefined) delete process.env.CROSSTALK_NATIVE
          else process.env.CROSSTALK_NATIVE = before
          resetNativeAddon()
        }
      }, 60_000)
    }
  }
})
