import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// A processor's clock lists the controllers to notify. Where detection has covered the case and
// found no exposure, the list is empty because nothing was found, not because detection is yet
// to run: the clock says which of the two it is.

describe("a processor's clock with no controller affected", () => {
  it('says detection covered the logs and found none, never that it has still to run', async () => {
    const c = makeCase()
    await c.addCanaries([['CANARY-a1a1a1a1a1a1a1a1a1a1', 'acme', 'acme-s1']])
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: 'hello CANARY-a1a1a1a1a1a1a1a1a1a1', response_text: 'own CANARY-a1a1a1a1a1a1a1a1a1a1'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: 'a clean answer'},
    ])
    scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    c.close()
    const opened = await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])
    expect(opened.code, opened.stderr).toBe(0)
    const clock = await run(['clock', '--db', c.path, '--now', '2026-11-03T03:00:00Z'])
    expect(clock.code, clock.stderr).toBe(0)
    expect(clock.stdout).toMatch(/Controllers \(Art\. 33\(2\)\): none affected/)
    expect(clock.stdout).toMatch(/Status: +NOTHING OWED/)
    expect(clock.stdout).not.toMatch(/once detection has run/)
    expect(clock.stdout).toMatch(/detection covered every ingested log file and found no response carrying another session's data/)
  })

  it('while detection has not run, says how many are to be notified is not known', async () => {
    const c = makeCase()
    await c.addFile([{request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: 'hi', response_text: 'answer'}])
    c.close()
    await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])
    const clock = await run(['clock', '--db', c.path, '--now', '2026-11-03T03:00:00Z'])
    expect(clock.stdout).toMatch(/how many are to be notified is not known yet: detection is incomplete/)
    expect(clock.stdout).not.toMatch(/none: detection covered/)
  })
})
