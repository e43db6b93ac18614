import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA docs #2: acme's user s1 was served globex's marker with an e-mail address and a phone number
// that s1 never sent and no earlier session sent: `pii` finds both, attributed to no source. The
// Art. 33 draft counts them (they are in a response carrying another session's data); acme's
// processor notice said its users received none.

const answer = (ts: string, rid: string, tenant: string, session: string, prompt: string, text: string): string =>
  JSON.stringify({ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: text}}]}})

describe('processor notice: personal data with no named source in a response carrying another session\'s data', () => {
  it('is reported to the customer whose users received it, as the Art. 33 draft reports it', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000a1,acme,s1,2026-11-01T00:00:00Z\nCANARY-00000000000000b2,globex,s2,2026-11-01T00:00:00Z\n')
    writeFileSync(join(dir, 'logs.jsonl'), [
      answer('2026-11-02T08:00:00Z', 'r1', 'acme', 's1', 'hi CANARY-00000000000000a1', 'leak CANARY-00000000000000b2 write to alice@example.com or +33 6 12 34 56 78'),
      answer('2026-11-02T08:01:00Z', 'r2', 'globex', 's2', 'hello CANARY-00000000000000b2', 'ok'),
    ].join('\n') + '\n')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', join(dir, 'logs.jsonl'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const pii = await runJson<Array<{kind: string; recipient_tenant: string; source_tenant: string | null}>>(['pii', '--db', db])
    expect(pii.map((p) => [p.kind, p.recipient_tenant, p.source_tenant]).sort()).toEqual([['email', 'acme', null], ['phone', 'acme', null]])
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])).code).toBe(0)

    const notice = await runJson<{you_received_other_data: {personal_data_found: Array<{label: string; count: number}>; personal_data_none: string | null}}>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])
    expect(notice.you_received_other_data.personal_data_none).toBeNull()
    expect(notice.you_received_other_data.personal_data_found.map((c) => c.count)).toEqual([1, 1])
    for (const lang of ['en', 'fr']) {
      const md = await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--lang', lang])
      expect(md.code, md.stderr).toBe(0)
      expect(md.stdout).not.toMatch(/None found: the responses your users received|Aucune trouvée : les réponses reçues par vos utilisateurs/)
      expect(md.stdout).toMatch(lang === 'en' ? /e-mail addresses/ : /adresses (e-mail|électroniques)/)
    }
  }, 60_000)
})
