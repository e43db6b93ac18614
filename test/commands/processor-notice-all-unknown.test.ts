import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {makeCase} from '../helpers/case-builder.js'

// `report processor-notice --all --allow-incomplete --json` over findings that no longer cover the
// case wrote no notice and printed {"notices": []}: the same as "no controller affected". The
// contract: under --allow-incomplete, --json carries "detection": {"complete": false, ...}.

const MARKER = 'CANARY-a1a1a1a1a1a1a1a1a1a1'

interface Written {
  notices: Array<{out: string}>
  controllers_known: boolean
  detection: {complete: boolean; files_not_scanned: number; note: string | null}
}

describe('processor-notice --all --json', () => {
  it('says whether the controllers are known, and carries detection', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'acme', 'acme-s1')
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `here: ${MARKER}`},
    ])
    const other = await c.addFile([{request_id: 'r3', tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hello there', response_text: 'a clean answer'}])
    c.close()
    for (const args of [['scan'], ['incident', 'open', '--title', 't', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor']]) {
      const r = await run([...args, '--db', c.path])
      expect(r.code, r.stderr).toBe(0)
    }
    const complete = await run(['report', 'processor-notice', '--all', '--db', c.path, '--out', join(c.dir, 'n1'), '--json'])
    expect(complete.code, complete.stderr).toBe(0)
    const known = JSON.parse(complete.stdout) as Written
    expect(known.controllers_known).toBe(true)
    expect(known.detection.complete).toBe(true)
    expect(known.notices.length).toBe(2)

    // Dropping a file leaves provenance not covering the case: the findings name no controller.
    expect((await run(['drop', other, '--reason', 'test', '--db', c.path])).code).toBe(0)
    const stale = await run(['report', 'processor-notice', '--all', '--allow-incomplete', '--db', c.path, '--out', join(c.dir, 'n2'), '--json'])
    expect(stale.code, stale.stderr).toBe(0)
    const unknown = JSON.parse(stale.stdout) as Written
    expect(unknown.notices).toEqual([])
    expect(unknown.controllers_known).toBe(false)
    expect(unknown.detection.complete).toBe(false)
    expect(unknown.detection.note).toMatch(/Detection is incomplete/)
    expect(stale.stderr).toMatch(/the controllers affected are not known/)
  }, 60_000)
})
