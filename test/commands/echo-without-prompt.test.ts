import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// A marker registered to another session, in a response whose request the logs do not hold:
// the echo check (did the user send the marker?) has nothing to read. The sighting stays
// cross-tenant (the contract's rule), and every output that counts it says the check could not run.

const marker = 'CANARY-00112233445566778899'

/** A case folder with a registry of one marker, tenant-b's. */
function caseDir(): {dir: string; canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${marker},tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {dir, canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

describe('a contaminated response whose prompt was not logged', () => {
  it('is counted, and scope, the console and the drafts say the echo check could not be made', async () => {
    const {canaries, logs, db} = caseDir()
    const withPrompt = JSON.parse(chatLine({request_id: 'r1', answer: `see ${marker}`})) as Record<string, unknown>
    const {request: _dropped, ...noPrompt} = JSON.parse(chatLine({request_id: 'r2', session_id: 'sess-2', answer: `also ${marker}`})) as Record<string, unknown>
    writeFileSync(logs, `${JSON.stringify(withPrompt)}\n${JSON.stringify(noPrompt)}\n`)
    const triage = await run(['triage', logs, '--canaries', canaries, '--db', db])
    expect(triage.code, triage.stderr).toBe(0)
    const scope = await runJson<{contaminated_responses: number; contaminated_without_prompt: number}>(['scope', '--db', db])
    expect(scope).toMatchObject({contaminated_responses: 2, contaminated_without_prompt: 1})
    expect((await run(['scope', '--db', db])).stdout).toMatch(/^ {2}no prompt logged \(echo not ruled out\) +1$/m)
    await run(['incident', 'open', '--db', db, '--title', 'T', '--role', 'controller', '--aware-at', '2026-11-02T08:00:00Z'])
    const a33 = (await run(['report', 'article33', '--db', db])).stdout
    expect(a33).toContain("For 1 response carrying another session's canary marker the logs hold no prompt text, so it could not be checked whether the user had sent that marker (an echo)")
    const register = await runJson<{facts: string}>(['report', 'register', '--db', db, '--format', 'json'])
    expect(register.facts).toMatch(/For 1 response carrying another session's canary marker the logs hold no prompt text/)
    // A case that keeps no extract of its records (a Spark audit's findings bring none) reads the prompts from the evidence: 1, not 0.
    const sql = new Database(db)
    sql.prepare('DELETE FROM fingerprints').run()
    sql.close()
    expect(await runJson<{contaminated_without_prompt: number | null}>(['scope', '--db', db])).toMatchObject({contaminated_without_prompt: 1})
  })

  it('says nothing of it where every contaminated response has its prompt', async () => {
    const {canaries, logs, db} = caseDir()
    writeFileSync(logs, `${chatLine({request_id: 'r1', answer: `see ${marker}`})}\n`)
    await run(['triage', logs, '--canaries', canaries, '--db', db])
    expect(await runJson<{contaminated_without_prompt: number}>(['scope', '--db', db])).toMatchObject({contaminated_without_prompt: 0})
    expect((await run(['scope', '--db', db])).stdout).not.toMatch(/no prompt logged/)
  })
})
