import Database from 'better-sqlite3'
import {spawn, spawnSync, type SpawnSyncOptions} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, inject, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {BIN, runCli, tempDir} from '../helpers/cli.js'
import {chatLine} from '../helpers/log-lines.js'
import {caseWithRecords} from '../helpers/replay-case.js'

// Issue 16, faults and messages: a read-only case file or directory, a missing parent
// directory and a report written to a full disk each end in one line naming the path and
// the cause, and leave no empty or half-written report behind; a heap setting too small for
// V8 is refused instead of crashing it; a replay killed mid-run leaves its run marked.
//
// Permissions are checked as an unprivileged user: root ignores them, so when the tests run
// as root the CLI is started as `nobody` (uid 65534) on files prepared for it.

const ROOT_USER = process.getuid?.() === 0
const NOBODY = 65534

let base: string
let home: string

beforeAll(() => {
  // Outside the run's private temporary folder, which `nobody` cannot enter; removed afterwards.
  base = mkdtempSync('/tmp/ct-faults-')
  chmodSync(base, 0o755)
  home = join(base, 'home')
  mkdirSync(home, {mode: 0o777})
  chmodSync(home, 0o777)
})

afterAll(() => {
  if (base) {
    for (const d of readdirSync(base)) chmodSync(join(base, d), 0o755)
    rmSync(base, {recursive: true, force: true})
  }
})

/** The installed CLI as an unprivileged user. */
function runUnprivileged(args: readonly string[]): {code: number; stdout: string; stderr: string} {
  // The built CLI (not the sources through tsx, whose cache is in the test run's private folder), with a home and temporary folder of its own.
  // Bounded: vitest cannot interrupt a synchronous child, so a hung command fails instead of blocking CI.
  const options: SpawnSyncOptions = {env: {...process.env, NODE_ENV: 'production', NO_COLOR: '1', HOME: home, TMPDIR: home, CROSSTALK_DB: ''}, encoding: 'utf8', cwd: base, timeout: 120_000, killSignal: 'SIGKILL'}
  if (ROOT_USER) Object.assign(options, {uid: NOBODY, gid: NOBODY})
  const r = spawnSync(process.execPath, [BIN, ...args], options)
  return {code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr)}
}

/** A one-record case in its own folder, made by the CLI. */
function caseIn(name: string): {dir: string; db: string} {
  const dir = join(base, name)
  mkdirSync(dir)
  const log = join(dir, 'l.jsonl')
  writeFileSync(log, `${chatLine({request_id: 'r1'})}\n`)
  const db = join(dir, 'case.db')
  expect(runCli(['ingest', 'logs', log, '--db', db]).code).toBe(0)
  expect(existsSync(`${db}-wal`)).toBe(false)
  return {dir, db}
}

const oneLine = (stderr: string): string[] => stderr.trim().split('\n')

