import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {debugRequested} from '../../src/cli/base-command.js'
import {csvCell, toCsv} from '../../src/cli/csv.js'
import {guardOut} from '../../src/cli/out-guard.js'
import {renderClock} from '../../src/cli/render-clock.js'
import {pdfSafe} from '../../src/cli/render-pdf.js'
import {renderScope} from '../../src/cli/render-scope.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {computeCaseClock} from '../../src/notify/clock.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {displayWidth} from '../../src/cli/text-width.js'
import {rowFromRecord} from '../../src/extract/parse-record.js'
import {escapeMd, escapeMdLinkingMail, unescapeMd} from '../../src/notify/escape.js'
import {renderJunit} from '../../src/probe/junit.js'
import type {ProbeResult} from '../../src/probe/run-probe.js'
import {withoutInvisible} from '../../src/util/invisible.js'
import {escapeJsonText, safeLine, safeText} from '../../src/util/sanitize.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'
import {runCli, tempDir} from '../helpers/cli.js'

// QA (spoof): text that prints as another text, and structure injected into outputs.

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

// Characters that print as nothing and passed the sanitizer (QA spoof #2): tag characters,
// variation selectors (both blocks), Hangul fillers, the Braille blank, the combining grapheme
// joiner, Khmer inherent vowels, deprecated format characters, musical formatting and Egyptian
// hieroglyph format controls.
const INVISIBLES = [0xe0062, 0xe0020, 0xe007f, 0xfe0f, 0xfe00, 0xe0100, 0xe01ef, 0x3164, 0x115f, 0x1160, 0xffa0, 0x2800, 0x034f, 0x17b4, 0x17b5, 0x206a, 0x206f, 0x1d173, 0x1d17a, 0x13430, 0x13438]

describe('invisible characters are shown, never printed raw (spoof #2)', () => {
  it('safeLine, safeText and JSON show each as an escape', () => {
    for (const cp of INVISIBLES) {
      const ch = String.fromCodePoint(cp)
      const id = `tn-acme${ch}`
      for (const shown of [safeLine(id), safeText(id)]) {
        expect(shown, `U+${cp.toString(16)}`).not.toContain(ch)
        expect(shown).not.toBe('tn-acme')
        expect(shown.startsWith('tn-acme\\u')).toBe(true)
      }
      const json = escapeJsonText(JSON.stringify({tenant: id}))
      expect(json).not.toContain(ch)
      expect(JSON.parse(json)).toEqual({tenant: id})
    }
  })

  it('a character beyond U+FFFF is written braced, so that its escape cannot read as a shorter one and a digit', () => {
    expect(safeLine('tn-acme\u{e0062}\u{e0032}')).toBe('tn-acme\\u{e0062}\\u{e0032}')
    // The text that spells that escape reads otherwise (backslashes doubled).
    expect(safeLine('tn-acme\\u{e0062}')).toBe('tn-acme\\\\u{e0062}')
  })

  it('two ids that differ by an invisible character print differently', () => {
    const ids = ['tn-acme', ...INVISIBLES.map((cp) => `tn-acme${String.fromCodePoint(cp)}`)]
    // Distinct once what prints as nothing is taken away, as a reader sees them.
    expect(new Set(ids.map((id) => withoutInvisible(safeLine(id)))).size).toBe(ids.length)
  })

  it('a non-ASCII space at the edge of an id is shown; inside it is a space', () => {
    expect(safeLine('tn-acme\u00a0')).toBe('tn-acme\\xa0')
    expect(safeLine('\u3000tn-acme')).toBe('\\u3000tn-acme')
    expect(safeLine('tn-acme\u00a0 ')).toBe('tn-acme\\xa0 ')
    expect(safeLine('tn\u00a0acme')).toBe('tn\u00a0acme')
    expect(escapeJsonText(JSON.stringify('tn-acme\u00a0'))).toBe('"tn-acme\\u00a0"')
  })

  it('the width of a table cell counts invisible characters as the terminal draws them (none)', () => {
    expect(displayWidth('tn-acme\u{e0062}\u{e0032}')).toBe(7)
    expect(displayWidth('s-b\ufe0f')).toBe(3)
    expect(displayWidth(safeLine('tn-acme\u{e0062}'))).toBe('tn-acme\\u{e0062}'.length)
  })

  it('a log line whose id is only invisible characters is refused, naming the field', () => {
    for (const blank of ['\u3164', '\u2800\u2800', '\u{e0020}', '\u115f \u1160']) {
      const out = rowFromRecord({ts: '2026-11-02T06:00:00Z', request_id: 'r1', tenant_id: blank, session_id: 's1', status: 200})
      expect(out).toEqual({bad: expect.stringMatching(/^field tenant_id is only invisible characters \(U\+[0-9A-F]{4,5} and the like\)/)})
    }
    const kept = rowFromRecord({ts: '2026-11-02T06:00:00Z', request_id: 'r1', tenant_id: 'tn-a\u{e0020}', session_id: 's1', status: 200})
    expect('row' in kept).toBe(true)
  })

  it('a registry id holding an invisible character is refused, naming file, line and code point', async () => {
    tc = makeCase()
    await expect(tc.addCanaries([['CANARY-0123456789abcdef0123', 'tn-acme', 's-a'], ['CANARY-1123456789abcdef0123', 'tn-acme\u{e0020}', 's-b']])).rejects.toThrow(
      /canaries-\d+\.csv:3: tenant_id "tn-acme\u{e0020}" holds U\+E0020, a character that prints as nothing/u,
    )
    await expect(tc.addCanaries([['CANARY-2123456789abcdef0123', 'tn-c', 's-c\ufe0f']])).rejects.toThrow(/:2: session_id .* holds U\+FE0F/)
    await expect(tc.addCanaries([['CANARY-3123456789abcdef0123', '\u3164', 's-d']])).rejects.toThrow(/:2: tenant_id .* holds U\+3164/)
  })
})

