import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseFieldMap} from '../../src/extract/field-path.js'
import {sniffFormat} from '../../src/extract/formats/index.js'
import {BIN, ROOT} from '../helpers/cli.js'
import {readJsonLines, runAdapter, type Produced} from '../extract/formats/run-adapter.js'

// Real producers: the official OpenAI clients, instrumented by OpenTelemetry's own OpenAI
// instrumentations, chat with `crosstalk testbed serve --on-overflow stale --disaggregated` as
// several synthetic tenants with canaries. Their OTLP/HTTP JSON exports land on a loopback
// receiver that writes each export request as one line, as the Collector's file exporter does;
// the otel adapter must find every chat, its tenant and session, its canary, and the foreign
// canary the stale pages leaked into another tenant's answer.

const POOL = 256
const words = (n: number, tag: string) => Array.from({length: n}, (_, i) => `${tag}${i}`).join(' ')
const marker = (n: number) => `CANARY-${String(n).repeat(16).slice(0, 16)}`

interface Chat {
  tenant: string
  session: string
  marker: string | null
  messages: {role: string; content: string}[]
  stream: boolean
  includeUsage?: boolean
  maxTokens?: number
}

const chats: Chat[] = [
  {tenant: 'tn-alpha', session: 'sess-a1', marker: marker(1), stream: false, messages: [{role: 'system', content: 'You are terse.'}, {role: 'user', content: `${marker(1)} alpha asks about invoices ${words(20, 'a')}`}]},
  {tenant: 'tn-alpha', session: 'sess-a2', marker: marker(2), stream: true, includeUsage: true, messages: [{role: 'user', content: `${marker(2)} alpha second session ${words(20, 'b')}`}]},
  {tenant: 'tn-beta', session: 'sess-b1', marker: marker(3), stream: false, messages: [{role: 'user', content: `${marker(3)} beta patient record ${words(30, 'c')}`}]},
  // Over the pool, inside the window: answered with HTTP 200 from the others' stale pages.
  {tenant: 'tn-gamma', session: 'sess-g1', marker: marker(4), stream: true, maxTokens: 200, messages: [{role: 'user', content: `${marker(4)} gamma ${words(POOL + 100, 'g')}`}]},
  // Over the window: a 400, an error span.
  {tenant: 'tn-beta', session: 'sess-b2', marker: marker(5), stream: false, messages: [{role: 'user', content: `${marker(5)} ${words(5000, 'x')}`}]},
]

interface Receiver {
  url: string
  traces: string
  logs: string
  close(): Promise<void>
}

/** An OTLP/HTTP JSON receiver on loopback that appends each export request as one line, like the Collector's file exporter. */
async function startReceiver(dir: string, prefix: string): Promise<Receiver> {
  const traces = join(dir, `${prefix}-traces.jsonl`)
  const logs = join(dir, `${prefix}-logs.jsonl`)
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const target = req.url === '/v1/traces' ? traces : req.url === '/v1/logs' ? logs : null
      if (target === null || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end()
        return
      }
      appendFileSync(target, `${JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')))}\n`)
      res.writeHead(200, {'content-type': 'application/json'}).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {url: `http://127.0.0.1:${port}`, traces, logs, close: () => new Promise((resolve) => server.close(() => resolve()))}
}

async function startTestbedCli(): Promise<{child: ChildProcess; url: string}> {
  const child = spawn(
    process.execPath,
    [BIN, 'testbed', 'serve', '--port', '0', '--on-overflow', 'stale', '--disaggregated', '--pool-tokens', String(POOL), '--max-model-len', '4096'],
    {cwd: ROOT, env: {...process.env, NO_COLOR: '1'}},
  )
  const url = await new Promise<string>((resolve, reject) => {
    let err = ''
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(err)
      if (m) resolve(m[1]!)
    })
    child.on('exit', (code) => reject(new Error(`testbed exited ${code}: ${err}`)))
    setTimeout(() => reject(new Error(`testbed did not print its URL: ${err}`)), 30_000)
  })
  return {child, url}
}

function leakCheck(produced: Produced[], received: {tenant: string; text: string; error: string | null}[]) {
  const owner = new Map(chats.filter((c) => c.marker).map((c) => [c.marker!, c]))
  // Every chat is a record, attributed to its tenant and session, with its canary in the prompt.
  const records = produced.map((p) => p.row!)
  expect(records).toHaveLength(chats.length)
  for (const c of chats) {
    const r = records.find((x) => x.request_text?.includes(c.marker!))
    expect(r, `no record carries ${c.marker}`).toBeDefined()
    expect([r!.tenant_id, r!.session_id]).toEqual([c.tenant, c.session])
  }
  // What the client received is what the record says it received.
  for (const got of received.filter((g) => g.error === null)) {
    expect(records.some((r) => r.tenant_id === got.tenant && r.response_text === got.text)).toBe(true)
  }
  // The stale answer to gamma carries another tenant's canary: the leak is visible in the records.
  const gamma = records.find((r) => r.tenant_id === 'tn-gamma')!
  const leaked = [...(gamma.response_text ?? '').matchAll(/CANARY-[0-9a-f]{16}/g)].map((m) => m[0]).filter((m) => owner.get(m)?.tenant !== 'tn-gamma')
  expect(leaked.length).toBeGreaterThan(0)
  expect(gamma.is_error).toBe(0)
  // The over-window prompt is an error, not a served response.
  const rejected = records.find((r) => r.session_id === 'sess-b2')!
  expect(rejected.is_error).toBe(1)
  return {leaked}
}

