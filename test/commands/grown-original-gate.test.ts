import {appendFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {finalTriageGate} from '../../src/cli/leak-gate.js'
import {openCase} from '../../src/store/open-case.js'

// A log appended to after ingest holds bytes the case never judged (here: an answer that gives
// tenant-b tenant-a's marker). status named them, but the gate passed, scope called detection
// complete and the Article 33 draft said no response carried another session's data.

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number, tenant: string, session: string, content: string): string =>
  JSON.stringify({ts: `2026-11-03T01:00:0${i}Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response: content}) + '\n'

function grownCase(): {db: string; log: string; canaries: string} {
  const dir = tempDir()
  const canaries = join(dir, 'reg.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-a,sess-a,2026-11-01T00:00:00Z\n`)
  const log = join(dir, 'app.jsonl')
  writeFileSync(log, line(1, 'tn-a', 'sess-a', `fine ${A}`))
  return {db: join(dir, 'c.db'), log, canaries}
}

describe('a log that grew after ingest', () => {
  for (const evidence of ['copy', 'reference']) {
    it(`fails the gate, leaves detection incomplete and is an open item of the draft (--evidence ${evidence})`, async () => {
      const {db, log, canaries} = grownCase()
      const first = await run(['triage', log, '--canaries', canaries, '--db', db, '--evidence', evidence, '--fail-on-leak'])
      expect(first.code, first.stderr).toBe(0)
      appendFileSync(log, line(2, 'tn-b', 'sess-b', `leak ${A}`))

      const gate = await run(['scan', '--db', db, '--fail-on-leak'])
      expect(gate.code, gate.stderr).toBe(1)
      expect(gate.stderr).toContain('app.jsonl')
      expect(gate.stderr).toContain('never judged')

      const scope = await run(['scope', '--db', db, '--json'])
      expect(scope.code).toBe(1)
      expect(JSON.parse(scope.stdout).error.code).toBe('E_NOT_SCANNED')
      const partial = await runJson<{detection: {complete: boolean; files_grown: number}}>(['scope', '--db', db, '--allow-incomplete'])
      expect(partial.detection.complete).toBe(false)
      expect(partial.detection.files_grown).toBe(1)

      await runJson(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])
      const draft = await runJson<{open_items: Array<{item: string}>; form_fields: Array<{value: string}>}>(['report', 'article33', '--db', db, '--allow-incomplete'])
      expect(draft.open_items.some((o) => o.item.includes('app.jsonl') && o.item.includes('grew after it was ingested'))).toBe(true)
      const text = JSON.stringify(draft)
      expect(text).not.toContain('detection over every log found no response')

      // Ingested again and scanned: the bytes are judged, and the leak in them trips the gate.
      expect((await run(['ingest', 'logs', log, '--db', db, '--evidence', evidence])).code).toBe(0)
      const again = await run(['scan', '--db', db, '--fail-on-leak'])
      expect(again.code, again.stderr).toBe(3)
    }, 120_000)
  }
})

describe('triage\'s gate once the case is complete', () => {
  it('fails on a log that grew after triage read it, whenever its verdict was decided, and never repeats a line already said', async () => {
    const {db, log, canaries} = grownCase()
    expect((await run(['triage', log, '--canaries', canaries, '--db', db])).code).toBe(0)
    const c = openCase(db)
    try {
      // Decided at the verdict with nothing to say: nothing grown yet, nothing to add.
      expect(finalTriageGate(c, {tripped: null, cannotPass: null}, {'fail-on-leak': true}, () => {})).toEqual({tripped: null, cannotPass: null})
      // The log grows after it was read, while the rest of triage runs (here: before its end).
      appendFileSync(log, line(2, 'tn-b', 'sess-b', `leak ${A}`))
      const notes: string[] = []
      const clean = finalTriageGate(c, {tripped: null, cannotPass: null}, {'fail-on-leak': true}, (l) => notes.push(l))
      expect(clean?.tripped).toBeNull()
      expect(clean?.cannotPass).toMatch(/^--fail-on-leak cannot pass: 1 log file grew since it was ingested and the bytes added were never judged: .*app\.jsonl/)
      // A gate that tripped stays tripped (exit 3) and says the growth beside it.
      const tripped = finalTriageGate(c, {tripped: 'contamination found: 1 response', cannotPass: null}, {'fail-on-leak': true}, (l) => notes.push(l))
      expect(tripped?.tripped).toBe('contamination found: 1 response')
      expect(notes.some((n) => n.startsWith('Gate: also: 1 log file grew'))).toBe(true)
      // Already said by the verdict's gate: not said twice.
      expect(finalTriageGate(c, clean, {'fail-on-leak': true}, () => {})).toEqual(clean)
      // Without --fail-on-leak there is no gate.
      expect(finalTriageGate(c, null, {}, () => {})).toBeNull()
    } finally {
      c.close()
    }
  }, 120_000)
})
