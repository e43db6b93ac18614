import {spawn, type ChildProcess} from 'node:child_process'
import {afterEach, describe, expect, it} from 'vitest'
import {makeCase, type TestCase} from '../helpers/case-builder.js'
import {runCli} from '../helpers/cli.js'

// QA (upgrade, defect 5): while `ingest logs` ran in one process, `status` in another called its
// file "interrupted: run the same ingest again" (and `status --json` "its ingest did not finish
// (run it again)"); doing so was refused as busy. The live claim (migration 016) names the
// process: a file whose ingest has not finished is said to be still being ingested while a live
// process holds the case, and interrupted only when none does.

let tc: TestCase | undefined
let holder: ChildProcess | undefined
afterEach(() => {
  holder?.kill()
  holder = undefined
  tc?.close()
  tc = undefined
})

describe('status over a file whose ingest has not finished', () => {
  it('names the live process that holds the case instead of asking to ingest again; once it is gone, says interrupted', async () => {
    tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hi', response_text: 'fine'}])
    // The file as an ingest leaves it while it reads (its row 'loading'), held by a live process.
    tc.db.prepare("UPDATE files SET state = 'loading' WHERE kind = 'log'").run()
    holder = spawn('sleep', ['60'])
    tc.db.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = NULL WHERE id = 1').run(holder.pid)
    tc.close()

    const live = runCli(['status', '--db', tc.path])
    expect(live.code).toBe(0)
    expect(live.stdout).toContain(`(1 not finished: process ${holder.pid} is writing to this case (an ingest, scan or drop) and may be ingesting it still; wait for it to finish)`)
    expect(live.stdout).not.toContain('interrupted: run the same ingest again')
    const json = JSON.parse(runCli(['status', '--db', tc.path, '--json']).stdout) as {unreadable_files: Array<{why: string}>}
    expect(json.unreadable_files.map((f) => f.why)).toEqual([`its ingest has not finished: process ${holder.pid} is writing to this case (an ingest, scan or drop) and may be ingesting it still; wait for it to finish`])

    // The holder ended (killed): the file's ingest was interrupted.
    holder.kill('SIGKILL')
    await new Promise<void>((resolve) => holder!.once('exit', () => resolve()))
    const after = runCli(['status', '--db', tc.path])
    expect(after.stdout).toContain('(1 interrupted: run the same ingest again)')
    const jsonAfter = JSON.parse(runCli(['status', '--db', tc.path, '--json']).stdout) as {unreadable_files: Array<{why: string}>}
    expect(jsonAfter.unreadable_files.map((f) => f.why)).toEqual(['its ingest did not finish (run it again)'])
  })
})
