import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {BATCH_CUSTOM_ID_PATTERN, toLangfuse, toLitellm, toOpenaiBatch, toOtel, type NativeLine} from '../helpers/convert-formats.js'
import {bareLine} from '../helpers/log-lines.js'

// QA reports A and B: "tn-\ud800" and "tn-\udc00" (JSON escapes of lone surrogates) are two
// tenants, but UTF-8 cannot write either, so the case stored and read them back as one: another
// tenant's marker was classed `own`, scan --fail-on-leak exited 0, and triage's quick pass and
// scan disagreed ("Please report this"). Such an id is no Unicode text: the line is a bad line
// naming the field, a registry holding one is refused, and the gates fail closed on the line.

const MARKER = 'CANARY-dddddddddddddddddddd04'
const TS = '2026-10-30T01:00:00Z'

interface BadLines {
  bad_lines: number
  records: number
  bad_line_list: Array<{file: string; line: number; reason: string}>
}

/** r1 sends the marker in tn-a/sess-1; r2, of a tenant whose id holds a lone surrogate, receives it; r3 is plain. */
function leakLog(dir: string, recipient: {tenant: string; session: string}): string {
  const file = join(dir, 'log.jsonl')
  writeFileSync(file, [
    bareLine('r1', 'tn-a', 'sess-1', `${MARKER} hi`, 'ok', TS),
    bareLine('r2', recipient.tenant, recipient.session, 'hi', `you said ${MARKER}`, '2026-10-30T02:00:00Z'),
    bareLine('r3', 'tn-b', 'sess-2', 'hi', 'fine', '2026-10-30T03:00:00Z'),
  ].map((l) => `${l}\n`).join(''))
  return file
}

function registry(dir: string, tenant = 'tn-a', session = 'sess-1', marker = MARKER): string {
  const file = join(dir, 'canaries.jsonl')
  writeFileSync(file, `${JSON.stringify({marker, tenant_id: tenant, session_id: session, issued_at: '2026-10-30T00:00:00Z'})}\n`)
  return file
}

