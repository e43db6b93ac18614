import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// The "Wrote ..." line echoes the --out path a user gave: an ESC in it (a path pasted from a log)
// drove the terminal.

describe('"Wrote ..." lines show the --out path with controls made visible', () => {
  it('generate --out', async () => {
    const dir = join(tempDir(), 'in\u001b[31mred')
    mkdirSync(dir)
    const r = await run(['generate', '--out', join(dir, 'inc'), '--records', '200'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('\u001b[31m')
    expect(r.stdout).toMatch(/Wrote 200 records .* to .*in\\x1b\[31mred/)
  }, 60_000)
})
