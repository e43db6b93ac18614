import Database from 'better-sqlite3'
import type {ChildProcess} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {seededRng} from '../../src/util/rng.js'
import {chatLine} from '../helpers/log-lines.js'
import {runCli, runJson, spawnCli, tempDir} from '../helpers/cli.js'

// Issue 16: an ingest stopped by SIGINT or SIGTERM says in one line what was kept and how to
// resume, and records it in the audit log; one killed with SIGKILL at any moment leaves a case
// that the same ingest, run again, brings to exactly what a clean ingest gives.

function logLines(prefix: string, n: number): string[] {
  const lines: string[] = []
  for (let i = 0; i < n; i++) lines.push(chatLine({request_id: `${prefix}${i}`, session_id: `s${i % 97}`, prompt: `prompt ${i} `.repeat(30)}))
  return lines
}

/** Resolves once the case holds a committed record (or after `ms` when given), then returns. */
async function waitForRecords(db: string, child: ChildProcess, ms?: number): Promise<void> {
  const started = Date.now()
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (ms !== undefined) {
        if (Date.now() - started >= ms) (clearInterval(timer), resolve())
        return
      }
      try {
        const sql = new Database(db, {readonly: true, fileMustExist: true})
        const count = sql.prepare('SELECT count(*) FROM records').pluck().get() as number
        sql.close()
        if (count > 0) (clearInterval(timer), resolve())
      } catch {
        // not created yet
      }
      if (child.exitCode !== null) (clearInterval(timer), resolve())
      if (Date.now() - started > 60_000) (clearInterval(timer), reject(new Error('ingest never committed a batch')))
    }, 10)
  })
}

function exited(child: ChildProcess): Promise<{code: number | null; signal: NodeJS.Signals | null; stderr: string}> {
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({code, signal, stderr})))
}

