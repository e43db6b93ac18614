import {execFileSync, spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {guardOut} from '../../src/cli/out-guard.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'
import {BIN, ROOT, tempDir} from '../helpers/cli.js'

// QA (upgrade, defect 3): `--db` naming a FIFO (named pipe) hung every command (the case's header
// was read with a blocking open, which waits for a writer), and `report case --out FIFO` hung
// (the writer opened the pipe and waited for a reader). Each is now refused at once in one line
// naming the path and what it is (exit 1), before anything opens it.

/** The CLI with a short limit: a command that blocks is killed, and reads as a hang (code null). */
function run(args: readonly string[], cwd: string): {code: number | null; stderr: string} {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd, env: {...process.env, NO_COLOR: '1', TZ: 'UTC', CROSSTALK_DB: ''}, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL'})
  return {code: r.status, stderr: r.stderr}
}

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

describe('paths that are not regular files', () => {
  it('--db naming a FIFO is refused at once, for a command that reads and one that writes (exit 1, one line)', () => {
    const dir = tempDir()
    execFileSync('mkfifo', [join(dir, 'case.db')])
    for (const command of ['status', 'scan']) {
      const r = run([command, '--db', 'case.db'], dir)
      expect(r.code, `${command} hung or failed otherwise: ${r.stderr}`).toBe(1)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/case\.db: is a FIFO \(named pipe\), not a case database/)
    }
  })

  it('--db naming a character device is refused by what it is', () => {
    const r = run(['status', '--db', '/dev/null'], ROOT)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\/dev\/null: is a character device, not a case database/)
  })

  it('a report --out naming a FIFO is refused at once (exit 1), not written to a pipe no one reads', async () => {
    tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hi', response_text: 'fine'}])
    scanCase(tc.db, {now: new Date('2026-11-03T00:00:00.000Z')})
    const dir = tempDir()
    execFileSync('mkfifo', [join(dir, 'out.fifo')])
    const r = run(['report', 'case', '--db', tc.path, '--out', 'out.fifo'], dir)
    expect(r.code, `report case --out FIFO hung or failed otherwise: ${r.stderr}`).toBe(1)
    expect(r.stderr).toMatch(/--out out\.fifo: is a FIFO \(named pipe\), not a regular file/)
  })

  it('the --out guard refuses a device, --force or not', () => {
    tc = makeCase()
    for (const force of [false, true]) {
      expect(() => guardOut(tc!.db, '/dev/null', {report: 'case', force})).toThrow(expect.objectContaining({code: 'E_NOT_A_FILE', exit: 1}))
    }
  })
})
