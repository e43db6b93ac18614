import {afterEach, describe, expect, it} from 'vitest'
import {lookAlikeWarnings} from '../../src/cli/look-alike.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'
import {runCli} from '../helpers/cli.js'

// QA (spoof #10, #2): tenant ids that print alike (a Cyrillic а for a Latin a, an invisible tag
// character, a trailing no-break space) were two tenants with no word: a leak from tn-acme to
// tn-аcme read as a tenant leaking to itself.

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

describe('tenant ids that print alike', () => {
  it('are named together, each escaped with the code points that tell it apart, and why', () => {
    const [cyrillic, tagged, greek] = lookAlikeWarnings(['tn-acme', 'tn-\u0430cme', 'tn-b', 'tn-x', 'tn-x\u{e0020}', 'tn-\u03bfk', 'tn-ok'])
    expect(cyrillic).toMatch(/^tenant ids "tn-acme", "tn-\u0430cme" \(holds U\+0430\) print alike \(they differ only by look-alike characters\)/u)
    expect(tagged).toMatch(/"tn-x", "tn-x\\u\{e0020\}" \(holds U\+E0020\) print alike \(they differ only by invisible characters\)/)
    expect(greek).toMatch(/"tn-ok", "tn-\u03bfk" \(holds U\+03BF\)/u)
    expect(lookAlikeWarnings(['tn-a', 'tn-b', 'tn-acme'])).toEqual([])
    expect(lookAlikeWarnings(['pay1', 'payl', 'tn-acme\u00a0', 'tn-acme', 'caf\u00e9', 'cafe\u0301'])).toHaveLength(3)
  })

  it('scope warns on stderr where a leak runs between two of them', async () => {
    tc = makeCase()
    await tc.addCanaries([['CANARY-bbbbbbbbbbbbbbbb', 'tn-acme', 's1']])
    await tc.addFile([
      {request_id: 'a', tenant_id: 'tn-acme', session_id: 's1', request_text: 'mine CANARY-bbbbbbbbbbbbbbbb', response_text: 'ok'},
      {request_id: 'b', tenant_id: 'tn-\u0430cme', session_id: 's2', response_text: 'yours: CANARY-bbbbbbbbbbbbbbbb'},
    ])
    scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z')})
    tc.close()
    const r = runCli(['scope', '--db', tc.path])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: tenant ids "tn-acme", "tn-\u0430cme" \(holds U\+0430\) print alike/u)
  })
})
