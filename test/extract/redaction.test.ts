import {describe, expect, it} from 'vitest'
import {LANGFUSE_MASK_FAILED, langfuseMaskedNote, LITELLM_NO_RESPONSE_LOGGED, LITELLM_NO_RESPONSE_STORED, OPENINFERENCE_REDACTED, oiRedactedNote, onlyPlaceholder, placeholderOf, REDACTED, redactedNote, unloggedAnswers} from '../../src/extract/redaction.js'

it('a text is LiteLLM\'s placeholder when it holds the placeholder and nothing but white space beside it', () => {
  for (const t of [REDACTED, `${REDACTED}\n${REDACTED}`, `  ${REDACTED}\t`, `\u00a0${REDACTED}\n\n${REDACTED}\u2003`]) expect(onlyPlaceholder(t), JSON.stringify(t)).toBe(true)
  for (const t of ['', ' ', `${REDACTED}x`, `x ${REDACTED}`, `${REDACTED} and more`, `what is ${REDACTED}?`, REDACTED.toUpperCase(), `${REDACTED}-by-litellm`]) {
    expect(onlyPlaceholder(t), JSON.stringify(t)).toBe(false)
  }
})

it('a text is a placeholder of its producer when it holds one or more of them, joined with white space or nothing, and nothing else', () => {
  const oi = OPENINFERENCE_REDACTED
  const lf = LANGFUSE_MASK_FAILED
  for (const [t, note] of [
    [oi, oiRedactedNote('response')], [`${oi}${oi}`, oiRedactedNote('response')], [` ${oi}\n${oi} `, oiRedactedNote('response')],
    [lf, langfuseMaskedNote('response')], [`${lf}\n${lf}`, langfuseMaskedNote('response')],
    [`${REDACTED}${REDACTED}`, redactedNote('response')], [`${oi}\n${REDACTED}`, oiRedactedNote('response')],
  ] as const) expect(placeholderOf(t)?.note('response'), JSON.stringify(t)).toBe(note)
  for (const t of ['', 'REDACTED', `${oi} and more`, `x${oi}`, `${oi}x`, oi.toLowerCase(), '<fully masked>', `${lf}.`]) expect(placeholderOf(t), JSON.stringify(t)).toBeNull()
  expect(onlyPlaceholder(oi)).toBe(false)
})

describe('unloggedAnswers: the answers a file\'s notes say the logger never wrote', () => {
  it('counts each note that means so, from a read\'s counts or a stored file\'s note lines, and names the most common', () => {
    const counts = {[redactedNote('response')]: 2, [LITELLM_NO_RESPONSE_STORED]: 5, [redactedNote('request')]: 9, 'no message content on the span': 4}
    expect(unloggedAnswers(counts)).toEqual({answers: 7, why: expect.stringMatching(/store_prompts_in_spend_logs/)})
    const lines = ['UTF-8 byte-order mark at the start of the file skipped', `1 record: ${redactedNote('response')}`, `3 records: ${LITELLM_NO_RESPONSE_LOGGED}`, '4 of 9 answers (errors aside) have no response text']
    expect(unloggedAnswers(lines)).toEqual({answers: 4, why: 'LiteLLM logs no text while message logging is turned off'})
    expect(unloggedAnswers([])).toEqual({answers: 0, why: null})
    expect(unloggedAnswers({'no message content on the span': 3})).toEqual({answers: 0, why: null})
    expect(unloggedAnswers({[langfuseMaskedNote('response')]: 2, [oiRedactedNote('response')]: 1})).toEqual({answers: 3, why: expect.stringMatching(/Langfuse SDK .*mask function failed/)})
  })
})
