import {mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'

const base = mkdtempSync(join(tmpdir(), 'ct-replaced-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))
const NOW = (): Date => new Date('2026-11-02T00:00:00Z')

function line(id: string, tenant: string, answer: string): string {
  return JSON.stringify({
    ts: '2026-11-01T10:00:00Z', request_id: id, tenant_id: tenant, session_id: `s${tenant}`, status: 200,
    request: {messages: [{role: 'user', content: 'hi'}]},
    response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  }) + '\n'
}

describe("a log replaced between triage's quick pass and its read into the case", () => {
  it('is refused as changed, naming the file, not read as what the verdict judged', async () => {
    const log = join(base, 'gw.jsonl')
    writeFileSync(log, line('a', 'tA', 'fine') + line('b', 'tB', 'fine'))
    const next = join(base, 'gw.new')
    writeFileSync(next, line('a', 'tA', 'fine') + line('b', 'tB', 'x CANARY-aaaaaaaaaaaaaaaa01 y') + line('c', 'tB', 'more'))
    const db = openCase(join(base, 'case.db'), {create: true})
    try {
      let passes = 0
      const ingest = ingestLogs(db, {
        paths: [log], now: NOW, workers: 0,
        quickPass: {
          onRecord: () => {},
          // The writer's `mv gw.new gw.jsonl`, at the point where the verdict has been given.
          onPass: () => {
            passes++
            renameSync(next, log)
          },
        },
      })
      await expect(ingest).rejects.toMatchObject({
        code: 'E_CHANGED',
        message: `${log}: changed between triage's quick canary pass and its read into the case (replaced by another file); the verdict was given on other bytes: run triage again once nothing replaces or truncates it`,
      })
      expect(passes).toBe(1)
    } finally {
      db.close()
    }
  })
})