describe('SIGINT and SIGTERM during ingest', () => {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${sig}: one line saying what was kept and how to resume, audited; the next run completes the file`, async () => {
      const dir = tempDir()
      const first = join(dir, 'first.jsonl')
      const big = join(dir, 'big.jsonl')
      writeFileSync(first, `${logLines('f', 50).join('\n')}\n`)
      writeFileSync(big, `${logLines('r', 30_000).join('\n')}\n`)
      const db = join(dir, 'case.db')
      const child = spawnCli(['ingest', 'logs', first, big, '--db', db])
      const done = exited(child)
      await waitForRecords(db, child)
      // The first file is complete when the second has records; stop during the second.
      await new Promise((r) => setTimeout(r, 150))
      child.kill(sig)
      const r = await done
      expect(r.code).toBe(code)
      const lines = r.stderr.trim().split('\n').filter((l) => !/read as native/.test(l))
      expect(lines).toEqual([
        `Interrupted by ${sig}: 1 file ingested completely and kept (50 records); ${big} was being read and is not counted (its partial rows stay marked unfinished and are redone). Run the same command again to resume.`,
      ])
      const sql = new Database(db, {readonly: true})
      const last = JSON.parse(sql.prepare('SELECT summary FROM audit_log ORDER BY seq DESC LIMIT 1').pluck().get() as string) as {interrupted: {file: string}}
      sql.close()
      expect(last.interrupted).toEqual({file: big, files_not_started: []})
      expect(runJson<{files: number; records: number; incomplete_files: number}>(['status', '--db', db])).toMatchObject({files: 1, records: 50, incomplete_files: 1})
      expect(runJson<{records: number; duplicates: number}>(['ingest', 'logs', first, big, '--db', db])).toMatchObject({records: 30_000, duplicates: 50})
      expect(runJson<{ok: boolean; records_checked: number}>(['verify', '--db', db])).toMatchObject({ok: true, records_checked: 30_050})
    }, 120_000)
  }
})

describe('kill -9 at random points during ingest', () => {
  it('each time, running the same ingest again gives exactly a clean ingest, and verify passes', async () => {
    const dir = tempDir()
    const plain = join(dir, 'a.jsonl')
    const gz = join(dir, 'b.jsonl.gz')
    const lines = logLines('k', 12_000)
    lines.splice(777, 0, lines[5]!) // a duplicate
    lines.splice(1500, 0, '{"broken":') // a bad line
    writeFileSync(plain, `${lines.join('\n')}\n`)
    writeFileSync(gz, gzipSync(`${logLines('z', 4_000).join('\n')}\n`))
    const clean = join(dir, 'clean.db')
    const want = runJson<{records: number; duplicates: number; bad_lines: number}>(['ingest', 'logs', plain, gz, '--db', clean])
    expect(want).toMatchObject({records: 16_000, duplicates: 1, bad_lines: 1})
    const wantStatus = runJson<Record<string, unknown>>(['status', '--db', clean])
    const rng = seededRng(16)
    for (let round = 0; round < 3; round++) {
      const db = join(dir, `case-${round}.db`)
      // Killed at a random moment (before, during or after a commit; the second round twice in a row), then run to the end.
      for (let kill = 0; kill < (round === 1 ? 2 : 1); kill++) {
        const child = spawnCli(['ingest', 'logs', plain, gz, '--db', db])
        const done = exited(child)
        await waitForRecords(db, child, 100 + Math.floor(rng() * 1500))
        child.kill('SIGKILL')
        await done
      }
      const r = runCli(['ingest', 'logs', plain, gz, '--db', db, '--json'])
      expect(r.code, `round ${round}: ${r.stderr}`).toBe(0)
      const status = runJson<Record<string, unknown>>(['status', '--db', db])
      for (const key of ['files', 'records', 'bad_lines', 'duplicates', 'blank_lines', 'incomplete_files', 'tenants', 'sessions', 'first_record', 'last_record']) {
        expect([round, key, status[key]]).toEqual([round, key, wantStatus[key]])
      }
      expect(runJson<{ok: boolean; records_checked: number}>(['verify', '--db', db])).toMatchObject({ok: true, records_checked: 16_000})
    }
  }, 300_000)
})

describe('a signal during triage\'s scan', () => {
  // The scan runs on the main thread and lets the event loop turn between its phases and pages
  // of records: the signal is seen there, triage stops and exits 130 (the scan left unfinished),
  // and the next triage finishes the case as a run without the signal would.
  it('SIGINT stops triage in its scan (exit 130); the case keeps the ingest, and the same triage again completes it', async () => {
    const dir = tempDir()
    const inc = join(dir, 'inc')
    expect(runCli(['generate', '--out', inc, '--records', '40000', '--seed', '7']).code).toBe(0)
    const args = (db: string) => ['triage', join(inc, 'logs'), '--canaries', join(inc, 'canaries.csv'), '--pool-tokens', '681280', '--db', db]
    const db = join(dir, 'case.db')
    const child = spawnCli(args(db))
    const done = exited(child)
    // Signalled as soon as the scan has begun (its run row is committed at its start, after
    // ingest's audit entry).
    await new Promise<void>((resolve, reject) => {
      const started = Date.now()
      const timer = setInterval(() => {
        try {
          const sql = new Database(db, {readonly: true, fileMustExist: true})
          const steps = sql.prepare(`SELECT json_extract(args, '$.step') FROM audit_log`).pluck().all()
          const scans = sql.prepare('SELECT count(*) FROM scan_runs').pluck().get()
          sql.close()
          if (steps.includes('ingest logs') && scans !== 0) (clearInterval(timer), resolve())
        } catch {
          // not created yet
        }
        if (child.exitCode !== null) (clearInterval(timer), reject(new Error('triage ended before its ingest was audited')))
        if (Date.now() - started > 120_000) (clearInterval(timer), reject(new Error('ingest never finished')))
      }, 5)
    })
    child.kill('SIGINT')
    const r = await done
    // Stopped in the scan, with the exit status of an interruption: never a run to the end.
    expect([r.signal, r.code]).toEqual([null, 130])
    expect(r.stderr).toMatch(/^Interrupted by SIGINT during the scan: .*Run scan, or the same command again\.$/m)
    const sql = new Database(db, {readonly: true})
    const steps = sql.prepare(`SELECT json_extract(args, '$.step') FROM audit_log ORDER BY seq`).pluck().all()
    const finished = sql.prepare('SELECT count(*) FROM scan_runs WHERE finished_at IS NOT NULL').pluck().get()
    sql.close()
    expect(steps).toEqual(['ingest canaries', 'ingest logs'])
    expect(finished).toBe(0)
    type Run = {ingest: {files: number; records: number; skipped_files: number}; scan: Record<string, unknown>}
    const again = runJson<Run>(args(db))
    const clean = runJson<Run>(args(join(dir, 'clean.db')))
    expect(again.ingest).toMatchObject({records: 0, skipped_files: clean.ingest.files})
    const figures = (s: Record<string, unknown>) => {
      const {scanned_at: _a, timings_ms: _t, provenance_stats: _p, ...rest} = s
      return rest
    }
    expect(figures(again.scan)).toEqual(figures(clean.scan))
    expect(runJson<{ok: boolean}>(['verify', '--db', db])).toMatchObject({ok: true})
  }, 240_000)
})
