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
})
