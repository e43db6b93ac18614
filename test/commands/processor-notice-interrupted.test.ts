import {existsSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {spawnSync} from 'node:child_process'
import {beforeAll, describe, expect, it} from 'vitest'
import {buildNotifyCase} from '../helpers/notify-case.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA crash #1: `report processor-notice --all` interrupted after some notices exited 130 with no
// word, and the same command run again was refused: the notices it had written were recorded in
// the audit log only once all were written, so they counted as files this case did not write.
// A write killed between its temporary file and the rename left a hidden copy of a customer's
// notice in the folder for good.

describe('processor-notice --all interrupted', () => {
  let db: string
  beforeAll(async () => {
    ;({db} = await buildNotifyCase())
    const open = await run(['incident', 'open', '--db', db, '--title', 'KV-cache leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'processor'])
    expect(open.code, open.stderr).toBe(0)
  })

  it('says which notices were written and which not, exits 130, and the plain rerun writes them all', async () => {
    const out = path.join(tempDir('ct-pn-int-'), 'notices')
    const cut = await run(['report', 'processor-notice', '--db', db, '--all', '--out', out], {env: {CROSSTALK_TEST_INTERRUPT_AFTER_NOTICE: '1'}})
    expect(cut.code, cut.stderr).toBe(130)
    const m = /Interrupted \(SIGINT\): wrote 1 of (\d+) notices into .*; not written: .*Run the same command again/.exec(cut.stderr)
    expect(m, cut.stderr).not.toBeNull()
    const total = Number(m![1])
    expect(total).toBeGreaterThan(1)
    expect(readdirSync(out)).toHaveLength(1)

    const again = await run(['report', 'processor-notice', '--db', db, '--all', '--out', out, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect((JSON.parse(again.stdout) as {notices: unknown[]}).notices).toHaveLength(total)
    expect(readdirSync(out).filter((f) => !f.startsWith('.'))).toHaveLength(total)
  })

  it('the next write into the folder removes a temporary file a killed writer left, and names it', async () => {
    const out = path.join(tempDir('ct-pn-part-'), 'notices')
    expect((await run(['report', 'processor-notice', '--db', db, '--all', '--out', out])).code).toBe(0)
    // A process that has ended: its pid is free (reaped) once spawnSync returns.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!
    const stale = `.processor-notice-x-00000000.md.${dead}.1796669651265.part`
    writeFileSync(path.join(out, stale), 'half a notice')
    // A live writer's is left alone.
    const live = `.processor-notice-y-00000000.md.${process.ppid}.1796669651265.part`
    writeFileSync(path.join(out, live), 'being written')
    const again = await run(['report', 'processor-notice', '--db', db, '--all', '--out', out])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain(`removed a temporary file that an interrupted write left there (${stale})`)
    expect(existsSync(path.join(out, stale))).toBe(false)
    expect(existsSync(path.join(out, live))).toBe(true)
  })
})
