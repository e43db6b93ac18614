import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {processAlive} from '../../src/util/process-alive.js'
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

  it.runIf(process.platform === 'linux')('a killed process left a zombie (its parent gone, pid 1 not reaping): its folder is removed too', async () => {
    // Python forks a child that ends at once and never waits for it (it sets no SIGCHLD handler):
    // a zombie while the parent sleeps. (A shell's `true & exec sleep` was not one: the shell could
    // reap the child before its exec, so the case was not always built.)
    const holder = spawn('python3', ['-c', 'import os, time\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(20)'], {stdio: ['ignore', 'pipe', 'ignore']})
    try {
      const zombie = Number(await new Promise<string>((resolve) => holder.stdout!.once('data', (d: Buffer) => resolve(d.toString()))))
      await new Promise((r) => setTimeout(r, 300))
      expect(processAlive(zombie)).toBe(true)
      const parent = mkdtempSync(join(tmpdir(), 'ct-scratch-'))
      const left = join(parent, `crosstalk-verify-${zombie}-Qq12Ww`)
      mkdirSync(left)
      const scratch = scratchDir(parent, 'crosstalk-verify-')
      scratch.remove()
      expect(existsSync(left)).toBe(false)
    } finally {
      holder.kill('SIGKILL')
    }
  })
})
