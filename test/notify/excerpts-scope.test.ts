import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {excerptWindow} from '../../src/notify/facts.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// --include-excerpts in a draft prepared on behalf of one controller: only that controller's
// leaks (QA repro-13 a: every leak of the case was excerpted into tn-vanta-hr's draft), and every
// marker in a window shortened, not only one written exactly as registered (repro-13 b: a partial
// marker, a 16+ hex prefix, was printed nearly whole).

const A = 'CANARY-a0a0a0a0a0a0a0a0a0a0a0a0' // tn-a's, reaches tn-b as a partial written in upper case
const B = 'CANARY-b0b0b0b0b0b0b0b0b0b0b0b0' // tn-b's, reaches tn-c: nothing to do with tn-a
const C = 'CANARY-c0c0c0c0c0c0c0c0c0c0c0c0' // tn-c's, written in the same window in upper case
const A_PARTIAL = 'CANARY-A0A0A0A0A0A0A0A0A0' // 18 hex digits: a strict prefix of A, other case

async function buildCase(): Promise<string> {
  const c = makeCase()
  await c.addCanaries([[A, 'tn-a', 'a-s1'], [B, 'tn-b', 'b-s1'], [C, 'tn-c', 'c-s1']])
  const rec = (i: number, tenant: string, session: string, text: string) => ({
    request_id: `req-${i}`, ts_ms: Date.parse(`2026-10-22T10:0${i}:00.000Z`), tenant_id: tenant, session_id: session, decode_node: 'n1', prompt_tokens: 10, request_text: 'prompt', response_text: text,
  })
  await c.addFile([
    rec(1, 'tn-b', 'b-s2', `Here: ${A_PARTIAL} and also ${'CANARY-' + C.slice(7).toUpperCase()} end`),
    rec(2, 'tn-c', 'c-s2', `Other customers' text: ${B} secret of tn-b`),
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  c.close()
  return c.path
}

describe('article33 --include-excerpts', () => {
  it('on behalf of one controller carries only the leaks it is on a side of', async () => {
    const db = await buildCase()
    const open = await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor'])
    expect(open.code, open.stderr).toBe(0)
    const r = await run(['report', 'article33', '--db', db, '--now', '2026-10-23T12:00:00Z', '--format', 'json', '--include-excerpts', '--on-behalf-of-controller', 'tn-a'])
    expect(r.code, r.stderr).toBe(0)
    const d = JSON.parse(r.stdout) as {excerpts: Array<{request_id: string; text: string}>}
    // tn-a's marker reached tn-b (req-1); tn-b's reached tn-c (req-2): not tn-a's to notify
    expect(d.excerpts.map((e) => e.request_id)).toEqual(['req-1'])
    expect(r.stdout).not.toContain('secret of tn-b')
    // no marker survives whole or nearly whole, in any case
    expect(r.stdout).not.toMatch(/CANARY-[0-9a-f]{8,}/i)
    expect(d.excerpts[0]!.text).toContain('Here: ')
  })

  it('shortens a partial marker, and every other marker in the window, whatever its case', () => {
    const text = `x ${'y'.repeat(100)} ${A_PARTIAL} mid ${'CANARY-' + C.slice(7).toUpperCase()} ${B} tail`
    const w = excerptWindow(text, {marker: A, token: A_PARTIAL, position: text.indexOf(A_PARTIAL)})
    expect(w).toContain('CANARY-A0A0…')
    expect(w).toContain(' mid ')
    expect(w).not.toMatch(/CANARY-[0-9a-f]{5,}/i)
    // the window is cut around the token: 80 characters of context on each side at most
    expect(w.length).toBeLessThanOrEqual(80 + 'CANARY-A0A0…'.length + 80)
  })
})
