import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A retry logged under the request id of a response already in the case is a duplicate, not a
// record (the first line of a (source, request_id) wins), so its markers are no sightings. The
// gate judged it (exit 3), yet sightings was empty, scope and status said 0 and the Article 33
// draft's "Responses with a marker of another customer (cross-tenant) | 0": a response someone
// received, stated as none. Every output now names such lines beside its figures (the rule for
// records unchanged: the figures still count records).

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const LEAK = `here you go: ${A}`

function nativeLine(answer: string, ts: string): string {
  return JSON.stringify({
    ts, request_id: 'req-2', tenant_id: 'tn-beta', session_id: 'sess-b1', status: 200,
    request: {messages: [{role: 'user', content: `hi ${B}`}]},
    response: {choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

const kv = (key: string, v: string) => ({key, value: {stringValue: v}})
function otelSpan(spanId: string, at: number, answer: string) {
  return {
    traceId: '7'.padStart(32, '0'), spanId, name: 'chat m', kind: 3, startTimeUnixNano: `${at}000000`, endTimeUnixNano: `${at + 900}000000`, status: {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', 'req-2'), kv('tenant.id', 'tn-beta'), kv('session.id', 'sess-b1'),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `hi ${B}`}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: answer}]}])),
    ],
  }
}
const otelLine = (...spans: unknown[]): string => JSON.stringify({resourceSpans: [{resource: {attributes: [kv('service.name', 'gw')]}, scopeSpans: [{scope: {name: 'gw'}, spans}]}]})

interface Layout {
  name: string
  format: 'native' | 'otel'
  files: Record<string, string>
  /** the duplicate line that leaks, as file name:line */
  at: string
}

const layouts: Layout[] = [
  {
    name: 'native: the gateway\'s retry in another file', format: 'native', at: 'b.jsonl:1',
    files: {'a.jsonl': `${nativeLine('nothing to see', '2026-11-02T10:01:00Z')}\n`, 'b.jsonl': `${nativeLine(LEAK, '2026-11-02T10:01:05Z')}\n`},
  },
  {
    name: 'OTLP: the retry\'s span on the next export line', format: 'otel', at: 'a.jsonl:2',
    files: {'a.jsonl': `${otelLine(otelSpan('0000000000000002', 1793613660000, 'nothing to see'))}\n${otelLine(otelSpan('0000000000000003', 1793613665000, LEAK))}\n`},
  },
  {
    name: 'OTLP: both attempts in one export line', format: 'otel', at: 'a.jsonl:1',
    files: {'a.jsonl': `${otelLine(otelSpan('0000000000000002', 1793613660000, 'nothing to see'), otelSpan('0000000000000003', 1793613665000, LEAK))}\n`},
  },
]

type Scope = {cross_tenant_responses: number; contaminated_responses: number; duplicate_leaks_not_counted: Array<{path: string; line: number; request_id: string; class: string}>; duplicate_lines_not_examined: number}
type Status = {sightings: number; duplicates: number; duplicate_leaks_not_counted: Scope['duplicate_leaks_not_counted']}
type Draft = {scope: {cross_tenant_responses: number; retry_leaks_not_counted: number}; open_items: Array<{item: string}>; statements: Array<{section: string; text: string}>; form_fields: Array<{id: string; value: string}>}

describe('a leaking retry under a request id already counted, in every output', () => {
  for (const l of layouts) {
    it(`is named beside the figures that do not count it: ${l.name}`, async () => {
      const dir = tempDir()
      const logs = join(dir, 'logs')
      mkdirSync(logs)
      for (const [name, text] of Object.entries(l.files)) writeFileSync(join(logs, name), text)
      writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
      const db = join(dir, 'case.db')
      const gate = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--fail-on-leak', '--log-format', l.format])
      expect(gate.code, gate.stderr).toBe(3)
      // triage's own console: its verdict judged the records, and says what it left out.
      expect(gate.stdout).toContain("But 1 line repeats a request_id already in the case with an answer carrying another session's marker")
      const [file, line] = l.at.split(':') as [string, string]

      const scope = await runJson<Scope>(['scope', '--db', db])
      // The records' figures keep the duplicate rule; the response they leave out is named.
      expect(scope.cross_tenant_responses).toBe(0)
      expect(scope.duplicate_leaks_not_counted).toEqual([{path: expect.stringMatching(new RegExp(`${file.replace('.', '\\.')}$`)), line: Number(line), request_id: 'req-2', class: 'cross_tenant'}])
      expect(scope.duplicate_lines_not_examined).toBe(0)
      const scopeText = await run(['scope', '--db', db])
      expect(scopeText.stdout).toMatch(/NOT COUNTED above: repeated request ids carrying another session's marker\s+1/)

      const status = await runJson<Status>(['status', '--db', db])
      expect(status.sightings).toBe(0)
      expect(status.duplicate_leaks_not_counted.map((d) => `${d.request_id}:${d.class}`)).toEqual(['req-2:cross_tenant'])
      expect((await run(['status', '--db', db])).stdout).toContain(`NOT COUNTED: 1 line repeats a request_id already in the case with an answer carrying another session's marker`)

      const sightings = await run(['sightings', '--db', db, '--class', 'cross_session,cross_tenant', '--json'])
      expect(sightings.code, sightings.stderr).toBe(0)
      expect(JSON.parse(sightings.stdout)).toEqual([])
      expect(sightings.stderr).toMatch(new RegExp(`NOT COUNTED: 1 line .*${l.at.replace('.', '\\.')} \\(request_id "req-2", cross_tenant\\)`))

      expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
      const draft = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en'])
      expect(draft.scope.cross_tenant_responses).toBe(0)
      expect(draft.scope.retry_leaks_not_counted).toBe(1)
      expect(draft.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(`1 response (${l.at}) logged under the request id of a response already counted`))
      for (const f of draft.form_fields) expect(f.value, f.id).not.toMatch(/detection over every log found no response/)
      const md = join(dir, 'a33.md')
      expect((await run(['report', 'article33', '--db', db, '--lang', 'en', '--out', md])).code).toBe(0)
      expect(readFileSync(md, 'utf8')).toContain('| Responses with a marker of another customer (cross-tenant) | 0 (not counting 1 retry logged under a request id already counted that carried another session\'s marker: see the open items) |')
      const fr = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'fr'])
      expect(fr.open_items.map((o) => o.item)).toContainEqual(expect.stringContaining(`1 réponse (${l.at}) journalisée sous l'identifiant de requête d'une réponse déjà comptée`))
    }, 120_000)
  }

  it('says nothing where the retry carries only its own marker (native)', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'a.jsonl'), `${nativeLine('nothing to see', '2026-11-02T10:01:00Z')}\n${nativeLine(`yours: ${B}`, '2026-11-02T10:01:05Z')}\n`)
    writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    const db = join(dir, 'case.db')
    expect((await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--fail-on-leak'])).code).toBe(0)
    const scope = await runJson<Scope>(['scope', '--db', db])
    expect(scope.duplicate_leaks_not_counted).toEqual([])
    const status = await run(['status', '--db', db])
    expect(status.stdout).toMatch(/duplicates\s+1 within the stored files/)
    expect(status.stdout).not.toContain('NOT COUNTED')
  }, 60_000)
})
