'use strict'
// A real producer of OpenTelemetry GenAI telemetry: the official `openai` client, instrumented by
// OpenTelemetry's own @opentelemetry/instrumentation-openai (0.21, the last release for Node 20),
// with message content capture on, exporting spans and log records over OTLP/HTTP JSON to the
// collector URL given. Each chat runs inside an application span that carries the synthetic
// tenant and session (`tenant.id`, `session.id`), as an application that wants them would.
//
// CommonJS on purpose: the instrumentation patches `openai` through require hooks, which must be
// in place before the client is loaded.
//
//   node openai-otel.cjs PLAN.json
//   PLAN: {"baseURL": "http://127.0.0.1:PORT/v1", "otlp": "http://127.0.0.1:PORT",
//          "chats": [{"tenant", "session", "messages", "stream", "includeUsage", "maxTokens"}]}
// Prints, as one JSON line on stdout, what the client received for each chat.

const {readFileSync} = require('node:fs')

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'))

const api = require('@opentelemetry/api')
const {logs} = require('@opentelemetry/api-logs')
const {resourceFromAttributes} = require('@opentelemetry/resources')
const {NodeTracerProvider} = require('@opentelemetry/sdk-trace-node')
const {BatchSpanProcessor} = require('@opentelemetry/sdk-trace-base')
const {LoggerProvider, BatchLogRecordProcessor} = require('@opentelemetry/sdk-logs')
const {OTLPTraceExporter} = require('@opentelemetry/exporter-trace-otlp-http')
const {OTLPLogExporter} = require('@opentelemetry/exporter-logs-otlp-http')
const {registerInstrumentations} = require('@opentelemetry/instrumentation')
const {OpenAIInstrumentation} = require('@opentelemetry/instrumentation-openai')

const resource = resourceFromAttributes({'service.name': 'crosstalk-producer-js'})
const tracerProvider = new NodeTracerProvider({
  resource,
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({url: `${plan.otlp}/v1/traces`}), {maxExportBatchSize: 4, scheduledDelayMillis: 200})],
})
tracerProvider.register()
const loggerProvider = new LoggerProvider({
  resource,
  processors: [new BatchLogRecordProcessor({exporter: new OTLPLogExporter({url: `${plan.otlp}/v1/logs`}), maxExportBatchSize: 5, scheduledDelayMillis: 200})],
})
logs.setGlobalLoggerProvider(loggerProvider)
registerInstrumentations({instrumentations: [new OpenAIInstrumentation({captureMessageContent: true})]})

const openai = require('openai')
const OpenAI = openai.OpenAI ?? openai.default ?? openai

async function main() {
  const client = new OpenAI({baseURL: plan.baseURL, apiKey: 'unused', maxRetries: 0, timeout: 30_000})
  const tracer = api.trace.getTracer('crosstalk-producer')
  const received = []
  for (const chat of plan.chats) {
    await tracer.startActiveSpan('conversation turn', {attributes: {'tenant.id': chat.tenant, 'session.id': chat.session}}, async (span) => {
      const entry = {tenant: chat.tenant, session: chat.session, text: '', error: null}
      try {
        const params = {model: 'crosstalk-testbed', messages: chat.messages, max_tokens: chat.maxTokens ?? 64}
        if (chat.stream) {
          const stream = await client.chat.completions.create({...params, stream: true, ...(chat.includeUsage ? {stream_options: {include_usage: true}} : {})})
          for await (const chunk of stream) entry.text += chunk.choices[0]?.delta?.content ?? ''
        } else {
          const completion = await client.chat.completions.create(params)
          entry.text = completion.choices[0]?.message?.content ?? ''
        }
      } catch (error) {
        entry.error = String(error && error.message)
      } finally {
        span.end()
      }
      received.push(entry)
    })
  }
  await tracerProvider.shutdown()
  await loggerProvider.shutdown()
  process.stdout.write(`${JSON.stringify(received)}\n`)
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`)
  process.exit(1)
})
