import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {scratchDir} from '../../src/util/scratch.js'

// QA: verify --deep killed with SIGKILL left its scratch folder (a copy of the canary registry:
// personal data) in the temporary folder, and no later run removed it. A new scratch folder
// removes those of processes that have ended; a live process's folder stays.

/** The pid of a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {encoding: 'utf8'})
  return Number(child.stdout)
}

describe('scratchDir: folders left by ended processes', () => {
  it('are removed by the next scratch folder; a live process\'s, another prefix\'s and a non-scratch name stay', () => {
    const parent = mkdtempSync(join(tmpdir(), 'ct-scratch-'))
    const dead = join(parent, `crosstalk-verify-${deadPid()}-Ab12Cd`)
    mkdirSync(dead)
    writeFileSync(join(dead, 'canaries.csv'), 'marker,tenant,session\n')
    const live = join(parent, `crosstalk-verify-${process.pid}-Zz99Yy`)
    mkdirSync(live)
    const other = join(parent, `crosstalk-other-${deadPid()}-Ab12Cd`)
    mkdirSync(other)
    const notScratch = join(parent, 'crosstalk-verify-notes')
    mkdirSync(notScratch)

    const scratch = scratchDir(parent, 'crosstalk-verify-')
    try {
      expect(scratch.path.startsWith(join(parent, `crosstalk-verify-${process.pid}-`))).toBe(true)
      expect(existsSync(dead)).toBe(false)
      expect(scratch.swept).toEqual([dead])
      for (const kept of [live, other, notScratch, scratch.path]) expect(existsSync(kept)).toBe(true)
    } finally {
      scratch.remove()
    }
    expect(existsSync(scratch.path)).toBe(false)
    expect(readdirSync(parent).length).toBe(3)
  })
})
