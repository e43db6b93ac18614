import {describe, expect, it} from 'vitest'
import {decodeLine, lineDecoder} from '../../../src/extract/line-decoder.js'

// An id written as a number is taken as its digits only when it is an integer a double holds
// exactly, through an adapter (--map, other formats) as on a plain native line: 1.5 or 1e300
// is no id anyone logged, and was stored as the text "1.5" by adapters while the native decoder
// refused it.

const at = {file: '0', line: 1, offset: 0, length: 0, crc: 0}
const line = (id: unknown) => Buffer.from(JSON.stringify({ts: '2026-11-02T06:00:00Z', meta: {id}, tenant_id: 't', session_id: 's', request_id: 'x', response: 'ok'}))

describe('numeric request ids', () => {
  const mapped = lineDecoder({format: 'native', map: {request_id: 'meta.id'}})
  const plain = lineDecoder({format: 'native'})

  it('an integer is its digits, mapped or not', () => {
    const out = decodeLine(line(7), mapped, null, at)
    expect(out.kind === 'items' && out.records[0]!.row.request_id).toBe('7')
    const native = decodeLine(Buffer.from('{"ts":"2026-11-02T06:00:00Z","request_id":7,"tenant_id":"t","session_id":"s"}'), plain, null, at)
    expect(native.kind === 'items' && native.records[0]!.row.request_id).toBe('7')
  })

  it('any other number is refused through an adapter, as on a native line', () => {
    for (const id of [1.5, 1e300, -0.25]) {
      const out = decodeLine(line(id), mapped, null, at)
      expect(out).toEqual({kind: 'bad', reason: `request_id is the number ${id}, not an integer; log it as a string`})
    }
  })
})