describe('real producers: OpenAI clients instrumented by OpenTelemetry, against the stale testbed', () => {
  let dir: string
  let testbed: {child: ChildProcess; url: string}
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/commands/testbed/serve.js'))) throw new Error('dist/ is not built: run npm run build (npm test does)')
    dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'otel-producer-'))
  })
  afterAll(() => {
    testbed?.child.kill()
  })

  it('JS: @opentelemetry/instrumentation-openai spans and log records read by the otel adapter find every canary and the leak', async () => {
    testbed = await startTestbedCli()
    const receiver = await startReceiver(dir, 'js')
    const planPath = join(dir, 'js-plan.json')
    writeFileSync(planPath, JSON.stringify({baseURL: `${testbed.url}/v1`, otlp: receiver.url, chats}))
    const producer = await new Promise<{code: number | null; out: string; err: string}>((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, 'test/extract/producers/openai-otel.cjs'), planPath], {cwd: ROOT, env: {...process.env}})
      let out = ''
      let err = ''
      child.stdout.on('data', (d: Buffer) => (out += d.toString()))
      child.stderr.on('data', (d: Buffer) => (err += d.toString()))
      // Bounded: a producer that never exits is killed and fails the test instead of holding the run.
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
      child.on('exit', (code) => {
        clearTimeout(timer)
        resolve({code, out, err})
      })
    })
    await receiver.close()
    testbed.child.kill()
    expect(producer.code, producer.err).toBe(0)
    const received = JSON.parse(producer.out) as {tenant: string; text: string; error: string | null}[]
    expect(received.filter((r) => r.error !== null)).toHaveLength(1)

    // The files look like what the Collector writes, and auto recognises them.
    for (const file of [receiver.traces, receiver.logs]) {
      const decision = sniffFormat(readJsonLines(file).map((l) => l.value))
      expect(decision.format).toBe('otel')
    }
    // The instrumentation puts no text on spans: it is all in log records, on other lines.
    expect(readFileSync(receiver.traces, 'utf8')).not.toContain('CANARY-')
    expect(readFileSync(receiver.logs, 'utf8')).toContain('CANARY-')

    const run = runAdapter('otel', [receiver.traces, receiver.logs])
    expect(run.problems).toEqual([])
    expect(run.produced.every((p) => p.row !== null)).toBe(true)
    const {leaked} = leakCheck(run.produced, received)
    expect(leaked.length).toBeGreaterThan(0)
    // Facts the span carries come through; what it lacks stays unknown.
    const alpha = run.produced.find((p) => p.row!.session_id === 'sess-a1')!.row!
    expect(alpha.decode_node).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(alpha.prompt_tokens).toBeGreaterThan(20)
    expect(alpha.status).toBeNull()
    const gamma = run.produced.find((p) => p.row!.session_id === 'sess-g1')!.row!
    expect(gamma.prompt_tokens).toBeNull() // streamed without include_usage
  }, 120_000)

  it('Python: opentelemetry-instrumentation-openai-v2 (skipped with a reason when not installed)', async (ctx) => {
    const python = process.env.CROSSTALK_PYTHON ?? 'python3'
    const probe = spawnSync(python, ['-c', 'import openai, opentelemetry.instrumentation.openai_v2, opentelemetry.sdk, opentelemetry.exporter.otlp.proto.common'], {encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL'})
    if (probe.status !== 0) {
      ctx.skip(`Python OpenTelemetry OpenAI instrumentation not installed (${python}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}); .ci/run installs it`)
      return
    }
    testbed = await startTestbedCli()
    const planPath = join(dir, 'py-plan.json')
    const out = join(dir, 'py')
    writeFileSync(planPath, JSON.stringify({baseURL: `${testbed.url}/v1`, out, chats}))
    const producer = spawnSync(python, [join(ROOT, 'test/extract/producers/openai_otel.py'), planPath], {encoding: 'utf8', timeout: 90_000})
    testbed.child.kill()
    expect(producer.status, producer.stderr).toBe(0)
    const received = JSON.parse(producer.stdout) as {tenant: string; text: string; error: string | null}[]
    const files = [`${out}-traces.jsonl`, `${out}-logs.jsonl`].filter((f) => existsSync(f))
    expect(sniffFormat(readJsonLines(files[0]!).map((l) => l.value)).format).toBe('otel')
    const run = runAdapter('otel', files)
    expect(run.problems).toEqual([])
    leakCheck(run.produced, received)
    // The content is on the spans (JSON strings) and again on gen_ai.client.inference.operation.details
    // log records (structured); the log records alone give the same texts (tenant and session live on
    // the application's spans, so here they are supplied by --map).
    const logsOnly = runAdapter('otel', [`${out}-logs.jsonl`], {map: parseFieldMap(['tenant_id=const:unknown', 'session_id=const:unknown'])})
    expect(logsOnly.problems).toEqual([])
    // An error's message is searched as its answer text, and the two inputs word it differently (the
    // span's status description, the log record's error type): for an error, that it is one is compared.
    const texts = (r: typeof run) => r.produced.map((p) => `${p.row!.request_id} ${p.row!.request_text} => ${p.row!.is_error ? '(an error)' : p.row!.response_text}`).sort()
    expect(texts(logsOnly)).toEqual(texts(run))
    expect(run.produced.filter((p) => p.row!.is_error)).toHaveLength(1)
  }, 120_000)
})
