import {mkdirSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {runCli, spawnCli, tempDir} from '../helpers/cli.js'

// QA: `verify --deep` killed with SIGKILL (no handler runs) left its scratch folder, a copy of
// the canary registry in it, and later verify runs never removed it. The next run removes it.

describe('verify --deep after one killed with SIGKILL', () => {
  it('the next run removes the scratch folder the killed one left', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const scratchParent = join(dir, 'tmp')
    mkdirSync(scratchParent)
    expect(runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', db]).code).toBe(0)
    const scratch = (): string[] => readdirSync(scratchParent).filter((n) => n.startsWith('crosstalk-verify-'))
    const child = spawnCli(['verify', '--deep', '--db', db], {env: {TMPDIR: scratchParent}})
    const done = new Promise<void>((resolve) => child.on('exit', () => resolve()))
    // Wait until the scratch folder holds a copy (the registry), then kill verify outright.
    for (let i = 0; i < 600; i++) {
      const made = scratch()
      if (made.length > 0 && readdirSync(join(scratchParent, made[0]!)).length > 0) break
      await new Promise((r) => setTimeout(r, 25))
    }
    child.kill('SIGKILL')
    await done
    expect(scratch().length).toBe(1)
    expect(runCli(['verify', '--deep', '--db', db], {env: {TMPDIR: scratchParent}}).code).toBe(0)
    expect(scratch()).toEqual([])
  }, 180_000)
})
