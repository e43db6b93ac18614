import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {DuplicateKeyError} from '../../src/extract/duplicate-keys.js'
import {jsonPrefix} from '../../src/extract/json-prefix.js'

// A JSON value with the characters a stream's text carries (escapes, astral characters, quotes).
const json = fc.jsonValue({maxDepth: 4}).filter((v) => !Object.is(v, -0))

/** Every string in `v`, depth first. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) strings(x, out)
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) strings(x, out)
  return out
}

describe('jsonPrefix: the value a document cut off part-way starts with', () => {
  it('reads a whole document as JSON.parse does', () => {
    fc.assert(
      fc.property(json, fc.boolean(), (v, spaced) => {
        const text = JSON.stringify(v, null, spaced ? 1 : 0)
        // A bare number or word the text ends in could be cut short: not read (see jsonPrefix).
        if (typeof v !== 'object' || v === null) return
        expect(jsonPrefix(text)).toEqual(JSON.parse(text))
      }),
    )
  })

  it('never throws on a cut document, and a cut string keeps the characters before the cut', () => {
    fc.assert(
      fc.property(json, fc.nat(), (v, at) => {
        const text = JSON.stringify(v)
        const cut = text.slice(0, at % (text.length + 1))
        const got = jsonPrefix(cut)
        // Every string read whole from the cut text is one of the document's, or the start of one.
        const whole = strings(v)
        for (const s of strings(got)) expect(whole.some((w) => w.startsWith(s))).toBe(true)
      }),
    )
  })

  it('reads the piece of a chunk cut inside its delta, an escape cut part-way dropped', () => {
    expect(jsonPrefix('{"choices":[{"index":0,"delta":{"content":"abc')).toEqual({choices: [{index: 0, delta: {content: 'abc'}}]})
    expect(jsonPrefix('{"choices":[{"delta":{"content":"ab\\u00')).toEqual({choices: [{delta: {content: 'ab'}}]})
    expect(jsonPrefix('{"choices":[{"delta":{"content":"\\u0063d"}}]')).toEqual({choices: [{delta: {content: 'cd'}}]})
    // A member whose value never started, a number that may be cut short: left out.
    expect(jsonPrefix('{"a":"x","b":')).toEqual({a: 'x'})
    expect(jsonPrefix('{"a":"x","n":12')).toEqual({a: 'x'})
    // JSON that breaks off mid-way: read up to the break.
    expect(jsonPrefix('{"a":"x" "b":"y"}')).toEqual({a: 'x'})
    expect(jsonPrefix('ping')).toBeUndefined()
    expect(jsonPrefix('')).toBeUndefined()
  })

  it('refuses a key given twice, as a whole document is refused', () => {
    expect(() => jsonPrefix('{"choices":[{"delta":{"content":"a","content":"b')).toThrow(DuplicateKeyError)
  })
})

describe('jsonPrefix and a "__proto__" key', () => {
  it('keeps it as an own property, as JSON.parse does (fast-check found {"__proto__": null} read as {})', () => {
    for (const text of ['{"__proto__":null}', '{"a":1,"__proto__":{"b":2}}']) expect(jsonPrefix(text)).toEqual(JSON.parse(text))
    expect(Object.getPrototypeOf(jsonPrefix('{"__proto__":{"polluted":true}}'))).toBe(Object.prototype)
  })
})
