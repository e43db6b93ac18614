import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {makeCase} from '../helpers/case-builder.js'

// A listing over a case where nothing was searched (no log record to scan, or never scanned) under
// --allow-incomplete: its empty list is no finding of none. The console says nothing was searched
// instead of "No sightings." and the like; beside the empty --json array or CSV (whose shapes are
// the contract's arrays) stderr says it.

const MARKER = 'CANARY-0123456789abcdef0123'
const LISTINGS: Array<[string, RegExp]> = [
  ['sightings', /^No sightings/m],
  ['provenance', /^No response repeats/m],
  ['pii', /^No personal data/m],
]

async function expectNotKnown(db: string, why: RegExp): Promise<void> {
  for (const [command, none] of LISTINGS) {
    const r = await run([command, '--db', db, '--allow-incomplete'])
    expect(r.code, `${command}: ${r.stderr}`).toBe(0)
    expect(r.stdout, command).not.toMatch(none)
    expect(r.stdout, command).toMatch(/: not known: nothing was searched \(/)
    expect(r.stdout, command).toMatch(why)
    for (const format of ['--json', '--csv']) {
      const m = await run([command, '--db', db, '--allow-incomplete', format])
      expect(m.code, `${command} ${format}: ${m.stderr}`).toBe(0)
      expect(m.stderr, `${command} ${format}`).toMatch(/not known: nothing was searched .*an empty list here is no finding of none/)
    }
  }
}

describe('listings over a case where nothing was searched', () => {
  it('scanned, but the case holds no log record', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    await expectNotKnown(c.path, /the case holds no log record, so the scan searched nothing\); an empty list here is no finding of none \(crosstalk ingest logs and crosstalk scan\)/)
  }, 60_000)

  it('never scanned', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    await c.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello there', response_text: 'ok'}])
    c.close()
    await expectNotKnown(c.path, /the case was never scanned \(1 log file, 1 record\)\); an empty list here is no finding of none \(crosstalk scan\)/)
  }, 60_000)

  it('a scanned case with records still lists its none plainly', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    await c.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello there', response_text: 'ok'}])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    for (const [command, none] of LISTINGS) {
      const r = await run([command, '--db', c.path])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout, command).toMatch(none)
      expect(r.stdout + r.stderr, command).not.toMatch(/nothing was searched/)
    }
  }, 60_000)
})
