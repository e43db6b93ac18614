import {describe, expect, it} from 'vitest'
import {
  applyFieldMap,
  bytesValueText,
  epochToIso,
  evaluateField,
  evaluatePath,
  FieldSpecError,
  formatPath,
  parseFieldMap,
  parseFieldSpec,
  parseMapFlag,
  unwrapAnyValue,
} from '../../src/extract/field-path.js'

const spec = (text: string) => parseFieldSpec(text)[1]
const value = (text: string, source: unknown) => evaluateField(spec(text), source)

describe('--map paths', () => {
  const otel = {
    attributes: {'gen_ai.response.id': 'chatcmpl-1', gen_ai: {response: {id: 'nested'}}},
    choices: [{text: 'a'}, {text: 'b'}],
    "it's": {'a]b': 1},
  }

  it('reads plain dotted paths as before, including a digit step into an array', () => {
    expect(value('tenant_id=attributes.gen_ai.response.id', otel)).toEqual({ok: true, value: 'nested'})
    expect(value('model=choices.1.text', otel)).toEqual({ok: true, value: 'b'})
  })

  it('addresses keys that contain dots with brackets or quotes', () => {
    expect(value('request_id=attributes["gen_ai.response.id"]', otel)).toEqual({ok: true, value: 'chatcmpl-1'})
    expect(value(`request_id=attributes.'gen_ai.response.id'`, otel)).toEqual({ok: true, value: 'chatcmpl-1'})
    expect(value(`request_id=attributes['gen_ai.response.id']`, otel)).toEqual({ok: true, value: 'chatcmpl-1'})
    expect(value(`request_id="it's"['a]b']`, otel)).toEqual({ok: true, value: 1})
    expect(value(`request_id='it\\'s'["a]b"]`, otel)).toEqual({ok: true, value: 1})
  })

  it('indexes arrays, negative from the end', () => {
    expect(value('model=choices[0].text', otel)).toEqual({ok: true, value: 'a'})
    expect(value('model=choices[-1].text', otel)).toEqual({ok: true, value: 'b'})
  })

  it('picks a pair out of an OTLP key/value list and unwraps its AnyValue', () => {
    const span = {attributes: [{key: 'gen_ai.usage.input_tokens', value: {intValue: '52'}}, {key: 'session.id', value: {stringValue: 's-1'}}]}
    expect(value('prompt_tokens=attributes["gen_ai.usage.input_tokens"]', span)).toEqual({ok: true, value: 52})
    expect(value('session_id=attributes["session.id"]', span)).toEqual({ok: true, value: 's-1'})
  })

  it('says where a path stopped instead of mapping to absent', () => {
    const miss = value('tenant_id=metadata.team.id', {metadata: {user: 'u'}})
    expect(miss).toEqual({ok: false, reason: 'no key "team" in metadata'})
    const past = value('model=choices[5].text', otel)
    expect(past.ok).toBe(false)
    expect(!past.ok && past.reason).toMatch(/choices has 2 elements/)
    const scalar = value('model=choices.0.text.x', otel)
    expect(!scalar.ok && scalar.reason).toMatch(/choices\.0\.text is a string/)
  })

  it('writes a path back in canonical form', () => {
    const parsed = spec(`ts=attributes.'gen_ai.response.id'[2].x`)
    expect(parsed.kind === 'path' && formatPath(parsed.path)).toBe('attributes["gen_ai.response.id"][2].x')
  })
})