describe('CSV cells a semicolon-locale spreadsheet or a tab split would evaluate (spoof #5)', () => {
  it('quotes cells holding ; or TAB, and guards each part after them that starts a formula', () => {
    expect(csvCell('x;=1+1;')).toBe(`"x;'=1+1;"`)
    expect(csvCell("tn-b;=cmd|' /C calc'!A0;")).toBe(`"tn-b;'=cmd|' /C calc'!A0;"`)
    expect(csvCell('s; @SUM(1+1)')).toBe(`"s;' @SUM(1+1)"`)
    expect(csvCell('tn-a\t=1+1')).toBe(`"tn-a\t'=1+1"`)
    expect(csvCell('tn-a;+1')).toBe(`"tn-a;'+1"`)
    expect(csvCell('a;b')).toBe('"a;b"')
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('=1+1')).toBe(`'=1+1`)
  })

  it('no part of any line, split on ; or TAB, starts a formula', () => {
    const csv = toCsv(['tenant', 'session'], [{tenant: 'tn-b;=1+1;', session: 's;@SUM(1+1);'}, {tenant: 'tn-a\t-2+3', session: 'x'}])
    for (const line of csv.split('\r\n')) for (const part of line.split(/[;\t]/)) expect(part, line).not.toMatch(/^\s*"*\s*[=+\-@]/)
  })
})

describe('PDF text (spoof #4)', () => {
  it('a character the fonts lack and the literal text of its replacement print differently', () => {
    const drawn = pdfSafe('tn-\u4e2d')
    const literal = pdfSafe('tn-<U+4E2D>')
    expect(drawn).not.toBe(literal)
    expect(literal).toBe('tn-<U+003C>U+4E2D>')
    expect(pdfSafe('a < b')).toBe('a < b')
  })
})

describe('JUnit XML (spoof #6)', () => {
  it('writes bidi overrides, C1 controls, tag characters, ESC and BEL as the console shows them', () => {
    const message = 'bad \u202egnp.exe \u009b31m \u{e0062}\u{e0032} \u001b]8;;http://evil\u0007x'
    const result = {
      target: 'http://127.0.0.1:1', started_at: '2026-11-02T00:00:00.000Z', duration_ms: 1, not_run: [], target_failure: null,
      checks: [{name: 'c1', outcome: 'error', detail: message, ok: false, inconclusive: true, elapsed_ms: 1, expected: 'x', size_tokens: null}],
    } as unknown as ProbeResult
    const xml = renderJunit(result)
    expect(xml).not.toMatch(/[\u202e\u009b\u001b\u0007]|\u{e0062}/u)
    expect(xml).toContain('\\u202egnp.exe')
    expect(xml).toContain('\\x9b31m')
    expect(xml).toContain('\\u{e0062}')
    expect(xml).toContain('\\x1b]8;;http://evil\\x07x')
  })
})

