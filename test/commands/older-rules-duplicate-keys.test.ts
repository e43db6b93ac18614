import {createHash} from 'node:crypto'
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gunzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// Versions before extract scheme x4 read a native line that gives "response" twice with the last
// value and stored it as a record: a marker in the first copy was never searched, and the gate
// passed. Such a case, opened by this version, must not pass a gate on that reading, and verify
// must not call the old reading tampering (the bytes are what was ingested). The case is the one
// that version made (test/fixtures/cases/x3-duplicate-key/README.md).

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'cases', 'x3-duplicate-key')

function oldCase(): {db: string; logs: string} {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(db, gunzipSync(readFileSync(join(FIXTURE, 'case.db.gz'))), {mode: 0o600})
  const logs = join(dir, 'logs.jsonl')
  copyFileSync(join(FIXTURE, 'logs.jsonl'), logs)
  // Its schema is older than this version's: opened writable once (as any writing command does), it is migrated.
  openCase(db).close()
  return {db, logs}
}

type Verify = {ok: boolean; not_checked: string[]; problems: Array<{kind: string; detail: string}>}

describe('a case whose record an earlier version read from a line that gives a key twice', () => {
  it('is not called tampered by verify, and no gate passes on it until the file is ingested again', async () => {
    const {db, logs} = oldCase()

    // The bytes are the ones ingested: the old reading is named, not reported as altered.
    const before = JSON.parse((await run(['verify', '--db', db, '--json'])).stdout) as Verify
    expect(before.problems).toEqual([])
    expect(before.not_checked.join('\n')).toContain('1 record read by an earlier version of crosstalk from lines this one refuses (line 2: duplicate key "response"')

    // The scan extracts the file again and marks it not read whole: the gate fails closed.
    const scan = await run(['scan', '--db', db, '--fail-on-leak', '--json'])
    expect(scan.code, scan.stdout).toBe(1)
    expect(scan.stderr).toContain('not read whole: a line read as records by an earlier version of crosstalk is refused by this one (line 2: duplicate key "response"')
    const status = await runJson<{unreadable_files: Array<{path: string; why: string}>}>(['status', '--db', db])
    expect(status.unreadable_files.map((f) => f.path)).toEqual(['logs.jsonl'])
    // The Article 33 draft does not say every log was searched: the file is named as not read whole.
    const draft = await runJson<{scope: {log_files_not_read_whole: number}; open_items: Array<{text?: string} | string>}>(['report', 'article33', '--db', db])
    expect(draft.scope.log_files_not_read_whole).toBe(1)
    expect(JSON.stringify(draft.open_items)).toContain('logs.jsonl')
    const after = JSON.parse((await run(['verify', '--db', db, '--deep', '--json'])).stdout) as Verify
    expect(after.problems).toEqual([])
    expect(after.not_checked.join('\n')).toContain('the file is marked not read whole')

    // Ingested again, the line is quarantined as today's ingest quarantines it.
    const sha = createHash('sha256').update(readFileSync(logs)).digest('hex')
    const drop = await run(['drop', sha.slice(0, 16), '--db', db, '--reason', 'read again under the current rules'])
    expect(drop.code, drop.stderr).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    const again = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('1 quarantined line never judged')
    expect(again.stderr).not.toContain('not read whole')
  })
})