describe('a case that cannot be written', () => {
  it('read-only case file: a writing command names the file and the cause; status still reads it', () => {
    const {dir, db} = caseIn('ro-file')
    chmodSync(dir, 0o777)
    chmodSync(db, 0o444)
    const scan = runUnprivileged(['scan', '--db', db])
    expect(scan.code).toBe(1)
    expect(oneLine(scan.stderr)).toEqual([`Error: ${db}: the case file is read-only (permission denied); this command writes to the case: make it writable, or work on a writable copy`])
    const status = runUnprivileged(['status', '--db', db, '--json'])
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({records: 1})
  })

  it('read-only directory: writing and even reading name the directory and why', () => {
    const {dir, db} = caseIn('ro-dir')
    chmodSync(db, 0o666)
    chmodSync(dir, 0o555)
    const scan = runUnprivileged(['scan', '--db', db])
    expect(scan.code).toBe(1)
    expect(oneLine(scan.stderr)).toEqual([expect.stringMatching(new RegExp(`^Error: ${db}: its directory ${dir} is not writable \\(permission denied\\), and SQLite keeps the case's -wal and -shm files beside it`))])
    const verify = runUnprivileged(['verify', '--db', db, '--json'])
    expect(verify.code).toBe(1)
    expect(JSON.parse(verify.stdout).error.message).toMatch(new RegExp(`^${db}: cannot open the case: its directory ${dir} is not writable, and SQLite must create case.db-shm beside`))
    const create = runUnprivileged(['ingest', 'logs', join(dir, 'l.jsonl'), '--db', join(dir, 'new.db')])
    expect(create.code).toBe(1)
    expect(oneLine(create.stderr)).toEqual([`Error: ${join(dir, 'new.db')}: cannot create the case in ${dir} (permission denied)`])
  })

  it('a missing parent directory is named, and nothing is created', () => {
    const log = join(tempDir(), 'l.jsonl')
    writeFileSync(log, `${chatLine({request_id: 'r1'})}\n`)
    const db = join(base, 'nope', 'deeper', 'case.db')
    const r = runCli(['ingest', 'logs', log, '--db', db, '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toEqual({error: {message: `${db}: cannot create the case: there is no directory ${join(base, 'nope', 'deeper')}`, code: 'E_NO_DIR'}})
    expect(existsSync(join(base, 'nope'))).toBe(false)
  })
})

describe('a report that cannot be written', () => {
  let db = ''
  beforeAll(() => {
    const incident = inject('incident')
    db = join(tempDir(), 'case.db')
    expect(runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', db]).code).toBe(0)
  }, 120_000)

  it('--out in a missing directory: one line naming the path', () => {
    const out = join(base, 'missing', 'report.html')
    const r = runCli(['report', 'case', '--db', db, '--format', 'html', '--out', out])
    expect(r.code).toBe(1)
    expect(oneLine(r.stderr)).toEqual([`Error: ${out}: cannot write: there is no directory ${join(base, 'missing')}`])
  })

  it('--out to a device (one that is full, here): refused in one line with the path and why, before anything is written', () => {
    // A device is no place for a report the case records by its SHA-256 (a FIFO blocked the command).
    const r = runCli(['report', 'case', '--db', db, '--format', 'html', '--out', '/dev/full'])
    expect(r.code).toBe(1)
    expect(oneLine(r.stderr)).toEqual(['Error: --out /dev/full: is a character device, not a regular file; a report is written to a file (kept, and recorded by its SHA-256): give a file path'])
  })

  it('--out on a full file system: the path and the cause, the earlier file kept whole, no partial file', (context) => {
    // A 32 KiB tmpfs (mounting needs root); the report is larger.
    const dir = join(base, 'small-fs')
    mkdirSync(dir)
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32k', 'tmpfs', dir]).status !== 0) {
      context.skip('cannot mount a small file system here (needs root); the /dev/full case above covers the message')
      return
    }
    try {
      const out = join(dir, 'report.html')
      writeFileSync(out, 'the earlier report\n')
      // --force: the file there is not a report this case wrote (report --out refuses to replace it otherwise).
      const r = runCli(['report', 'case', '--db', db, '--format', 'html', '--out', out, '--force'])
      expect(r.code).toBe(1)
      expect(oneLine(r.stderr)).toEqual([`Error: ${out}: cannot write (ENOSPC: no space left on the device)`])
      expect(readFileSync(out, 'utf8')).toBe('the earlier report\n')
      expect(readdirSync(dir)).toEqual(['report.html'])
    } finally {
      spawnSync('umount', [dir])
    }
  })
})

describe('CROSSTALK_HEAP_MB too small for V8', () => {
  it.each(['1', '64', '255'])('%s: refused in one line, exit 1, no native crash', (value) => {
    const r = spawnSync(BIN, ['status', '--db', join(tempDir(), 'none.db')], {encoding: 'utf8', env: {...process.env, CROSSTALK_HEAP_MB: value}})
    expect(r.status).toBe(1)
    expect(oneLine(r.stderr)).toEqual([`Error: CROSSTALK_HEAP_MB must be at least 256 (MB; got "${value}")`])
  })

  it('256 runs', () => {
    const r = spawnSync(BIN, ['--version'], {encoding: 'utf8', env: {...process.env, CROSSTALK_HEAP_MB: '256'}})
    expect(r.status).toBe(0)
  })
})

describe('a replay killed mid-run', () => {
  it('leaves its run marked interrupted, never as a run in good standing', async () => {
    const {db, path} = await caseWithRecords([{request_id: 'req-1', prompt_tokens: 3000, request_text: 'hello'}])
    db.close()
    // Requests over the pool hang: the replay sits in its first trial until it is killed.
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'hang', disaggregated: true})
    try {
      const child = spawn(process.execPath, [BIN, 'replay', '--db', path, '--target', testbed.url, '--request-id', 'req-1', '--trials', '2', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '60'], {stdio: 'ignore'})
      const exited = new Promise((done) => child.on('exit', done))
      let run: {interrupted: number; finished_at: string | null} | undefined
      for (let i = 0; i < 300 && !run; i++) {
        await new Promise((done) => setTimeout(done, 100))
        const sql = new Database(path, {readonly: true})
        run = sql.prepare('SELECT interrupted, finished_at FROM replay_runs').get() as typeof run
        sql.close()
      }
      expect(run, 'the replay stored its run').toBeDefined()
      child.kill('SIGKILL')
      await exited
      const sql = new Database(path, {readonly: true})
      expect(sql.prepare('SELECT interrupted, finished_at FROM replay_runs').get()).toEqual({interrupted: 1, finished_at: null})
      sql.close()
    } finally {
      await testbed.close()
    }
  }, 60_000)
})
