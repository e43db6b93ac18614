import {describe, expect, it} from 'vitest'
import {scrubSecrets, targetSecrets} from '../../src/util/target-url.js'

// QA probe (lower note): a target that echoed the --api-key cut in two ("sk-sup...ersecret-123456"),
// hex-encoded, or with every "-" percent-encoded ("%2D", which encodeURIComponent leaves as "-")
// got it past the scrubbing into --json and the JUnit report.

const KEY = 'sk-supersecret-123456'
const secrets = targetSecrets(new URL('http://127.0.0.1:8000/'), KEY)

describe('scrubSecrets: a key echoed in pieces or encoded', () => {
  it.each([
    ['cut in two', `key sk-sup...ersecret-123456 refused`],
    ['hex', `key (hex ${Buffer.from(KEY).toString('hex')}) refused`],
    ['every "-" percent-encoded', `key ${KEY.replaceAll('-', '%2D')} refused`],
    ['lower-case escapes', `key ${KEY.replaceAll('-', '%2d')} refused`],
  ])('%s: no usable part of the key is left', (_, message) => {
    const out = scrubSecrets(message, secrets)
    expect(out).toContain('(withheld)')
    expect(out).not.toMatch(/supersecret|ersecret|123456|7375706572/i)
    expect(out).toMatch(/^key .*refused$/)
  })

  it('leaves a message that shares only a short run with the key as it is', () => {
    expect(scrubSecrets('model sk-s returned 1234 tokens on 2024-02-01', secrets)).toBe('model sk-s returned 1234 tokens on 2024-02-01')
  })
})
