import {DuplicateKeyError} from './duplicate-keys.js'

type Json = null | boolean | number | string | Json[] | {[k: string]: Json}

/**
 * The JSON value a broken text starts with: the document as far as it goes, every string, array
 * and object still open closed where the text ends or stops being JSON. A stream cut off inside
 * its last event (`data: {"choices":[{"delta":{"content":"…2af3` and nothing after) still sent
 * the client the characters it holds, and the piece it carries continues the text of the events
 * before it: a marker split across the last whole event and the cut one is only whole once the
 * piece is read as that event's delta. undefined where the text does not start a value, or where
 * what it holds is only a value's first letters (`tru`, `-`). A member whose value never started
 * is left out; a string cut part-way keeps its characters, an escape cut part-way is dropped. A
 * key given twice in one object throws DuplicateKeyError, as a whole document's does.
 */
export function jsonPrefix(text: string): Json | undefined {
  let i = 0
  let stopped = false
  const n = text.length
  const space = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
      i++
    }
  }
  // A string from its opening quote: its characters up to the closing quote or the text's end.
  const string = (): string => {
    i++
    let out = ''
    while (i < n) {
      const c = text[i]
      if (c === '"') {
        i++
        return out
      }
      if (c !== '\\') {
        // Up to the next quote or escape in one slice.
        let j = i + 1
        while (j < n && text[j] !== '"' && text[j] !== '\\') j++
        out += text.slice(i, j)
        i = j
        continue
      }
      const e = text[i + 1]
      if (e === undefined) break
      const simple: Record<string, string> = {'"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t'}
      if (e in simple) {
        out += simple[e]
        i += 2
        continue
      }
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6)
        if (hex.length < 4) break
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          stopped = true
          return out
        }
        out += String.fromCharCode(Number.parseInt(hex, 16))
        i += 6
        continue
      }
      // Not an escape JSON has: the text stops being JSON here.
      stopped = true
      return out
    }
    stopped = true
    return out
  }
  const value = (path: string): Json | undefined => {
    space()
    if (i >= n) {
      stopped = true
      return undefined
    }
    const c = text[i]
    if (c === '{') {
      i++
      const obj: {[k: string]: Json} = {}
      const seen = new Set<string>()
      for (;;) {
        space()
        if (i >= n) {
          stopped = true
          return obj
        }
        if (text[i] === '}') {
          i++
          return obj
        }
        if (seen.size > 0) {
          if (text[i] !== ',') {
            stopped = true
            return obj
          }
          i++
          space()
        }
        if (text[i] !== '"') {
          stopped = true
          return obj
        }
        const key = string()
        if (stopped) return obj
        space()
        if (text[i] !== ':') {
          stopped = true
          return obj
        }
        i++
        const keyPath = path === '' ? key : `${path}.${key}`
        if (seen.has(key)) throw new DuplicateKeyError(keyPath)
        seen.add(key)
        const v = value(keyPath)
        // An own property, as JSON.parse makes it: assigning `__proto__` would set the object's prototype instead.
        if (v !== undefined) {
          if (key === '__proto__') Object.defineProperty(obj, key, {value: v, enumerable: true, writable: true, configurable: true})
          else obj[key] = v
        }
        if (stopped) return obj
      }
    }
    if (c === '[') {
      i++
      const arr: Json[] = []
      for (;;) {
        space()
        if (i >= n) {
          stopped = true
          return arr
        }
        if (text[i] === ']') {
          i++
          return arr
        }
        if (arr.length > 0) {
          if (text[i] !== ',') {
            stopped = true
            return arr
          }
          i++
        }
        const v = value(`${path}[${arr.length}]`)
        if (v !== undefined) arr.push(v)
        if (stopped) return arr
      }
    }
    if (c === '"') return string()
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64))
    // A number or word the text ends in may be cut short itself (`12` of `1234`): not read.
    if (literal === null || i + literal[0].length >= n) {
      stopped = true
      return undefined
    }
    i += literal[0].length
    return JSON.parse(literal[0]) as Json
  }
  return value('')
}
