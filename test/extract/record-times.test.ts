import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {applyFieldMap, parseFieldMap} from '../../src/extract/field-path.js'
import {finishRecord, resolveFormatOptions, type Candidate} from '../../src/extract/formats/common.js'
import {parseLine} from '../../src/extract/parse-record.js'
import {parseAssumeTz, resolveZoneless} from '../../src/extract/timestamps-zone.js'
import {runAdapter} from './formats/run-adapter.js'

// A record's time: one 2000-2100 window and one unit-by-magnitude rule in every reader, 0 as an
// unset time, zone-less wall times checked as zoned ones are (QA report on time, items 1, 2, 4,
// 6, 7, 9, 10, 11, 14).

const dir = mkdtempSync(join(tmpdir(), 'crosstalk-record-times-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

function file(name: string, lines: unknown[]): string {
  const path = join(dir, name)
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  return path
}

const native = (ts: unknown) => parseLine(Buffer.from(JSON.stringify({ts, request_id: 'r1', tenant_id: 't', session_id: 's', response: 'ok'})))
const badReason = (ts: unknown): string => {
  const got = native(ts)
  return got.kind === 'bad' ? got.reason : `read as ${got.kind === 'record' ? got.row.ts : got.kind}`
}

describe('a native ts outside 2000-2100 is a bad line naming the unit it reads right in', () => {
  it('epoch microseconds (a number or a string of digits) are refused, not read as a time in the year 58209', () => {
    expect(badReason(1774747800000000)).toBe('field ts: epoch 1774747800000000 is not milliseconds of a plausible time (read so, it is past the year 9999): it reads as microseconds (2026-03-29T01:30:00.000Z): --map ts=epoch_us:PATH')
    expect(badReason('1774747800000000')).toMatch(/^field ts: epoch 1774747800000000 is not milliseconds .*: it reads as microseconds \(2026-03-29T01:30:00\.000Z\)/)
    // Milliseconds past 2100 (4102444800000 is 2100-01-01) read in no unit.
    expect(badReason(5_000_000_000_000)).toMatch(/^field ts: epoch 5000000000000 is not milliseconds of a plausible time \(read so, it is 2128-\S+, after 2100\), nor seconds, microseconds or nanoseconds of one$/)
    expect(badReason(4_102_444_800_000)).toMatch(/after 2100/)
  })
  it('epoch seconds say so; milliseconds within the window are read', () => {
    expect(badReason(1793318401)).toMatch(/: it reads as seconds \(2026-10-30T00:00:01\.000Z\): --map ts=epoch_s:PATH$/)
    const ok = native(4_102_444_799_999)
    expect(ok.kind === 'record' && ok.row.ts).toBe('2099-12-31T23:59:59.999Z')
  })
  it('an ISO time before 2000 (1970-01-01, an unset clock) or from 2100 on is refused', () => {
    expect(badReason('1970-01-01T00:00:00Z')).toBe('field ts: time 1970-01-01T00:00:00.000Z is before 2000 (1970-01-01 is a clock that was never set): no log of a model API call is from then')
    expect(badReason('2100-01-01T00:00:00Z')).toMatch(/^field ts: time 2100-01-01T00:00:00\.000Z is after 2100/)
    expect(badReason('2099-12-31T23:30:00-01:00')).toMatch(/after 2100/)
    const ok = native('1999-12-31T23:30:00-01:00')
    expect(ok.kind === 'record' && ok.row.ts).toBe('2000-01-01T00:30:00.000Z')
  })
  it('--map epoch: (the unit by magnitude) refuses a value that is a plausible time in no unit, as bad, not missing', () => {
    const map = parseFieldMap(['ts=epoch:t'])
    expect(applyFieldMap({ts: null}, {t: 1793318401}, map).record.ts).toBe('2026-10-30T00:00:01.000Z')
    const wrong = applyFieldMap({ts: null}, {t: 5_000_000_000_000}, map)
    expect(wrong.problems).toEqual(['--map ts=epoch:t: t 5000000000000 is not a plausible time (2000 to 2100) in seconds, milliseconds, microseconds or nanoseconds'])
  })
  it('a --map epoch_ms: value that is no plausible time is "bad ts", not "missing ts" (it is there)', () => {
    const options = resolveFormatOptions({map: parseFieldMap(['ts=epoch_ms:time'])})
    const candidate: Candidate = {ts: null, request_id: 'r', tenant_id: 't', session_id: 's', status: null, endpoint: null, model: null, prefill_node: null, decode_node: null, prompt_tokens: null, completion_tokens: null, request: null, response: 'ok'}
    const present = finishRecord(candidate, {time: 1793354400000000}, options, {})
    expect('problem' in present && present.problem).toMatch(/^bad ts: --map ts=epoch_ms:time: time 1793354400000000 is not milliseconds of a plausible time .*: it reads as microseconds/)
    const absent = finishRecord(candidate, {}, options, {})
    expect('problem' in absent && absent.problem).toMatch(/^missing ts: --map ts=epoch_ms:time: no key "time"/)
  })
})

describe('openai-batch body.created', () => {
  const input = file('in.jsonl', [1, 2].map((n) => ({custom_id: `tA:sA:${n}`, method: 'POST', url: '/v1/chat/completions', body: {model: 'm', messages: [{role: 'user', content: 'hi'}]}})))
  const out = (created: unknown) => file(`out-${String(created)}.jsonl`, [{id: 'b1', custom_id: 'tA:sA:1', response: {status_code: 200, request_id: 'req1', body: {id: 'c1', object: 'chat.completion', created, model: 'm', choices: [{index: 0, message: {role: 'assistant', content: 'ok'}}]}}, error: null}])
  const pattern = '^(?<tenant>[^:]+):(?<session>[^:]+):'
  it('0 is unset, not 1970: the --batch-ts time is used, and without it the time is missing', () => {
    const withFallback = runAdapter('openai-batch', [input, out(0)], {customIdPattern: pattern, fallbackTs: '2026-10-31T12:00:00Z'})
    expect(withFallback.produced.map((p) => p.row?.ts)).toEqual(['2026-10-31T12:00:00.000Z'])
    expect(withFallback.produced[0]!.notes).toContain('no body.created (or created_at) on this line: the --batch-ts time was used')
    const without = runAdapter('openai-batch', [input, out(0)], {customIdPattern: pattern})
    expect(without.produced).toEqual([])
    expect(without.problems[0]!.reason).toMatch(/^missing ts: the line has no response\.body\.created/)
  })
  it('milliseconds are refused naming body.created, the unit and the --map that reads them', () => {
    const run = runAdapter('openai-batch', [input, out(1793354400123)], {customIdPattern: pattern, fallbackTs: '2026-10-31T12:00:00Z'})
    expect(run.produced).toEqual([])
    expect(run.problems.map((p) => p.reason)).toEqual(['bad ts: body.created 1793354400123 is not seconds of a plausible time (read so, it is past the year 9999): it reads as milliseconds (2026-10-30T10:00:00.123Z): --map ts=epoch_ms:response.body.created'])
  })
})

describe('LiteLLM and Langfuse times', () => {
  const payload = (times: object) => ({id: 'chatcmpl-1', trace_id: 'sA', call_type: 'acompletion', model: 'm', metadata: {user_api_key_team_id: 'tA'}, messages: [{role: 'user', content: 'hi'}], response: {choices: [{message: {role: 'assistant', content: 'ok'}}]}, ...times})
  it('a logging payload\'s endTime 0 is unset: startTime is read; both 0 is a missing time, never 1970', () => {
    const one = runAdapter('litellm', [file('ll1.jsonl', [payload({startTime: 1793318390.412151, endTime: 0})])])
    expect(one.produced.map((p) => p.row?.ts)).toEqual(['2026-10-29T23:59:50.412151Z'])
    const none = runAdapter('litellm', [file('ll2.jsonl', [payload({startTime: 0, endTime: 0})])])
    expect(none.produced).toEqual([])
    expect(none.problems[0]!.reason).toMatch(/^missing ts:/)
  })
  it('a payload time in milliseconds is refused naming the key and the unit', () => {
    const run = runAdapter('litellm', [file('ll3.jsonl', [payload({endTime: 1793318391950})])])
    expect(run.problems[0]!.reason).toMatch(/^bad ts: endTime 1793318391950 is not seconds of a plausible time .*: it reads as milliseconds \(2026-10-29T23:59:51\.950Z\): --map ts=epoch_ms:endTime$/)
  })
  const observation = (times: object) => ({id: 'g1', traceId: 't1', type: 'GENERATION', input: 'hi', output: 'ok', metadata: {tenant_id: 'tA'}, sessionId: 'sA', ...times})
  it('Langfuse endTime "" with a startTime: the startTime is read', () => {
    const run = runAdapter('langfuse', [file('lf1.jsonl', [observation({startTime: '2026-10-30T10:00:00.000Z', endTime: ''})])])
    expect(run.problems).toEqual([])
    expect(run.produced.map((p) => p.row?.ts)).toEqual(['2026-10-30T10:00:00.000Z'])
  })
  it('Langfuse zone-less times are UTC, unless --assume-tz names their zone', () => {
    const path = file('lf2.jsonl', [observation({startTime: '2026-10-30 10:00:00.000000', endTime: '2026-10-30 10:00:01.000000'})])
    expect(runAdapter('langfuse', [path]).produced.map((p) => p.row?.ts)).toEqual(['2026-10-30T10:00:01.000000Z'])
    const berlin = runAdapter('langfuse', [path], {zoneAssumed: true}, parseAssumeTz('Europe/Berlin'))
    expect(berlin.produced.map((p) => p.row?.ts)).toEqual(['2026-10-30T09:00:01.000000Z'])
  })
})

describe('OTLP log records', () => {
  const log = (time: object) => ({resourceLogs: [{resource: {attributes: [{key: 'tenant.id', value: {stringValue: 'tA'}}]}, scopeLogs: [{logRecords: ['gen_ai.user.message', 'gen_ai.choice'].map((event, i) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', eventName: event,
    attributes: [{key: 'event.name', value: {stringValue: event}}, {key: 'gen_ai.system', value: {stringValue: 'openai'}}, {key: 'session.id', value: {stringValue: 'sA'}}],
    body: {kvlistValue: {values: [{key: 'content', value: {stringValue: i === 0 ? 'hi there' : 'hello back'}}]}}, ...time,
  }))}]}]})
  it('timeUnixNano "0" (unset) with an observedTimeUnixNano: the observed time is read', () => {
    const run = runAdapter('otel', [file('otel1.jsonl', [log({timeUnixNano: '0', observedTimeUnixNano: '1793354400000000000'})])])
    expect(run.problems).toEqual([])
    expect(run.produced.map((p) => p.row?.ts)).toEqual(['2026-10-30T10:00:00.000Z'])
  })
  it('neither: the reason names both', () => {
    const run = runAdapter('otel', [file('otel2.jsonl', [log({timeUnixNano: 0})])])
    expect(run.problems[0]!.reason).toBe('missing ts: the GenAI log records carry no timeUnixNano (nor observedTimeUnixNano)')
  })
})

