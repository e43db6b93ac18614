import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {duplicateKeyPath, duplicateKeyReason} from '../../src/extract/duplicate-keys.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'
import {resetNativeAddon} from '../../src/util/native-addon.js'
import {withoutLineExcerpt} from '../../src/util/sanitize.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// JSON.parse keeps the last value of a key given twice, silently (and so did the native
// addon's serde_json reading): a native line with two "response" members held a text no scan
// searched, two "session_id"s an attribution another reader would not make. Such a line is
// refused as a bad line naming the key, by TypeScript and by the addon alike (the addon leaves
// the line to TypeScript), so the gate fails on it instead of passing over a hidden leak.

const LEAKED = 'CANARY-5f2c9a1e7b3d4c6a'

const answer = (text: string): string => JSON.stringify({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})
const head = (id: string, session: string): string => `"ts":"2026-11-02T06:00:0${id.length % 10}Z","request_id":"${id}","tenant_id":"tn-b","session_id":"${session}","status":200`

/** A native line whose members are given as written (JSON.stringify cannot write a key twice). */
const line = (...members: string[]): string => `{${members.join(',')}}`

describe('duplicateKeyPath', () => {
  it('names a top-level key given twice, spelled plainly or with escapes', () => {
    expect(duplicateKeyPath(line(head('r1', 's'), `"response":${answer('a')}`, `"response":${answer('b')}`))).toBe('response')
    expect(duplicateKeyPath(line(`"session_id":"x"`, head('r1', 's')))).toBe('session_id')
    expect(duplicateKeyPath(line(head('r1', 's'), `"respons\\u0065":"a"`, `"response":"b"`))).toBe('response')
    expect(duplicateKeyPath(line(head('r1', 's'), `"\\u0072equest" : "a"`, ` "request":"b"`))).toBe('request')
    // A key no reader takes: which copy another tool shows is still not known.
    expect(duplicateKeyPath(line(head('r1', 's'), `"gateway":"a"`, `"gateway":"b"`))).toBe('gateway')
  })

  it('names a key given twice at any depth by its path', () => {
    const twice = answer('a').replace('"content":', '"content":"b","content":')
    expect(duplicateKeyPath(line(head('r1', 's'), `"response":${twice}`))).toBe('response.choices[0].message.content')
    expect(duplicateKeyPath(line(head('r1', 's'), `"y":[1,[2,{"a.b":3,"a.b":4}]]`))).toBe('y[1][1]["a.b"]')
    expect(duplicateKeyPath('[{"response":1},{"k":1,"k":2}]')).toBe('[1].k')
    // An object past the size compared key by key.
    const many = Array.from({length: 40}, (_, k) => `"k${k}":${k}`).join(',')
    expect(duplicateKeyPath(`{"o":{${many},"k7":0}}`)).toBe('o.k7')
    expect(duplicateKeyPath(`{"o":{${many}},"p":{${many}}}`)).toBeNull()
  })

  it('clears a key of the same name in another object, quoted inside a text, or used as a value', () => {
    const nested = line(head('r1', 's'), `"model":"m"`, `"request":{"model":"m","messages":[{"role":"user","content":"\\"response\\": {\\"model\\": 1}"}]}`, `"response":{"model":"m","status":"response","usage":{"prompt_tokens":1}}`, `"prompt_tokens":5`)
    expect(duplicateKeyPath(nested)).toBeNull()
    // A string ending in backslashes, and arrays and numbers between members.
    expect(duplicateKeyPath(line(`"x":"a\\\\"`, head('r1', 's'), `"y":[1,[2,{"response":3}],"]"]`, `"response":-1.5e3`))).toBeNull()
    expect(duplicateKeyPath('[{"response":1},{"response":2}]')).toBeNull()
    expect(duplicateKeyPath('{"a":{},"b":{"a":{}},"c":[]}')).toBeNull()
  })
})

