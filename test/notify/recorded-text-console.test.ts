import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A notification's reference is recorded text: an error naming it quotes it (so that its words
// cannot read as the message's own) and never lets its controls reach the terminal.

const ESC = '\u001b'

describe('recorded text in an incident refusal', () => {
  it('amend-awareness names the recorded reference quoted, with its controls escaped', async () => {
    const db = path.join(tempDir(), 'case.db')
    expect((await run(['incident', 'open', '--db', db, '--title', 'P', '--aware-at', '2026-11-02T09:00:00+01:00', '--role', 'controller'])).code).toBe(0)
    const reference = `I1), amended by the DPO (${ESC}]0;owned\u0007`
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-02T13:30:00Z', '--reference', reference])).code).toBe(0)
    for (const json of [false, true]) {
      const r = await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-11-03T00:00:00Z', '--reason', 're-dated', ...(json ? ['--json'] : [])])
      expect(r.code).toBe(1)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr + r.stdout).not.toContain(ESC)
      expect(r.stderr).toContain('(to the authority, reference "I1), amended by the DPO (\\x1b]0;owned\\x07")')
    }
  })
})
