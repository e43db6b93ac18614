import {existsSync, mkdirSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {runCli, spawnCli, tempDir} from '../helpers/cli.js'

// verify --deep rebuilds the detection in a scratch copy of the case (records, registry: other
// people's data). A SIGINT or SIGTERM used to end the process before its finally block, and the
// copy stayed in the temporary folder for good.

describe('verify --deep stopped by a signal', () => {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${sig}: the scratch copy is removed and the process ends with the signal's status`, async () => {
      const incident = inject('incident')
      const dir = tempDir()
      const db = join(dir, 'case.db')
      const scratchParent = join(dir, 'tmp')
      mkdirSync(scratchParent)
      expect(runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', db]).code).toBe(0)
      const child = spawnCli(['verify', '--deep', '--db', db], {env: {TMPDIR: scratchParent}})
      const done = new Promise<number | null>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s === sig ? code : null))))
      // Wait until the scratch copy exists and holds something, then stop verify.
      for (let i = 0; i < 600; i++) {
        const made = readdirSync(scratchParent).filter((n) => n.startsWith('crosstalk-verify-'))
        if (made.length > 0 && readdirSync(join(scratchParent, made[0]!)).length > 0) break
        await new Promise((r) => setTimeout(r, 25))
      }
      expect(readdirSync(scratchParent).some((n) => n.startsWith('crosstalk-verify-'))).toBe(true)
      child.kill(sig)
      expect(await done).toBe(code)
      expect(readdirSync(scratchParent).filter((n) => n.startsWith('crosstalk-verify-'))).toEqual([])
      expect(existsSync(db)).toBe(true)
    }, 120_000)
  }
})
