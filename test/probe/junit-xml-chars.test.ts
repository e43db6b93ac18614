import {describe, expect, it} from 'vitest'
import {renderJunit} from '../../src/probe/junit.js'

// QA probe #11: a server's error message holding U+FFFF made probe --junit write a file no XML
// parser reads, so CI lost every testcase.

describe('probe --junit: characters XML 1.0 forbids (QA probe #11)', () => {
  it('U+FFFE, U+FFFF and lone surrogates in a check become U+FFFD: the file stays well-formed', () => {
    const said = 'bad \uFFFF and \uFFFE and \uD800 alone and \uDC00 too, a pair \uD83D\uDE00 kept'
    const xml = renderJunit({
      verdict: 'inconclusive', target: 'http://127.0.0.1:1', model: 'm', pool_tokens: 1, advertised_tokens: 2, server_max_model_len: null, stated_max_model_len: null,
      sizing: 'estimate', started_at: '2026-11-02T06:48:30.289Z', duration_ms: 1, interrupted: false, target_failure: null, not_run: [],
      checks: [{name: 'context.gap', size_tokens: 1, outcome: 'error', ok: false, inconclusive: true, expected: 'rejected', detail: said, stream: false, requests: 1, http_status: 500, elapsed_ms: 1}],
    })
    // XML 1.0 Char: tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF (a surrogate pair).
    const illegal = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\uD800-\uDFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    expect(xml).not.toMatch(illegal)
    expect(xml).toContain('bad \uFFFD and \uFFFD and \uFFFD alone and \uFFFD too, a pair \uD83D\uDE00 kept')
  })
})