describe('--map conversions', () => {
  it('maps constants, typed by field', () => {
    expect(value('tenant_id=const:acme', {})).toEqual({ok: true, value: 'acme'})
    expect(value('status=const:200', {})).toEqual({ok: true, value: 200})
    expect(() => parseFieldSpec('status=const:ok')).toThrow(/const for status must be an integer/)
  })

  it('captures with a regex: the group v, else the first group, else the whole match', () => {
    const line = {custom_id: 'tn-acme/sess-1/req-9'}
    expect(value('tenant_id=regex:custom_id:^(?<v>[^/]+)/', line)).toEqual({ok: true, value: 'tn-acme'})
    expect(value('session_id=regex:custom_id:/([^/]+)/', line)).toEqual({ok: true, value: 'sess-1'})
    expect(value('request_id=regex:custom_id:req-\\d+', line)).toEqual({ok: true, value: 'req-9'})
    expect(value(`tenant_id=regex:meta['a:b']:^x`, {meta: {'a:b': 'xyz'}})).toEqual({ok: true, value: 'x'})
    const miss = value('tenant_id=regex:custom_id:^acme-', line)
    expect(miss.ok).toBe(false)
    expect(!miss.ok && miss.reason).toMatch(/does not match/)
  })

  it('converts epoch seconds, milliseconds and nanoseconds explicitly', () => {
    expect(value('ts=epoch_s:created', {created: 1793320751})).toEqual({ok: true, value: '2026-10-30T00:39:11.000Z'})
    expect(value('ts=epoch_ms:t', {t: 1793320751950})).toEqual({ok: true, value: '2026-10-30T00:39:11.950Z'})
    expect(value('ts=epoch_ns:t', {t: '1793320751950567123'})).toEqual({ok: true, value: '2026-10-30T00:39:11.950567123Z'})
    expect(value('ts=epoch_us:t', {t: 1793320751950567})).toEqual({ok: true, value: '2026-10-30T00:39:11.950567Z'})
    expect(value('ts=epoch_s:t', {t: 1793320751.5})).toEqual({ok: true, value: '2026-10-30T00:39:11.500Z'})
  })

  it('refuses an epoch in another unit than the one named, naming the value and the unit it reads right in', () => {
    // Milliseconds given to epoch_s: read so, a time in the year 58804, which the timestamp parser refused as an unrecognised string.
    const ms = value('ts=epoch_s:t', {t: 1793527260123})
    expect(ms.ok).toBe(false)
    expect(!ms.ok && ms.reason).toBe(
      't 1793527260123 is not seconds of a plausible time (read so, it is past the year 9999): it reads as milliseconds (2026-11-01T10:01:00.123Z): --map ts=epoch_ms:t',
    )
    // Seconds given to epoch_ms: a time in January 1970.
    const s = value('ts=epoch_ms:t', {t: 1793527260})
    expect(!s.ok && s.reason).toMatch(/^t 1793527260 is not milliseconds of a plausible time \(read so, it is 1970-01-21T\S+, before 2000\): it reads as seconds \(2026-11-01T10:01:00.000Z\): --map ts=epoch_s:t$/)
    // No unit reads it as a plausible time.
    expect(value('ts=epoch_s:t', {t: 5}).ok).toBe(false)
  })

  it('detects the unit by magnitude with epoch:', () => {
    const at = (t: unknown) => value('ts=epoch:t', {t})
    expect(at(1793320751)).toEqual({ok: true, value: '2026-10-30T00:39:11.000Z'})
    expect(at(1793320751950)).toEqual({ok: true, value: '2026-10-30T00:39:11.950Z'})
    expect(at('1793320751950567')).toEqual({ok: true, value: '2026-10-30T00:39:11.950567Z'})
    expect(at('1793320751950567123')).toEqual({ok: true, value: '2026-10-30T00:39:11.950567123Z'})
    // The documented edges: March 1973 and the year 5138 are read right in every unit.
    expect(epochToIso(100_000_000_000, 'auto')).toEqual({iso: '1973-03-03T09:46:40.000Z'})
    expect(epochToIso(99_999_999_999, 'auto')).toEqual({iso: '5138-11-16T09:46:39.000Z'})
    expect(at('soon').ok).toBe(false)
  })

  it('refuses conversions on fields they do not apply to', () => {
    expect(() => parseFieldSpec('tenant_id=epoch_s:created')).toThrow(/applies to ts only/)
  })
})

describe('--map paths the contract\'s dotted form always took', () => {
  it('still split on dots where the new syntax would refuse them (a key with a colon or a space)', () => {
    expect(parseFieldSpec('tenant_id=meta.tenant:id')[1]).toMatchObject({kind: 'path', path: [{kind: 'key', key: 'meta'}, {kind: 'key', key: 'tenant:id'}]})
    expect(parseFieldSpec('tenant_id=meta.tenant id')[1]).toMatchObject({kind: 'path', path: [{kind: 'key', key: 'meta'}, {kind: 'key', key: 'tenant id'}]})
    expect(parseFieldSpec('tenant_id=http:status')[1]).toMatchObject({kind: 'path', path: [{kind: 'key', key: 'http:status'}]})
    expect(parseFieldSpec('ts=startTime')[1]).toMatchObject({kind: 'path', path: [{kind: 'key', key: 'startTime'}]})
  })
})

