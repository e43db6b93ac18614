import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli} from '../helpers/cli.js'
import {nativeLine} from '../helpers/case-builder.js'

// A TMPDIR that does not exist: provenance cannot make its scratch folder. The error names
// TMPDIR and the fix in one line, and a gate that tripped before it keeps its exit 3.

function incident(): {dir: string; file: string; canaries: string} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-notmp-'))
  const file = path.join(dir, 'logs.jsonl')
  const canaries = path.join(dir, 'canaries.csv')
  fs.writeFileSync(canaries, 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaa01,tA,sA,2026-11-01T00:00:00Z\nCANARY-bbbbbbbbbbbbbbbb02,tB,sB,2026-11-01T00:00:00Z\n')
  const base = Date.parse('2026-11-02T06:00:00Z')
  const lines = [
    nativeLine({request_id: 'a', tenant_id: 'tB', session_id: 'sB', request_text: 'my marker CANARY-bbbbbbbbbbbbbbbb02', response_text: 'noted'}, base),
    nativeLine({request_id: 'leak', tenant_id: 'tA', session_id: 'sA', request_text: 'hi', response_text: 'sure, CANARY-bbbbbbbbbbbbbbbb02'}, base + 1000),
  ]
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  return {dir, file, canaries}
}

describe('triage with $TMPDIR missing', () => {
  it('says TMPDIR in one line, and exits 3 where the gate tripped', () => {
    const {dir, file, canaries} = incident()

    const missing = path.join(dir, 'no-such-tmp')
    // The provenance helper thread (started from dist/, as installed) makes its scratch folder whatever the case's size.
    for (const workers of ['2']) {
      const r = runCli(['triage', file, '--canaries', canaries, '--db', path.join(dir, `c${workers}.db`), '--fail-on-leak'], {env: {TMPDIR: missing, CROSSTALK_WORKERS: workers, NODE_ENV: 'production'}})
      expect(r.stderr).toContain('Gate: contamination found')
      const error = r.stderr.split('\n').filter((l) => l.startsWith('Error:'))
      expect(error).toHaveLength(1)
      expect(error[0]).toContain(`cannot create provenance's scratch folder under ${missing} (ENOENT)`)
      expect(error[0]).toContain('set TMPDIR')
      expect(r.code).toBe(3)
    }
  })
})