describe('a native line that gives a field twice', () => {
  // One record (s-a) registers its marker; the other's line carries the marker in its first
  // "response" and a clean text in its second, which is the one JSON.parse keeps.
  const write = (dir: string): {logs: string; canaries: string} => {
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${LEAKED},tn-a,s-a,2026-11-01T00:00:00Z\n`)
    const logs = join(dir, 'logs.jsonl')
    writeFileSync(logs, [
      line(head('r-a', 's-a'), `"request":${JSON.stringify({model: 'm', messages: [{role: 'user', content: `remember ${LEAKED}`}]})}`, `"response":${answer('noted')}`),
      line(head('r-b', 's-b'), `"response":${answer(`here is ${LEAKED}`)}`, `"response":${answer('nothing to see')}`),
      line(head('r-c', 's-c'), `"session_id":"s-a"`, `"response":${answer('hello')}`),
      line(head('r-d', 's-d'), `"model":"m"`, `"request":{"model":"m","messages":[]}`, `"response":${answer('fine')}`),
      '',
    ].join('\n'))
    return {logs, canaries}
  }

  for (const native of [true, false]) {
    it(`is quarantined as a bad line naming the key, ${native ? 'with' : 'without'} the native addon`, async () => {
      const dir = tempDir()
      const {logs} = write(dir)
      const before = process.env.CROSSTALK_NATIVE
      if (native) delete process.env.CROSSTALK_NATIVE
      else process.env.CROSSTALK_NATIVE = '0'
      resetNativeAddon()
      const db = openCase(join(dir, 'case.db'), {create: true})
      try {
        await ingestLogs(db, {paths: [logs], now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
        expect(db.prepare('SELECT request_id FROM records ORDER BY request_id').pluck().all()).toEqual(['r-a', 'r-d'])
        expect(db.prepare('SELECT line_no, reason FROM bad_lines ORDER BY line_no').all()).toEqual([
          {line_no: 2, reason: 'duplicate key "response": the line gives it twice, and which value is the record\'s cannot be told'},
          {line_no: 3, reason: 'duplicate key "session_id": the line gives it twice, and which value is the record\'s cannot be told'},
        ])
      } finally {
        db.close()
        if (before === undefined) delete process.env.CROSSTALK_NATIVE
        else process.env.CROSSTALK_NATIVE = before
        resetNativeAddon()
      }
    })
  }

  it('makes the leak gate fail (exit 1, the quarantine named) instead of passing over the hidden text', async () => {
    const dir = tempDir()
    const {logs, canaries} = write(dir)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', canaries, '--db', db])).code).toBe(0)
    await run(['ingest', 'logs', logs, '--db', db])
    const scan = await run(['scan', '--fail-on-leak', '--db', db])
    expect(scan.stderr).toMatch(/logs\.jsonl \(2 quarantined lines never judged/)
    expect(scan.code).toBe(1)
    const bad = await run(['status', '--bad-lines', '--db', db])
    expect(bad.stdout).toContain('duplicate key "response"')
  })
})

describe('a key given twice that is log content (QA differential #5)', () => {
  const KEY = `jan.kowalski@example.com ${LEAKED}`

  it('is shown with its quoted keys withheld, its plain names and indices kept', () => {
    const shown = (path: string) => withoutLineExcerpt(duplicateKeyReason(path))
    expect(shown(duplicateKeyPath(`{"meta":{${JSON.stringify(KEY)}:1,${JSON.stringify(KEY)}:2}}`)!)).toBe(
      'duplicate key "meta[<key withheld>]": the line gives it twice, and which value is the record\'s cannot be told',
    )
    // A quote and a backslash inside the key do not end it early; what follows it is kept.
    expect(shown('a[0]["x \\" \\\\ y"].b["z w"]')).toBe('duplicate key "a[0][<key withheld>].b[<key withheld>]": the line gives it twice, and which value is the record\'s cannot be told')
    expect(shown('response(event 3).choices[0].delta')).toBe(duplicateKeyReason('response(event 3).choices[0].delta'))
    // A dotted field name (an OTel attribute) is no log content: kept.
    expect(shown('attributes["gen_ai.completion.0.content"]')).toBe(duplicateKeyReason('attributes["gen_ai.completion.0.content"]'))
  })

  it('never reaches stderr, status --bad-lines or its JSON in full', async () => {
    const dir = tempDir()
    const logs = join(dir, 'a.jsonl')
    const meta = `"meta":{${JSON.stringify(KEY)}:"x",${JSON.stringify(KEY)}:"y"}`
    writeFileSync(logs, `${line(head('r-a', 's-a'), `"response":${answer('ok')}`)}\n${line(head('r-b', 's-b'), `"response":${answer('ok')}`, meta)}\n`)
    const db = join(dir, 'case.db')
    const ingest = await run(['ingest', 'logs', logs, '--db', db])
    const human = await run(['status', '--bad-lines', '--db', db])
    const json = await run(['status', '--bad-lines', '--json', '--db', db])
    expect(human.stdout).toContain('duplicate key "meta[<key withheld>]"')
    for (const out of [ingest.stdout, ingest.stderr, human.stdout, human.stderr, json.stdout]) {
      expect(out).not.toContain('kowalski')
      expect(out).not.toContain(LEAKED.slice(0, 12))
    }
    const only = join(dir, 'one.jsonl')
    writeFileSync(only, `${line(head('r-c', 's-c'), `"response":${answer('ok')}`, meta)}\n`)
    const refused = await run(['ingest', 'logs', only, '--db', db])
    expect(refused.stderr).toContain('duplicate key "meta[<key withheld>]"')
    expect(refused.stderr).not.toContain('kowalski')
  })
})
