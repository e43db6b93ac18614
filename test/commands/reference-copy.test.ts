import Database from 'better-sqlite3'
import {appendFileSync, cpSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A case that keeps a log by reference, and the same bytes ingested again: with --evidence copy
// (a copy before the originals are deleted) it said "already in the case, nothing added" and kept
// reading the original, so deleting it lost the evidence; from a new place by reference it said
// the same, and the case went on reading the old path without saying so.

const A = 'CANARY-9f8e7d6c5b4a39281706f5e4'

function referenceLogs(): {dir: string; log: string; canaries: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
  mkdirSync(join(dir, 'logs'))
  const log = join(dir, 'logs', 'a.jsonl')
  const line = (id: string, tenant: string, session: string, response: string): string =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response})
  writeFileSync(log, [line('r-1', 'tenant-a', 'sess-a', 'fine'), line('r-2', 'tenant-b', 'sess-b', `here is ${A}`)].join('\n') + '\n')
  return {dir, log, canaries}
}

function heldAs(db: string): Array<{evidence: string; lines_held: string; blocks: number}> {
  const d = new Database(db, {readonly: true})
  try {
    return d.prepare(`SELECT evidence, lines_held, (SELECT count(*) FROM evidence_blocks b WHERE b.file_id = f.id) AS blocks FROM files f WHERE kind = 'log'`).all() as Array<{evidence: string; lines_held: string; blocks: number}>
  } finally {
    d.close()
  }
}

describe('the same bytes again, over a file kept by reference', () => {
  it('--evidence copy copies the bytes into the case, so the original may go', async () => {
    const {dir, log, canaries} = referenceLogs()
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    expect(heldAs(db)).toEqual([{evidence: 'reference', lines_held: 'none', blocks: 0}])
    const again = await run(['ingest', 'logs', log, '--evidence', 'copy', '--db', db])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('now copied into the case')
    expect(again.stdout).not.toContain('nothing added')
    const [held] = heldAs(db)
    expect(held).toMatchObject({evidence: 'copy', lines_held: 'all'})
    expect(held!.blocks).toBeGreaterThan(0)
    rmSync(log)
    const show = await run(['show', 'r-2', '--db', db])
    expect(show.code, show.stderr).toBe(0)
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stderr).toBe(0)
  })

  it('by reference from a new place, names the path the case reads and `crosstalk relocate`', async () => {
    const {dir, log, canaries} = referenceLogs()
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    cpSync(join(dir, 'logs'), join(dir, 'share'), {recursive: true})
    const again = await run(['ingest', 'logs', join(dir, 'share', 'a.jsonl'), '--evidence', 'reference', '--db', db])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`read from ${log}`)
    expect(again.stderr).toContain('crosstalk relocate')
    rmSync(join(dir, 'logs'), {recursive: true})
    const show = await run(['show', 'r-2', '--db', db])
    expect(show.code).toBe(1)
    expect(show.stderr).toContain('crosstalk relocate')
  })
})

describe('by reference from a file descriptor of the process', () => {
  it('records the real file behind /dev/stdin, and refuses a pipe', async () => {
    const {dir, log, canaries} = referenceLogs()
    const db = join(dir, 'case.db')
    await runJson(['ingest', 'canaries', canaries, '--db', db])
    const {spawnSync} = await import('node:child_process')
    const {BIN} = await import('../helpers/cli.js')
    const {openSync, closeSync} = await import('node:fs')
    const fd = openSync(log, 'r')
    try {
      const r = spawnSync(process.execPath, [BIN, 'ingest', 'logs', '/dev/stdin', '--evidence', 'reference', '--db', db], {stdio: [fd, 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: ''}})
      expect(r.status, String(r.stderr)).toBe(0)
    } finally {
      closeSync(fd)
    }
    const d = new Database(db, {readonly: true})
    const rows = d.prepare(`SELECT path, abs_path FROM files WHERE kind = 'log'`).all() as Array<{path: string; abs_path: string}>
    d.close()
    expect(rows).toEqual([{path: log, abs_path: log}])
    const piped = spawnSync(process.execPath, [BIN, 'ingest', 'logs', '/dev/stdin', '--evidence', 'reference', '--db', join(dir, 'pipe.db')], {input: 'x', env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: ''}})
    expect(piped.status).toBe(1)
    const show = await run(['show', 'r-2', '--db', db])
    expect(show.code, show.stderr).toBe(0)
  })
})

describe('verify --deep over a missing original', () => {
  it('lists every problem and fails as verify does (E_VERIFY_FAILED), not on the first unreadable original', async () => {
    const {dir, log, canaries} = referenceLogs()
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    rmSync(log)
    const r = await run(['verify', '--deep', '--db', db, '--json'])
    expect(r.code, r.stderr).toBe(1)
    const {error} = JSON.parse(r.stdout) as {error: {code: string; details: {problems: Array<{kind: string; where: string}>; findings_rederived: boolean; not_checked: string[]}}}
    expect(error.code).toBe('E_VERIFY_FAILED')
    expect(error.details.problems.some((p) => p.kind === 'original' && p.where === log)).toBe(true)
    expect(error.details.findings_rederived).toBe(false)
    expect(error.details.not_checked.join('\n')).toContain('findings not re-derived')
  })
})

describe('an original that grew after ingest', () => {
  const extra = JSON.stringify({ts: '2026-11-02T07:00:00Z', request_id: 'r-9', tenant_id: 'tenant-b', session_id: 'sess-b', status: 200, request: 'hi', response: `late ${A}`}) + '\n'

  it('is named by verify and status, copy or reference, with the bytes never judged', async () => {
    for (const evidence of ['copy', 'reference']) {
      const {dir, log, canaries} = referenceLogs()
      const db = join(dir, 'case.db')
      await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', evidence])
      appendFileSync(log, extra)
      const verify = await runJson<{ok: boolean; not_checked: string[]}>(['verify', '--db', db])
      expect(verify.not_checked.join('\n'), evidence).toContain(`${Buffer.byteLength(extra)} bytes beyond`)
      const status = await runJson<{originals_grown: Array<{abs_path: string; bytes_now: number; ingested_bytes: number}>}>(['status', '--db', db])
      expect(status.originals_grown.map((g) => [g.abs_path, g.bytes_now - g.ingested_bytes]), evidence).toEqual([[log, Buffer.byteLength(extra)]])
      const console = await run(['status', '--db', db])
      expect(console.stdout).toContain('never judged')
      // Ingested again, whole: nothing is left unjudged.
      await runJson(['ingest', 'logs', log, '--db', db, '--evidence', evidence])
      expect((await runJson<{originals_grown: unknown[]}>(['status', '--db', db])).originals_grown).toEqual([])
    }
  })

  it('is named by relocate at the new place', async () => {
    const {dir, log, canaries} = referenceLogs()
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    cpSync(join(dir, 'logs'), join(dir, 'moved'), {recursive: true})
    appendFileSync(join(dir, 'moved', 'a.jsonl'), extra)
    const r = await runJson<{grown: Array<{abs_path: string}>}>(['relocate', join(dir, 'logs'), join(dir, 'moved'), '--db', db])
    expect(r.grown.map((g) => g.abs_path)).toEqual([join(dir, 'moved', 'a.jsonl')])
  })
})
