import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {nativeLine} from '../helpers/case-builder.js'

// triage --no-provenance leaves canary-less provenance not covering the new records: every
// figure that counts verbatim text (and every total built on it) is unknown, never 0.

const SECRET = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'

function logs(): {dir: string; file: string} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-noprov-'))
  const file = path.join(dir, 'logs.jsonl')
  const base = Date.parse('2026-11-02T06:00:00Z')
  const lines = [
    nativeLine({request_id: 'src', tenant_id: 'tA', session_id: 'sA', request_text: `keep this: ${SECRET}`, response_text: 'noted'}, base),
    nativeLine({request_id: 'leak', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `sure, ${SECRET}`}, base + 1000),
  ]
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  return {dir, file}
}

describe('triage --no-provenance', () => {
  it('prints the provenance figures, the exposure and the estimates as unknown, not 0', async () => {
    const {dir, file} = logs()
    const r = await run(['triage', file, '--db', path.join(dir, 'a.db'), '--no-provenance'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/provenance-attributed responses +unknown/)
    expect(r.stdout).toMatch(/by verbatim text only +unknown/)
    expect(r.stdout).toMatch(/responses carrying another session's data +unknown/)
    expect(r.stdout).toMatch(/data subjects \(sessions\) +unknown +unknown/)
    expect(r.stdout).not.toMatch(/provenance-attributed responses +0/)
  })

  it('--json gives them as null, with a warning line', async () => {
    const {dir, file} = logs()
    const r = await run(['triage', file, '--db', path.join(dir, 'b.db'), '--no-provenance', '--json'])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.scope.detection.provenance).toBe('stale')
    expect(out.scope.exposure).toBeNull()
    expect(out.scope.provenance_responses).toBeNull()
    expect(out.scope.data_subjects).toBeNull()
    expect(r.stderr).toMatch(/warning: Canary-less provenance does not cover the case/)
    // scope --allow-incomplete says the same; a scan brings the figures back.
    const scope = JSON.parse((await run(['scope', '--db', path.join(dir, 'b.db'), '--json', '--allow-incomplete'])).stdout)
    expect(scope.exposure).toBeNull()
    expect((await run(['scan', '--db', path.join(dir, 'b.db')])).code).toBe(0)
    const after = JSON.parse((await run(['scope', '--db', path.join(dir, 'b.db'), '--json'])).stdout)
    expect(after.exposure.responses).toBe(1)
    expect(after.provenance_responses).toBe(1)
  })
})
