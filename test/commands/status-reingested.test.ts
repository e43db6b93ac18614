import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {runJson} from '../helpers/commands.js'

// The on-call triages again as logs arrive: each re-ingest of a file already in the case adds
// nothing and reports its lines as duplicates. status counted only those done by `ingest logs`.

describe('status: files ingested again', () => {
  it('counts the re-ingests triage does, as those of ingest logs', async () => {
    const dir = tempDir()
    const log = join(dir, 'app.jsonl')
    const line = (i: number, session: string): string => JSON.stringify({ts: `2026-11-03T01:00:0${i}Z`, request_id: `r-${i}`, tenant_id: 'tn-a', session_id: session, response: 'hi'})
    writeFileSync(log, `${line(1, 'sess-a')}\n${line(2, 'sess-b')}\n`)
    const db = join(dir, 'c.db')
    await runJson(['triage', log, '--db', db])
    await runJson(['triage', log, '--db', db])
    type Counts = {reingested_files: number; reingested_duplicates: number}
    const afterTriage = await runJson<Counts>(['status', '--db', db])
    expect([afterTriage.reingested_files, afterTriage.reingested_duplicates]).toEqual([1, 2])
    await runJson(['ingest', 'logs', log, '--db', db])
    const afterIngest = await runJson<Counts>(['status', '--db', db])
    expect([afterIngest.reingested_files, afterIngest.reingested_duplicates]).toEqual([2, 4])
  }, 60_000)
})