describe('--verbose and DEBUG (spoof #7)', () => {
  it('--verbose shows the stack with the values of its message escaped, as the message is', () => {
    const dir = tempDir()
    const name = 'x\u001b]0;PWNED\u0007\u001b[2Jy.jsonl'
    writeFileSync(join(dir, name), '{"ts": "2026-11-02T06:00:00Z", "request_id": "r1", "tenant_id": "t", "session_id": "s", "status": 20')
    const r = runCli(['ingest', 'logs', name, '--db', 'c.db', '--verbose'], {cwd: dir})
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('\\x1b]0;PWNED\\x07')
    expect(r.stderr.split('\n').length).toBeGreaterThan(2)
    expect(r.stderr).not.toMatch(/[\u001b\u0007]/)
  })

  it('DEBUG=0 (or false, no, off, empty) does not ask for the stack', () => {
    for (const v of [undefined, '', '0', 'false', 'no', 'off', ' OFF ']) expect(debugRequested(v), String(v)).toBe(false)
    for (const v of ['1', 'true', '*', 'crosstalk']) expect(debugRequested(v), v).toBe(true)
  })
})

describe('Markdown e-mail autolinks (spoof #11)', () => {
  it('an e-mail-shaped value is not a GFM e-mail autolink; the PDF reads it back', () => {
    const md = escapeMd('help@evil-phish.example')
    // GFM's extension links [A-Za-z0-9.+_-]+@ directly followed by the domain: the local part is cut from the @.
    expect(md).not.toMatch(/[A-Za-z0-9.+_-]@/)
    expect(unescapeMd(md)).toBe('help@evil-phish.example')
    expect(escapeMdLinkingMail('write to dpo@acme.example')).toBe('write to dpo@acme.example')
  })
})

describe('report --out over a copy of an original (spoof #12)', () => {
  it('a file holding the bytes of a log the case holds is refused, --force or not', async () => {
    tc = makeCase()
    const log = await tc.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hi', response_text: 'fine'}])
    const copy = join(tc.dir, 'copy-of-log.jsonl')
    copyFileSync(log, copy)
    for (const force of [false, true]) expect(() => guardOut(tc!.db, copy, {report: 'article33', force})).toThrow(expect.objectContaining({code: 'E_OUT_PROTECTED', exit: 2}))
    expect(readFileSync(copy)).toEqual(readFileSync(log))
    // Another file of the same size is not the log.
    const other = join(tc.dir, 'other.txt')
    writeFileSync(other, Buffer.alloc(readFileSync(log).length, 0x61))
    expect(() => guardOut(tc!.db, other, {report: 'article33', force: true})).not.toThrow()
  })
})

describe('long ids cut at the end read alike (spoof #8, #9)', () => {
  it("clock: two controllers that differ at the end print as two, one notified and one overdue", () => {
    const [a, b] = ['tn-contoso-healthcare-emea-production-cluster-01', 'tn-contoso-healthcare-emea-production-cluster-02']
    const incident = {role: 'processor' as const, aware_at: '2026-11-02T09:00:00Z', controller_deadline_hours: 24}
    const clock = computeCaseClock(incident, [{phase: 'initial', at: '2026-11-02T10:00:00Z', recipient: a}], new Date('2026-12-07T00:00:00Z'), [a, b], true)
    const rows = renderClock(clock, 'UTC').split('\n').filter((l) => /^ {2}tn-contoso/.test(l))
    expect(rows).toHaveLength(2)
    const shown = rows.map((l) => l.trim().split(/\s{2,}/)[0])
    expect(new Set(shown).size).toBe(2)
    expect(rows.find((l) => l.includes('notified  '))).toMatch(/-01\s/)
    expect(rows.find((l) => l.includes('overdue'))).toMatch(/-02\s/)
  })

  it('scope: two decode nodes that differ at the end print as two', async () => {
    tc = makeCase()
    const [n1, n2] = ['gpu-pool-a100-eu-west-4-zone-b-rack-17-decode-host-01', 'gpu-pool-a100-eu-west-4-zone-b-rack-17-decode-host-02']
    await tc.addCanaries([['CANARY-bbbbbbbbbbbbbbbb', 'acme', 's1']])
    await tc.addFile([
      {request_id: 'a', tenant_id: 'acme', session_id: 's1', decode_node: n1, request_text: 'mine CANARY-bbbbbbbbbbbbbbbb', response_text: 'ok'},
      {request_id: 'b', tenant_id: 'beta', session_id: 's2', decode_node: n1, response_text: 'yours: CANARY-bbbbbbbbbbbbbbbb'},
      {request_id: 'c', tenant_id: 'beta', session_id: 's3', decode_node: n2, response_text: 'again: CANARY-bbbbbbbbbbbbbbbb'},
    ])
    scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z')})
    const text = renderScope(computeScope(loadScopeInputs(tc.db)), {registry: true})
    const table = text.slice(text.indexOf('By decode node'))
    const rows = table.split('\n').filter((l) => l.startsWith('gpu-pool'))
    expect(rows).toHaveLength(2)
    expect(rows.some((l) => /host-01\s/.test(l))).toBe(true)
    expect(rows.some((l) => /host-02\s/.test(l))).toBe(true)
  })
})
