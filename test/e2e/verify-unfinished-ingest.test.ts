import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {chatLine} from '../helpers/log-lines.js'
import {runCli, runJson, spawnCli, tempDir} from '../helpers/cli.js'

// An ingest interrupted (SIGINT) or killed (SIGKILL) mid-file made verify fail ("incomplete",
// and "unaudited" for the files a killed ingest had finished) until the ingest was run again,
// as it fails on a tampered case. It now lists them as unfinished, with the records held so far
// and how to finish them, and passes; damage to what they hold still fails; the same ingest run
// again finishes them, and verify lists nothing unfinished.

interface Verified {
  ok: boolean
  unfinished_files: Array<{path: string; kind: string; state: string; records_held: number; finish: string}>
  problems: Array<{kind: string; where: string}>
}

function logs(dir: string): {small: string; big: string} {
  const small = join(dir, 'a-small.jsonl')
  const big = join(dir, 'b-big.jsonl')
  writeFileSync(small, Array.from({length: 200}, (_, i) => chatLine({request_id: `s${i}`, session_id: `x${i % 7}`})).join('\n') + '\n')
  // Big enough that a signal sent once its first unit is stored, however late a loaded machine
  // delivers it, comes before its last unit (at 12,000 lines a busy CI machine finished it first).
  writeFileSync(big, Array.from({length: 60_000}, (_, i) => chatLine({request_id: `b${i}`, session_id: `y${i % 97}`, prompt: `prompt ${i} `.repeat(10)})).join('\n') + '\n')
  return {small, big}
}

/** Starts `ingest logs` and sends `sig` once it holds records of the big file. */
async function stopMidFile(db: string, paths: string[], sig: NodeJS.Signals): Promise<void> {
  const child = spawnCli(['ingest', 'logs', ...paths, '--db', db])
  const exited = new Promise((resolve) => child.on('exit', resolve))
  await new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const timer = setInterval(() => {
      try {
        const sql = new Database(db, {readonly: true, fileMustExist: true})
        const n = sql.prepare(`SELECT count(*) FROM records r JOIN files f ON f.id = r.file_id WHERE f.path LIKE '%b-big.jsonl'`).pluck().get() as number
        sql.close()
        if (n > 0) (clearInterval(timer), child.kill(sig), resolve())
      } catch {
        // not created yet
      }
      if (child.exitCode !== null) (clearInterval(timer), reject(new Error('ingest ended before it was stopped')))
      if (Date.now() - started > 30_000) (clearInterval(timer), reject(new Error('ingest never committed a unit of the big file')))
    }, 5)
  })
  await exited
}

/** A consistent copy (the case's WAL included). */
async function copyCase(from: string, to: string): Promise<void> {
  const source = new Database(from, {readonly: true})
  await source.backup(to)
  source.close()
}

const verify = (db: string): {code: number; result: Verified} => {
  const r = runCli(['verify', '--db', db, '--json'])
  const out = JSON.parse(r.stdout) as Verified | {error: {details: Verified}}
  return {code: r.code, result: 'error' in out ? out.error.details : out}
}

describe('verify after an ingest that did not finish', () => {
  it('killed (SIGKILL): lists the file it finished and the one it was reading as unfinished and passes; damage still fails; the same ingest finishes them', async () => {
    const dir = tempDir()
    const {small, big} = logs(dir)
    const db = join(dir, 'case.db')
    await stopMidFile(db, [small, big], 'SIGKILL')

    const {code, result} = verify(db)
    expect(result.problems).toEqual([])
    expect(code).toBe(0)
    expect(result.ok).toBe(true)
    expect(result.unfinished_files).toHaveLength(2)
    expect(result.unfinished_files[0]).toMatchObject({path: expect.stringMatching(/a-small\.jsonl$/), kind: 'log', state: 'complete', records_held: 200, finish: expect.stringMatching(/^run the same ingest again/)})
    expect(result.unfinished_files[1]).toMatchObject({path: expect.stringMatching(/b-big\.jsonl$/), state: 'loading'})
    expect(result.unfinished_files[1]!.records_held).toBeGreaterThan(0)
    expect(runCli(['verify', '--db', db]).stdout).toMatch(/^UNFINISHED: .*b-big\.jsonl: its ingest did not finish \([\d,]+ records? held so far\); to finish it, run the same ingest again/m)
    // Verify cannot know why the ingest stopped (a full disk stops it as a kill does): it says so, never "killed" alone.
    expect(runCli(['verify', '--db', db]).stdout).toMatch(/^UNFINISHED: .*a-small\.jsonl: read whole \(200 records\), but its ingest did not finish: it stopped \(killed, or failed, as on a full disk\) before recording the file in the audit log; to finish it, run the same ingest again/m)

    // Damage to the evidence of a file the killed ingest finished still fails.
    const damaged = join(dir, 'damaged.db')
    await copyCase(db, damaged)
    const sql = new Database(damaged)
    sql.prepare(`UPDATE evidence_blocks SET crc32 = crc32 + 1 WHERE file_id = (SELECT id FROM files WHERE path LIKE '%a-small.jsonl') AND seq = 0`).run()
    sql.close()
    const bad = verify(damaged)
    expect(bad.code).toBe(1)
    expect(bad.result.ok).toBe(false)
    expect(bad.result.problems).toContainEqual(expect.objectContaining({kind: 'block'}))

    expect(runCli(['ingest', 'logs', small, big, '--db', db]).code).toBe(0)
    expect(verify(db)).toMatchObject({code: 0, result: {ok: true, unfinished_files: [], problems: []}})
  }, 60_000)

  it('interrupted (SIGINT): lists the file it was reading as unfinished and passes; a file the audit log records as ingested, set back to loading, fails', async () => {
    const dir = tempDir()
    const {small, big} = logs(dir)
    const db = join(dir, 'case.db')
    await stopMidFile(db, [small, big], 'SIGINT')
    const {code, result} = verify(db)
    expect({code, ok: result.ok, problems: result.problems}).toEqual({code: 0, ok: true, problems: []})
    expect(result.unfinished_files.map((u) => [u.path.endsWith('b-big.jsonl'), u.state])).toEqual([[true, 'loading']])

    const flipped = join(dir, 'flipped.db')
    await copyCase(db, flipped)
    const sql = new Database(flipped)
    sql.prepare(`UPDATE files SET state = 'loading' WHERE path LIKE '%a-small.jsonl'`).run()
    sql.close()
    const bad = verify(flipped)
    expect(bad.code).toBe(1)
    expect(bad.result.problems).toContainEqual(expect.objectContaining({kind: 'audit', where: expect.stringMatching(/a-small\.jsonl$/)}))
    expect(bad.result.unfinished_files.map((u) => u.path.endsWith('a-small.jsonl'))).not.toContain(true)
  }, 60_000)
})
