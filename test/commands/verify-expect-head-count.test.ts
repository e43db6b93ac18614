import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA investigate #10: verify --expect-head HASH:0 was taken as a head noted with no entry and
// reported as entries removed (exit 1), a false sign of tampering; :-1 was already a usage error.
// A head is an entry: its count is 1 or more.

describe('verify --expect-head COUNT', () => {
  it('0 is a usage error (exit 2), as -1 is, before any case is read', async () => {
    const db = join(tempDir('ct-head-'), 'none.db')
    for (const head of ['abcdef012345:0', 'abcdef012345:00', 'abcdef012345:-1']) {
      const r = await run(['verify', '--db', db, '--expect-head', head])
      expect(r.code, head).toBe(2)
      expect(r.stderr, head).toMatch(/COUNT a whole number from 1/)
    }
  })
})
