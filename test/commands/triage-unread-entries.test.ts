import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

const LINE = '{"ts":"2026-11-01T10:00:00Z","request_id":"r1","tenant_id":"a","session_id":"s1","status":200,"request":"hi","response":"hello"}\n'
const REGISTRY = 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000aa01,a,s1,2026-11-01T09:00:00Z\n'

const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('warning: ')).sort()

describe('triage over a directory with entries it does not read', () => {
  // QA: with one file refused, triage printed none of the walk's warnings (broken link, empty
  // file, .zst) and its error did not name the unread entries; `ingest logs` printed them all.
  it('prints the walk\'s warnings and names the unread entries when a file is refused, as ingest logs does', () => {
    const dir = tempDir('ct-triage-unread-')
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw1.jsonl'), LINE)
    writeFileSync(join(logs, 'bin.jsonl'), Buffer.alloc(64, 0xff))
    writeFileSync(join(logs, 'empty.jsonl'), '')
    symlinkSync(join(dir, 'nowhere'), join(logs, 'broken.jsonl'))
    writeFileSync(join(logs, 'z.jsonl.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0]))
    writeFileSync(join(dir, 'can.csv'), REGISTRY)
    const ingest = runCli(['ingest', 'logs', logs, '--db', join(dir, 'i.db')])
    const triage = runCli(['triage', logs, '--canaries', join(dir, 'can.csv'), '--db', join(dir, 't.db')])
    expect(ingest.code).toBe(1)
    expect(triage.code, triage.stderr).toBe(1)
    expect(warnings(ingest.stderr).length).toBeGreaterThan(0)
    expect(warnings(triage.stderr)).toEqual(warnings(ingest.stderr))
    expect(triage.stderr).toMatch(/bin\.jsonl: not ingested/)
    expect(triage.stderr).toMatch(/Error: .*2 entries/)
  })

  // QA: `ingest logs DIR` exited 1 over a .zst it could not read, `triage DIR` (no gate) exited 0
  // with a warning, so a script running triage saw success over a log never read.
  it('exits as ingest logs does over an entry it cannot read, once the case is complete, with or without a gate', () => {
    const dir = tempDir('ct-triage-unread-')
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw1.jsonl'), LINE)
    writeFileSync(join(logs, 'gw2.jsonl.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0x63, 0x6f]))
    writeFileSync(join(dir, 'can.csv'), REGISTRY)
    const ingest = runCli(['ingest', 'logs', logs, '--db', join(dir, 'i.db')])
    const triage = runCli(['triage', logs, '--canaries', join(dir, 'can.csv'), '--db', join(dir, 't.db')])
    expect(ingest.code).not.toBe(0)
    expect(triage.code, triage.stderr).toBe(ingest.code)
    expect(triage.stderr).toMatch(/Error: 1 entry not read: \S*gw2\.jsonl\.zst/)
    // The case is complete and reported before the failure.
    expect(triage.stdout).toMatch(/Ingested 1 file/)
    const gate = runCli(['triage', logs, '--canaries', join(dir, 'can.csv'), '--db', join(dir, 'g.db'), '--fail-on-leak'])
    expect(gate.code, gate.stderr).toBe(1)
    // --json: the contract's error object, its details the document triage would have printed.
    const json = runCli(['triage', logs, '--canaries', join(dir, 'can.csv'), '--db', join(dir, 'j.db'), '--json'])
    expect(json.code, json.stderr).toBe(1)
    const error = (JSON.parse(json.stdout) as {error: {code: string; details: {ingest: {skipped_entries: {path: string; unread: boolean}[]}; scope: unknown}}}).error
    expect(error.code).toBe('E_NOT_READ')
    expect(error.details.ingest.skipped_entries).toEqual([expect.objectContaining({path: join(logs, 'gw2.jsonl.zst'), unread: true})])
    expect(error.details.scope).toBeDefined()
  })

  it('keeps the gate\'s exit 3 where it tripped over logs with an entry not read', () => {
    const dir = tempDir('ct-triage-unread-')
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const leak = JSON.parse(LINE) as Record<string, unknown>
    writeFileSync(join(logs, 'gw1.jsonl'), LINE + JSON.stringify({...leak, request_id: 'r2', tenant_id: 'b', session_id: 's2', response: 'see CANARY-00000000000000aa01'}) + '\n')
    writeFileSync(join(logs, 'gw2.jsonl.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0x63, 0x6f]))
    writeFileSync(join(dir, 'can.csv'), REGISTRY)
    const gate = runCli(['triage', logs, '--canaries', join(dir, 'can.csv'), '--db', join(dir, 'g.db'), '--fail-on-leak'])
    expect(gate.stderr).toMatch(/gw2\.jsonl\.zst: not read/)
    expect(gate.code, gate.stderr).toBe(3)
  })
})
