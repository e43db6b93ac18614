import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, runJson, spawnCli, tempDir} from '../helpers/cli.js'

// `scan` runs synchronously (on a thread of its own): SIGINT ends it at once (interrupt.ts,
// scan-thread.ts), with one line saying what was interrupted and what the case holds; it ended
// without a word before. What it committed stays; the case must not call detection complete
// until a scan finishes, and the next scan must bring the case to what a scan never interrupted
// gives.

interface Detection {
  complete: boolean
  unfinished_scan_started_at: string | null
}

describe('scan ended by SIGINT', () => {
  it('leaves detection incomplete, naming the unfinished scan, and the next scan gives what an uninterrupted one gives', async () => {
    const dir = tempDir()
    const inc = join(dir, 'inc')
    expect(runCli(['generate', '--out', inc, '--records', '20000', '--seed', '7']).code).toBe(0)
    const db = join(dir, 'case.db')
    expect(runCli(['ingest', 'canaries', join(inc, 'canaries.csv'), '--db', db]).code).toBe(0)
    expect(runCli(['ingest', 'logs', join(inc, 'logs'), '--db', db]).code).toBe(0)
    expect(runCli(['scan', '--db', db]).code).toBe(0)
    // The same case, scanned once, never interrupted.
    const clean = join(dir, 'clean.db')
    const source = new Database(db, {readonly: true})
    await source.backup(clean)
    source.close()

    // Another --min-words: the scan rewrites provenance; signalled once it has begun.
    const child = spawnCli(['scan', '--min-words', '20', '--pool-tokens', '681280', '--db', db])
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const done = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (code, signal) => resolve({code, signal})))
    await new Promise<void>((resolve, reject) => {
      const started = Date.now()
      const timer = setInterval(() => {
        const sql = new Database(db, {readonly: true})
        const runs = sql.prepare('SELECT count(*) FROM scan_runs').pluck().get() as number
        sql.close()
        if (runs === 2) (clearInterval(timer), resolve())
        if (child.exitCode !== null) (clearInterval(timer), reject(new Error('the scan ended before it was signalled')))
        if (Date.now() - started > 60_000) (clearInterval(timer), reject(new Error('the scan never began')))
      }, 5)
    })
    child.kill('SIGINT')
    // Ended by the signal (the shell sees 130), after one line that says so.
    expect(await done).toEqual({code: null, signal: 'SIGINT'})
    expect(stderr).toMatch(/^scan interrupted \(SIGINT\): what it stored stays, and the case reads as not completely scanned .*; run scan again$/m)

    const status = runJson<{detection: Detection}>(['status', '--db', db])
    expect(status.detection.complete).toBe(false)
    expect(status.detection.unfinished_scan_started_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(runCli(['status', '--db', db]).stdout).toMatch(/detection incomplete: the scan begun at .* did not finish/)
    // The pool size the killed scan set (with its run row) is no unaudited write: verify names the unfinished scan.
    const verified = runJson<{ok: boolean; problems: Array<{kind: string; subject: string}>; not_checked: string[]}>(['verify', '--db', db])
    expect(verified.problems).toEqual([])
    expect(verified.ok).toBe(true)
    expect(verified.not_checked).toContainEqual(expect.stringMatching(/^pool size 681280 was set by the scan begun at .*, which did not finish, so no audit entry records it/))

    // The next scan, with the finished scan's parameters, on both cases: the same findings.
    const again = runJson<Record<string, unknown>>(['scan', '--pool-tokens', '681280', '--db', db])
    const cleanAgain = runJson<Record<string, unknown>>(['scan', '--pool-tokens', '681280', '--db', clean])
    const figures = (s: Record<string, unknown>) => {
      const {scanned_at: _a, timings_ms: _t, provenance_stats: _p, ...rest} = s
      return rest
    }
    expect(figures(again)).toEqual(figures(cleanAgain))
    expect(runCli(['provenance', '--db', db, '--json']).stdout).toBe(runCli(['provenance', '--db', clean, '--json']).stdout)
    expect(runJson<{detection: Detection}>(['status', '--db', db]).detection).toMatchObject({complete: true, unfinished_scan_started_at: null})
    expect(runJson<{ok: boolean}>(['verify', '--db', db])).toMatchObject({ok: true})
  }, 240_000)
})