describe('an identifying field holding a lone surrogate', () => {
  for (const [field, recipient] of [
    ['tenant_id', {tenant: 'tn-\udc00', session: 'sess-1'}],
    ['session_id', {tenant: 'tn-a', session: 'sess-\ud800'}],
  ] as const) {
    it(`in ${field}: the log line is quarantined naming the field, and scan --fail-on-leak exits 1 on it`, async () => {
      const dir = tempDir()
      const db = join(dir, 'case.db')
      const log = leakLog(dir, recipient)
      // The line as written holds the escape, not the character.
      expect(JSON.stringify(recipient)).toMatch(/\\ud[8c]00/)
      expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
      expect((await run(['ingest', 'logs', log, '--db', db])).code).toBe(0)
      const status = await runJson<BadLines>(['status', '--db', db, '--bad-lines'])
      expect(status.records).toBe(2)
      expect(status.bad_line_list).toEqual([
        expect.objectContaining({line: 2, reason: `${field} holds a lone surrogate (${field === 'tenant_id' ? '\\udc00' : '\\ud800'}): not Unicode text`}),
      ])
      const scan = await run(['scan', '--db', db, '--fail-on-leak'])
      expect(scan.code, scan.stderr).toBe(1)
      expect(scan.stderr).toMatch(/--fail-on-leak cannot pass: .*1 quarantined line never judged/)
    })
  }

  for (const quick of [true, false]) {
    it(`triage --fail-on-leak exits 1 on the quarantined line, its quick pass agreeing with the scan${quick ? '' : ' (--no-quick-verdict)'}`, async () => {
      const dir = tempDir()
      const r = await run(['triage', leakLog(dir, {tenant: 'tn-x\udc00', session: 'sess-2'}), '--canaries', registry(dir), '--db', join(dir, 'case.db'), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/--fail-on-leak cannot pass: .*1 quarantined line never judged/)
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/Please report this|differs from the scan/)
    })
  }

  for (const field of ['prefill_node', 'decode_node'] as const) {
    it(`in ${field}: the line is quarantined naming the field (two such nodes would be stored as one), and triage's quick pass agrees`, async () => {
      const dir = tempDir()
      const db = join(dir, 'case.db')
      const file = join(dir, 'log.jsonl')
      const withNode = (line: string, node: string): string => JSON.stringify({...(JSON.parse(line) as object), [field]: node})
      writeFileSync(file, [
        withNode(bareLine('r1', 'tn-a', 'sess-1', `${MARKER} hi`, 'ok', TS), 'node-\ud800'),
        withNode(bareLine('r2', 'tn-b', 'sess-2', 'hi', `you said ${MARKER}`, '2026-10-30T02:00:00Z'), 'node-\udc00'),
        withNode(bareLine('r3', 'tn-b', 'sess-2', 'hi', 'fine', '2026-10-30T03:00:00Z'), 'node-1'),
      ].map((l) => `${l}\n`).join(''))
      // The lines as written hold the escapes, not the characters.
      expect(readFileSync(file, 'utf8')).toContain('"node-\\ud800"')
      expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
      expect((await run(['ingest', 'logs', file, '--db', db])).code).toBe(0)
      const status = await runJson<BadLines>(['status', '--db', db, '--bad-lines'])
      expect(status.records).toBe(1)
      expect(status.bad_line_list.map((b) => [b.line, b.reason])).toEqual([
        [1, `${field} holds a lone surrogate (\\ud800): not Unicode text`],
        [2, `${field} holds a lone surrogate (\\udc00): not Unicode text`],
      ])
      const t = await run(['triage', file, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
      expect(t.code, t.stderr).toBe(1)
      expect(t.stderr).toMatch(/--fail-on-leak cannot pass: .*2 quarantined lines never judged/)
      expect(`${t.stdout}${t.stderr}`).not.toMatch(/Please report this|differs from the scan/)
    })
  }

  for (const [field, entry] of [
    ['tenant_id', ['CANARY-dddddddddddddddddddd04', 'tn-\ud800', 'sess-1']],
    ['session_id', ['CANARY-dddddddddddddddddddd04', 'tn-a', 'sess-\udc00']],
    ['marker', ['ZEBRA-\ud800-TOKEN', 'tn-a', 'sess-1']],
  ] as const) {
    it(`in a JSONL registry's ${field}: the registry is refused naming file, line and cause`, async () => {
      const dir = tempDir()
      const file = registry(dir, entry[1], entry[2], entry[0])
      const r = await run(['ingest', 'canaries', file, '--db', join(dir, 'case.db')])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`canaries\\.jsonl:1: ${field} holds a lone surrogate \\(\\\\+u(d800|dc00)\\): not Unicode text`))
      // triage refuses it too, before reading any log.
      const t = await run(['triage', leakLog(dir, {tenant: 'tn-b', session: 'sess-9'}), '--canaries', file, '--db', join(dir, 'triage.db'), '--fail-on-leak'])
      expect(t.code).toBe(1)
      expect(t.stderr).toMatch(/canaries\.jsonl:1: .* holds a lone surrogate/)
    })
  }

  it('in a CSV registry (the surrogate\'s bytes, since CSV has no escapes): refused as not UTF-8 text', async () => {
    const dir = tempDir()
    const file = join(dir, 'canaries.csv')
    writeFileSync(file, Buffer.concat([Buffer.from(`marker,tenant_id,session_id\n${MARKER},tn-`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(',sess-1\n')]))
    const r = await run(['ingest', 'canaries', file, '--db', join(dir, 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/canaries\.csv:2: not UTF-8 text/)
  })

  it('in every format and through --map, the record is a bad line naming the field; a surrogate pair and a lone surrogate in a response are read', async () => {
    const dir = tempDir()
    const value = (request_id: string, tenant_id: string, session_id: string, answer: string) => ({
      ts: TS, request_id, tenant_id, session_id, status: 200, model: 'm',
      request: {messages: [{role: 'user', content: 'hi'}]},
      response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}, finish_reason: 'stop'}]},
    })
    const lines: NativeLine[] = [
      {file: 'x', line: 1, value: value('r1', 'tn-\ud800', 'sess-1', 'a')},
      {file: 'x', line: 2, value: value('r2', 'tn-\ud83d\ude00', 'sess-1', 'b \udc00')},
    ]
    const write = (name: string, rows: readonly string[]) => {
      const path = join(dir, name)
      writeFileSync(path, rows.map((r) => `${r}\n`).join(''))
      return path
    }
    const otel = toOtel(lines)
    const batch = toOpenaiBatch(lines)
    const mapped = lines.map((l) => JSON.stringify({time: l.value.ts, id: l.value.request_id, meta: {customer: l.value.tenant_id, conversation: l.value.session_id}, request: l.value.request, response: l.value.response}))
    const cases: Array<[string, string[]]> = [
      ['native', [write('native.jsonl', lines.map((l) => JSON.stringify(l.value)))]],
      ['otel', [write('traces.jsonl', otel.traces), write('logs.jsonl', otel.logs)]],
      ['langfuse', [write('langfuse.jsonl', toLangfuse(lines))]],
      ['litellm', [write('litellm.jsonl', toLitellm(lines)), '--assume-tz', 'UTC']],
      ['openai-batch', [write('input.jsonl', batch.input), write('output.jsonl', batch.output), '--custom-id-pattern', BATCH_CUSTOM_ID_PATTERN]],
      ['--map', [write('mapped.jsonl', mapped), '--map', 'ts=time', '--map', 'request_id=id', '--map', 'tenant_id=meta.customer', '--map', 'session_id=meta.conversation']],
    ]
    mkdirSync(join(dir, 'cases'))
    for (const [name, args] of cases) {
      const db = join(dir, 'cases', `${name}.db`)
      const ingest = await run(['ingest', 'logs', ...args, '--db', db])
      expect(ingest.code, `${name}: ${ingest.stderr}`).toBe(0)
      const status = await runJson<BadLines & {tenants: number}>(['status', '--db', db, '--bad-lines'])
      expect([name, status.records, status.bad_line_list.map((b) => b.reason)]).toEqual([name, 1, ['tenant_id holds a lone surrogate (\\ud800): not Unicode text']])
    }
  })
})
