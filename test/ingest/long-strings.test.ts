import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {duplicateKeyPath} from '../../src/extract/duplicate-keys.js'
import {markerTokens} from '../../src/extract/markers.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA differential #3: a JSON string of about 10 MB holding an escaped quote overflowed the stack
// in the duplicate-key check's string regex, and `CANARY-` before 6 MB of hex digits in the
// marker regexes (V8 runs an alternation under `*`, and `{8,}`, by recursion). The whole command
// failed, no file stored, a stack and machine paths printed. Both are scans now.

const LEAKED = 'CANARY-fedcba9876543210fedc'
const record = (id: string, text: string): string =>
  JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: id, tenant_id: 'tA', session_id: 'sA', status: 200, response: {choices: [{message: {content: text}}]}})

describe('strings and hex runs of megabytes', () => {
  it('finds where a long string with escaped quotes ends, and a key given twice after it', () => {
    const big = `say "hi" ${'lorem ipsum '.repeat(1_000_000)} \\\\" end`
    const text = `{"a":${JSON.stringify(big)},"b":1,"b":2}`
    expect(duplicateKeyPath(text)).toBe('b')
    expect(duplicateKeyPath(`{"a":${JSON.stringify(big)},"b":1}`)).toBeNull()
    // A quote after an odd run of backslashes is inside the string; after an even run it ends it.
    expect(duplicateKeyPath('{"a":"x\\\\\\"b\\":1,","b":1,"b":2}')).toBe('b')
  })

  it('reads `CANARY-` and a hex run of megabytes as one token', () => {
    const hex = 'ab'.repeat(3_000_000)
    expect(markerTokens(`x CANARY-${hex} y ${LEAKED}`)).toEqual([
      {token: `CANARY-${hex}`, position: 2},
      {token: LEAKED, position: 2 + 7 + hex.length + 3},
    ])
    // Runs cut at the next CANARY- (its C and A are hex digits), and runs too short, as before.
    expect(markerTokens('CANARY-0123456789CANARY-abcdef0123 CANARY-0123 CANARY-0123456').map((t) => t.token)).toEqual(['CANARY-0123456789', 'CANARY-abcdef0123'])
  })

  for (const native of ['1', '0']) {
    it(`ingests both files and finds the leak beside a 12 MB answer and a 6 MB hex run (CROSSTALK_NATIVE=${native})`, async () => {
      const dir = tempDir()
      writeFileSync(join(dir, 'can.csv'), `marker,tenant_id,session_id,issued_at\nCANARY-0123456789abcdef0123,tA,sA,2026-10-01T00:00:00Z\n${LEAKED},tB,sB,2026-10-01T00:00:00Z\n`)
      writeFileSync(join(dir, 'big.jsonl'), `${record('big', `say "hi" ${'lorem ipsum '.repeat(1_000_000)}`)}\n${record('hex', `CANARY-${'ab'.repeat(3_000_000)}`)}\n`)
      writeFileSync(join(dir, 'small.jsonl'), `${record('small', `x ${LEAKED}`)}\n`)
      const db = join(dir, 'case.db')
      const r = await run(['triage', join(dir, 'small.jsonl'), join(dir, 'big.jsonl'), '--canaries', join(dir, 'can.csv'), '--db', db, '--fail-on-leak'], {env: {CROSSTALK_NATIVE: native}})
      expect(r.stderr).not.toMatch(/Maximum call stack|\n\s+at /)
      expect(r.code).toBe(3)
      const status = await run(['status', '--db', db, '--json'])
      expect(status.stdout).toMatch(/"records": 3\b/)
    }, 120_000)
  }
})
