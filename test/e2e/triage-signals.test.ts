import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, runJson, spawnCli, tempDir} from '../helpers/cli.js'

// triage's scan runs on the main thread (a worker raised its peak memory): SIGINT or SIGTERM
// during it was not seen until the process died of it, without a word. It is now seen between the
// scan's phases and pages of records: triage says what was kept and exits 130 (143), and the
// case reads as not completely scanned until a scan finishes. `scan` with no worker threads
// (CROSSTALK_WORKERS=0) runs on the main thread too, and says what it says on a worker.

interface Detection {
  complete: boolean
  unfinished_scan_started_at: string | null
}

/** Spawns the command and signals it once the case holds `runs` scan runs (its scan has begun). */
async function signalDuringScan(args: string[], db: string, runs: number, sig: NodeJS.Signals, env: Record<string, string> = {}) {
  const child = spawnCli(args, {env})
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (code, signal) => resolve({code, signal})))
  await new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const timer = setInterval(() => {
      let n = 0
      try {
        const sql = new Database(db, {readonly: true, fileMustExist: true})
        n = sql.prepare('SELECT count(*) FROM scan_runs').pluck().get() as number
        sql.close()
      } catch {
        // Not created yet.
      }
      if (n === runs) (clearInterval(timer), resolve())
      if (child.exitCode !== null) (clearInterval(timer), reject(new Error(`ended before it was signalled: ${stderr}`)))
      if (Date.now() - started > 60_000) (clearInterval(timer), reject(new Error('the scan never began')))
    }, 2)
  })
  child.kill(sig)
  return {...(await done), stderr}
}

function incident(records: number): {dir: string; inc: string; db: string} {
  const dir = tempDir()
  const inc = join(dir, 'inc')
  expect(runCli(['generate', '--out', inc, '--records', String(records), '--seed', '7']).code).toBe(0)
  return {dir, inc, db: join(dir, 'case.db')}
}

describe('triage signalled during its scan', () => {
  for (const [sig, code, env] of [['SIGINT', 130, {}], ['SIGTERM', 143, {CROSSTALK_WORKERS: '0'}]] as const) {
    it(`${sig}${env.CROSSTALK_WORKERS ? ' with CROSSTALK_WORKERS=0' : ''}: says what was kept, exits ${code}, and leaves the case not completely scanned until triage runs again`, async () => {
      const {inc, db} = incident(2000)
      const args = ['triage', join(inc, 'logs'), '--canaries', join(inc, 'canaries.csv'), '--db', db, '--fail-on-leak', '--no-quick-verdict']
      const r = await signalDuringScan(args, db, 1, sig, env)
      expect({code: r.code, signal: r.signal}).toEqual({code, signal: null})
      expect(r.stderr).toMatch(new RegExp(`^Interrupted by ${sig} during the scan: 12 files ingested completely and kept \\(2000 new records\\); the scan did not finish, .* until a scan finishes\\. Run scan, or the same command again\\.$`, 'm'))
      const status = runJson<{detection: Detection}>(['status', '--db', db])
      expect(status.detection.complete).toBe(false)
      expect(status.detection.unfinished_scan_started_at).toMatch(/^\d{4}-\d\d-\d\dT/)
      if (sig === 'SIGTERM') return
      // Run again: nothing new to ingest; the scan finishes (the gate trips on the generated leaks: 3).
      expect(runCli(args, {env}).code).toBe(3)
      expect(runJson<{detection: Detection}>(['status', '--db', db]).detection).toMatchObject({complete: true, unfinished_scan_started_at: null})
    }, 60_000)
  }
})

describe('scan with CROSSTALK_WORKERS=0 signalled', () => {
  it('says what was interrupted, as on a worker thread, and ends by the signal', async () => {
    const {inc, db} = incident(2000)
    expect(runCli(['ingest', 'canaries', join(inc, 'canaries.csv'), '--db', db]).code).toBe(0)
    expect(runCli(['ingest', 'logs', join(inc, 'logs'), '--db', db]).code).toBe(0)
    const r = await signalDuringScan(['scan', '--db', db], db, 1, 'SIGINT', {CROSSTALK_WORKERS: '0'})
    expect({code: r.code, signal: r.signal}).toEqual({code: null, signal: 'SIGINT'})
    expect(r.stderr).toMatch(/^scan interrupted \(SIGINT\): what it stored stays, and the case reads as not completely scanned .*; run scan again$/m)
  }, 60_000)
})
