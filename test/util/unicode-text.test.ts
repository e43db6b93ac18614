import {expect, it} from 'vitest'
import {loneSurrogate, notUnicodeField} from '../../src/util/unicode-text.js'

it('finds a lone surrogate (high or low, anywhere) and passes surrogate pairs and plain text', () => {
  expect(loneSurrogate('tn-\ud800')).toBe(0xd800)
  expect(loneSurrogate('\udc00tn')).toBe(0xdc00)
  expect(loneSurrogate('a\ud83d\ude00b\udbff')).toBe(0xdbff)
  // A low surrogate before its high one is two lone ones, not a pair.
  expect(loneSurrogate('\ude00\ud83d')).toBe(0xde00)
  for (const text of ['', 'tn-a', 'Ünïcode', 'tn-\ud83d\ude00', '\ufffd\ufffd']) expect(loneSurrogate(text), text).toBeNull()
  // Two ids that UTF-8 would write alike are both refused.
  expect(Buffer.from('tn-\ud800').equals(Buffer.from('tn-\udc00'))).toBe(true)
  expect(notUnicodeField({request_id: 'r1', tenant_id: 'tn-\udc00'})).toBe('tenant_id holds a lone surrogate (\\udc00): not Unicode text')
  expect(notUnicodeField({request_id: 'r1', tenant_id: 'tn-a'})).toBeNull()
})
