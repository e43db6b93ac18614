import {expect, it} from 'vitest'
import {onlyPlaceholder, REDACTED} from '../../src/extract/redaction.js'

it('a text is LiteLLM\'s placeholder when it holds the placeholder and nothing but white space beside it', () => {
  for (const t of [REDACTED, `${REDACTED}\n${REDACTED}`, `  ${REDACTED}\t`, `\u00a0${REDACTED}\n\n${REDACTED}\u2003`]) expect(onlyPlaceholder(t), JSON.stringify(t)).toBe(true)
  for (const t of ['', ' ', `${REDACTED}x`, `x ${REDACTED}`, `${REDACTED} and more`, `what is ${REDACTED}?`, REDACTED.toUpperCase(), `${REDACTED}-by-litellm`]) {
    expect(onlyPlaceholder(t), JSON.stringify(t)).toBe(false)
  }
})
