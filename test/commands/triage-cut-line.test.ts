import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// triage of a directory where one file's only line is a native line cut off (a log still being
// written) ended with "not valid JSON ...; to fix: --log-format ... or --map", no verdict, and no
// word that the case was left unscanned while a plain scan then found the other file's leak.

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaaaaaa'
const B = 'CANARY-bbbbbbbbbbbbbbbbbbbbbbbb'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n${B},tn-b,s-b,2026-11-01T00:00:00Z\n`

function caseWith(partial: string): {dir: string; logs: string} {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(dir, 'reg.csv'), REGISTRY)
  // A real cross-tenant leak: tn-b's answer holds tn-a's marker.
  writeFileSync(join(logs, 'app.jsonl'), `${bareLine('r1', 'tn-a', 's-a', `${A} hi`, 'ok', '2026-11-02T08:00:00Z')}\n${bareLine('r2', 'tn-b', 's-b', `${B} hi`, `here ${A}`, '2026-11-02T08:01:00Z')}\n`)
  writeFileSync(join(logs, 'zz-partial.jsonl'), partial)
  return {dir, logs}
}

describe('triage of a directory holding a file whose one line is cut off', () => {
  it('names the cause (a line cut off, not a format), says the case is unscanned and that crosstalk scan judges what was read', async () => {
    const {dir, logs} = caseWith('{"ts":"2026-11-02T08:05:00Z","request_id":"r9","tenant_id":"tn-c"\n')
    const db = join(dir, 'x.db')
    const t = await run(['triage', logs, '--canaries', join(dir, 'reg.csv'), '--db', db, '--fail-on-leak'])
    expect(t.code).toBe(1)
    expect(t.stderr).toMatch(/zz-partial\.jsonl: not ingested: its one line \(line 1\) is a JSON object cut off before its end/)
    expect(t.stderr).not.toMatch(/--log-format/)
    expect(t.stderr).toMatch(/no verdict: the case is not scanned; crosstalk scan judges what was read/)
    // As said: a scan judges what was read, finds the leak, and its gate trips.
    const s = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(s.code).toBe(3)
  })

  it('a line malformed inside (not at its end) keeps the format fix', async () => {
    const {dir, logs} = caseWith('{"ts":"2026-11-02T08:05:00Z" "request_id":"r9"}\n')
    const t = await run(['triage', logs, '--canaries', join(dir, 'reg.csv'), '--db', join(dir, 'x.db')])
    expect(t.code).toBe(1)
    expect(t.stderr).toMatch(/zz-partial\.jsonl: not ingested: its one line or item could not be read as native; .*to fix: --log-format/)
  })
})
