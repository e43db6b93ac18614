import {describe, expect, it} from 'vitest'
import {hasUnsafeInteger, parseJsonExact} from '../../src/extract/json-text.js'

describe('parseJsonExact', () => {
  it('reads integer literals past 2^53 as strings of their exact digits, anywhere in the value', () => {
    const v = parseJsonExact('{"request_id":12345678901234567891,"n":[1,{"big":-9223372036854775808}],"ok":9007199254740991}') as Record<string, unknown>
    expect(v.request_id).toBe('12345678901234567891')
    expect(v.n).toEqual([1, {big: '-9223372036854775808'}])
    expect(v.ok).toBe(9007199254740991) // the largest safe integer stays a number
  })

  it('leaves strings alone (a card number or an IBAN in a text is not a number) and parses once when nothing is unsafe', () => {
    const text = '{"response":"card 4111111111111111 and 12345678901234567891","id":1234567890123456}'
    expect(parseJsonExact(text)).toEqual({response: 'card 4111111111111111 and 12345678901234567891', id: 1234567890123456})
    expect(hasUnsafeInteger(JSON.parse(text))).toBe(false)
  })

  it('keeps a non-integer or exponent literal as the number JSON reads (the field checks decide what it means)', () => {
    expect(parseJsonExact('{"a":1.5e20,"b":0.5}')).toEqual({a: 1.5e20, b: 0.5})
    expect(hasUnsafeInteger({a: 1.5e20})).toBe(true) // an integer-valued double: the text is scanned, the literal kept
  })
})
