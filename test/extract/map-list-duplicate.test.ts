import {describe, expect, it} from 'vitest'
import {decodeLine, lineDecoder} from '../../src/extract/line-decoder.js'

// `--map FIELD=list["KEY"]` on a list of {key, value} pairs took the first pair with that key,
// where the OTLP adapter's attribute reading takes the last: a line giving the key twice with
// different values had its session read from one copy, silently. Such a line is refused, as a
// JSON object giving a key twice is (duplicate-keys.ts); the same value twice reads the same.

const at = {file: 'f', line: 1}
const decoder = lineDecoder({format: 'native', map: {session_id: 'labels["session"]'}})
const line = (...sessions: string[]): Buffer =>
  Buffer.from(JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: 'r', tenant_id: 't', labels: sessions.map((s) => ({key: 'session', value: {stringValue: s}})), response: 'hi'}))

describe('--map through a list of key/value pairs that gives the key twice', () => {
  it('refuses the line naming the key when the copies differ', () => {
    expect(decodeLine(line('s-a', 's-b'), decoder, null, at)).toEqual({kind: 'bad', reason: expect.stringMatching(/^duplicate key "labels\[\\"session\\"\]": /)})
  })

  it('reads the line when the copies are the same, or the key is given once', () => {
    for (const l of [line('s-a', 's-a'), line('s-a')]) {
      const out = decodeLine(l, decoder, null, at)
      expect(out.kind === 'items' ? out.records.map((r) => r.row.session_id) : out).toEqual(['s-a'])
    }
  })
})
