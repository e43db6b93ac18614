import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A log file that gives no record (here: an OTLP traces export of a web server's spans, no LLM
// call among them) leaves nothing to examine: no draft may say detection found no leak. (It used
// OpenInference LLM spans, which the otel format now reads as records.)

const marker = 'CANARY-5555eeee6666ffff'

function otlpLine(): string {
  const attrs = (o: Record<string, string>) => Object.entries(o).map(([key, v]) => ({key, value: {stringValue: v}}))
  const span = {
    traceId: 'a'.repeat(32), spanId: '1'.repeat(16), name: 'GET /health', kind: 2, startTimeUnixNano: '1793613599000000000', endTimeUnixNano: '1793613600000000000',
    attributes: attrs({'http.request.method': 'GET', 'url.path': '/health', 'session.id': 'A1'}),
  }
  return JSON.stringify({resourceSpans: [{resource: {attributes: attrs({'tenant.id': 'ta'})}, scopeSpans: [{scope: {name: '@opentelemetry/instrumentation-http'}, spans: [span]}]}]})
}

describe('a case whose logs gave no response record', () => {
  it('never reads as "found no leak": the drafts say nothing could be examined', async () => {
    const dir = tempDir()
    const logs = join(dir, 'phoenix.jsonl')
    const canaries = join(dir, 'can.csv')
    const db = join(dir, 'case.db')
    writeFileSync(logs, `${otlpLine()}\n`)
    writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${marker},tb,B1,2026-11-01T00:00:00Z\n`)
    await run(['ingest', 'logs', logs, '--db', db])
    expect((await run(['ingest', 'canaries', canaries, '--db', db])).code).toBe(0)
    await run(['scan', '--db', db])
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--role', 'controller', '--aware-at', '2026-11-02T10:00:00Z'])).code).toBe(0)
    // No log record: the scan searched nothing, so detection is not complete and the draft refuses as before a first scan.
    const refused = await run(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/detection is incomplete \(the case holds no log record, so the scan searched nothing\)/)
    for (const lang of ['en', 'fr']) {
      const a33 = await run(['report', 'article33', '--db', db, '--lang', lang, '--allow-incomplete'])
      expect(a33.code, a33.stderr).toBe(0)
      expect(a33.stdout).not.toMatch(/found no response carrying|n'a trouvé aucune réponse/)
      expect(a33.stdout).toMatch(lang === 'en' ? /the case holds no log record, so the scan searched nothing\. No marker or text has been searched for yet\./ : /le dossier ne contient aucun enregistrement de journal : l'analyse n'a rien examiné/)
    }
  })
})
