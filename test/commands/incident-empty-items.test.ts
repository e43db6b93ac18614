import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs #5: `incident set --measures-taken ";"` (or --cause ";") was accepted, though the
// documents split it into no item: the register's "Remedial action" was blank, the Art. 33
// "Measures taken:" empty with no open item, the Art. 34 "What we have done" empty, and the
// cause read "as established: ;". "   " gave a schema message naming no flag.

describe('incident set with a text that holds no item', () => {
  it('is refused naming the flag, and a value already stored that way stays an open item', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000b2,globex,s2,2026-11-01T00:00:00Z\nCANARY-00000000000000c3,globex,s3,2026-11-01T00:00:00Z\n')
    writeFileSync(join(dir, 'logs.jsonl'), JSON.stringify({ts: '2026-11-02T08:00:00Z', request_id: 'r1', tenant_id: 'globex', session_id: 's3', status: 200, request: {messages: [{role: 'user', content: 'hi CANARY-00000000000000c3'}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: 'x CANARY-00000000000000b2'}}]}}) + '\n')
    for (const args of [['ingest', 'canaries', join(dir, 'canaries.csv')], ['ingest', 'logs', join(dir, 'logs.jsonl')], ['scan'], ['incident', 'open', '--title', 'T', '--aware-at', '2026-11-03T09:00:00Z', '--role', 'controller']]) {
      const r = await run([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
    }
    for (const [flag, value] of [['--measures-taken', ';'], ['--cause', ';'], ['--measures-proposed', ' ; ;'], ['--measures-taken', '   ']] as const) {
      const r = await run(['incident', 'set', '--db', db, flag, value])
      expect(r.code, `${flag} ${JSON.stringify(value)}`).toBe(2)
      expect(r.stderr).toContain(`${flag}: `)
      expect(r.stderr).not.toMatch(/Too small|measures_taken:/)
    }
    const open = /\| Remedial action \| to be completed: measures taken/
    expect((await run(['report', 'register', '--db', db])).stdout).toMatch(open)

    // A case recorded before such values were refused: the documents still list the measures as open.
    const raw = new Database(db)
    raw.prepare("UPDATE incident SET measures_taken = ';', measures_proposed = ';'").run()
    raw.close()
    expect((await run(['report', 'register', '--db', db])).stdout).toMatch(open)
    const a33 = (await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout
    const items = (JSON.parse(a33) as {open_items: Array<{section: string}>}).open_items.map((o) => o.section)
    expect(items).toContain('measures_taken')
    expect(items).toContain('measures_proposed')
    const a34 = (await run(['report', 'article34', '--db', db, '--lang', 'en'])).stdout
    expect(a34).toMatch(/## What we have done\n\n- to be completed: measures taken/)
  }, 60_000)
})