describe('--map parse errors are one line naming the spec', () => {
  const cases: [string, RegExp][] = [
    ['tenant', /expected FIELD=PATH/],
    ['tenant=metadata.team', /unknown field "tenant"/],
    ['tenant_id=', /empty path/],
    ['tenant_id=metadata..team', /empty step at column 10/],
    ['tenant_id=metadata.', /ends with "."/],
    ['tenant_id=attributes["gen_ai.response.id"', /unclosed/],
    ["tenant_id=attributes['gen_ai", /unclosed '/],
    ['tenant_id=attributes[x]', /expected an array index or a quoted key/],
    ['tenant_id=regex:custom_id:(', /regex: .*Invalid regular expression/i],
    ['tenant_id=regex:custom_id', /expected regex:PATH:PATTERN/],
    ['tenant_id=const:', /needs a value/],
  ]
  for (const [text, why] of cases) {
    it(text, () => {
      let error: unknown
      try {
        parseFieldSpec(text)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(FieldSpecError)
      const message = (error as Error).message
      expect(message.startsWith(`--map ${text}:`)).toBe(true)
      expect(message).toMatch(why)
      expect(message).not.toContain('\n')
    })
  }
})

describe('applyFieldMap', () => {
  it('replaces mapped fields and reports each one that found nothing', () => {
    const map = parseFieldMap(['tenant_id=metadata.team', 'session_id=metadata.session', 'ts=epoch_s:created'])
    const out = applyFieldMap({request_id: 'r', tenant_id: null, session_id: 'old', ts: null}, {metadata: {team: 't1'}, created: 1793320751}, map)
    expect(out.record).toEqual({request_id: 'r', tenant_id: 't1', session_id: null, ts: '2026-10-30T00:39:11.000Z'})
    expect(out.problems).toEqual(['--map session_id=metadata.session: no key "session" in metadata'])
  })

  it('keeps paths unchanged for a plain path (no accidental conversion)', () => {
    expect(evaluatePath({a: {b: 0}}, [{kind: 'key', key: 'a'}, {kind: 'key', key: 'b'}])).toEqual({ok: true, value: 0})
  })
})

describe('--map request/response take a text, never a constant, metadata or a number', () => {
  // `--map response=const:hello` or `response=status` read the same words (or "200") as every
  // answer, so a scan found no marker and the gate passed on logs that held one.
  it('refuses const: and a key that names metadata, for request and response', () => {
    for (const text of ['response=const:hello', 'request=const:x', 'response=status', 'response=model', 'response=request_id', 'response=regex:model:(m)', 'request=meta.tenant_id', 'response=choices[0].id']) {
      expect(() => parseMapFlag(text), text).toThrow(FieldSpecError)
      // A spec stored in a case is read as it was stored.
      expect(parseFieldSpec(text)[0]).toBe(text.slice(0, text.indexOf('=')))
    }
    expect(() => parseMapFlag('response=const:hello')).toThrow(/const: cannot give the response text/)
    expect(() => parseMapFlag('response=status')).toThrow(/"status" holds a record's metadata, not the response text/)
    // Other fields keep const: and these paths.
    expect(parseMapFlag('tenant_id=const:acme')[1]).toMatchObject({kind: 'const', value: 'acme'})
    expect(parseMapFlag('model=model')[1]).toMatchObject({kind: 'path'})
    expect(parseMapFlag('response=output.content')[1]).toMatchObject({kind: 'path'})
  })

  it('a number or a boolean mapped to a text is no text, with a note', () => {
    const map = parseFieldMap(['response=out', 'request=in'])
    const got = applyFieldMap({response: 'kept?', request: 'kept?'}, {out: 200, in: true}, map)
    expect(got.record).toEqual({response: null, request: null})
    expect(got.problems).toEqual(['--map request=in: a boolean, not the request text', '--map response=out: a number, not the response text'])
    expect(applyFieldMap({}, {out: 'the answer', in: 'the prompt'}, map).record).toEqual({response: 'the answer', request: 'the prompt'})
  })
})

describe('OTLP bytesValue', () => {
  const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64')

  it('is the UTF-8 text its bytes hold, in the standard or URL-safe alphabet, padded or not', () => {
    const text = 'réponse CANARY-abb2946b ü?>'
    expect(unwrapAnyValue({bytesValue: b64(text)})).toBe(text)
    expect(unwrapAnyValue({bytesValue: Buffer.from(text).toString('base64url')})).toBe(text)
    expect(bytesValueText(b64('line one\nline two\ttab'))).toBe('line one\nline two\ttab')
  })

  it('is no text, never its base64 digits, for bytes that are not UTF-8 text, and the caller is told', () => {
    for (const bytes of [Buffer.from([0xff, 0xfe, 0x00, 0x41]), Buffer.from([0x00, 0x01, 0x02, 0x03]), Buffer.from('text with a \u0000 in it')]) {
      const told: string[] = []
      expect(unwrapAnyValue({bytesValue: b64(bytes)}, () => told.push('x'))).toBeNull()
      expect(told).toHaveLength(1)
    }
    expect(bytesValueText('not base64 at all!')).toBeNull()
    // Nested in a kvlist, the same.
    let told = 0
    const v = unwrapAnyValue({kvlistValue: {values: [{key: 'content', value: {bytesValue: b64(Buffer.from([0xc3, 0x28]))}}]}}, () => told++)
    expect(v).toEqual({content: null})
    expect(told).toBe(1)
  })

  it('a --map path that reaches such bytes fails, naming them', () => {
    const source = {attributes: [{key: 'gen_ai.completion.0.content', value: {bytesValue: b64(Buffer.from([0xff, 0x00]))}}]}
    const got = evaluateField(parseFieldSpec('response=attributes["gen_ai.completion.0.content"]')[1], source)
    expect(got).toEqual({ok: false, reason: expect.stringMatching(/bytesValue that is not UTF-8 text/)})
  })
})