describe('zone-less wall times under --assume-tz', () => {
  const fixed = parseAssumeTz('+02:00')
  const berlin = parseAssumeTz('Europe/Berlin')
  it('a time no clock shows is refused, never carried into the next day or hour', () => {
    for (const t of ['2026-02-30T10:00:00', '2026-10-30T24:30:00', '2026-10-30T10:99:00', '2026-13-01T10:00:00']) {
      for (const zone of [fixed, berlin]) expect(resolveZoneless(t, zone), `${t} ${zone.label}`).toEqual({ok: false, reason: `impossible date or time ${JSON.stringify(t)}`})
    }
  })
  it('a leap second is folded onto :59.999, as a zoned one is', () => {
    expect(resolveZoneless('2016-12-31 23:59:60', parseAssumeTz('UTC'))).toEqual({ok: true, value: '2016-12-31T23:59:59.999Z', assumed: true})
  })
  it('the repeated autumn hour: the refusal names --assume-tz-ambiguous, which picks either instant', () => {
    const refused = resolveZoneless('2026-10-25 02:10:00', berlin)
    expect(!refused.ok && refused.reason).toMatch(/happened twice in Europe\/Berlin .*give --assume-tz-ambiguous earlier \(the second: later\)$/)
    expect(resolveZoneless('2026-10-25 02:10:00', berlin, 'earlier')).toMatchObject({ok: true, value: '2026-10-25T00:10:00.000Z'})
    expect(resolveZoneless('2026-10-25 02:10:00', berlin, 'later')).toMatchObject({ok: true, value: '2026-10-25T01:10:00.000Z'})
  })
})

describe('--batch-ts and --assume-tz-ambiguous flags', () => {
  it('a --batch-ts outside 2000-2100 is a usage error, as it would be every line\'s time', async () => {
    const {parseIngestFlags} = await import('../../src/cli/ingest-flags.js')
    expect(() => parseIngestFlags({'log-format': 'openai-batch', 'custom-id-pattern': '^(?<tenant>[^:]+):(?<session>[^:]+):', 'batch-ts': '1970-01-01T00:00:00Z'})).toThrow(/^--batch-ts: time 1970-01-01T00:00:00\.000Z is before 2000/)
    expect(parseIngestFlags({'log-format': 'native', 'assume-tz': 'Europe/Berlin', 'assume-tz-ambiguous': 'later'}).parse).toEqual({assume_tz: 'Europe/Berlin', assume_tz_ambiguous: 'later'})
  })
})
