import Database from 'better-sqlite3'
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {canonicalJson} from '../../src/util/canonical-json.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// Issue 16: `verify` must catch each way of altering a case that an attacker with the file
// was seen to get past it, and name what was altered. One case is built by the real
// commands (registry, logs with a duplicate, a bad line and a blank line, a scan with
// cross-tenant, cross-session and personal-data findings, an incident with an amendment);
// each test alters a copy of it the way the attack did and runs verify on the copy.

const A = 'CANARY-aaaaaaaaaaaaaaaa1111'
const B = 'CANARY-bbbbbbbbbbbbbbbb2222'
const SHARED = 'the quarterly revenue forecast for the northern region shows a steady decline across every product line this year'

let dir: string
let base: string
let head: {hash: string; count: number}

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,a1,\n${B},tenant-b,b1,\n`)
  const logs = join(dir, 'gateway.jsonl')
  const lines = [
    chatLine({request_id: 'r1', tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T06:00:00.000Z', prompt: `${A} mail me at alice@example.com about ${SHARED}`, answer: 'noted', decode_node: 'd1'}),
    chatLine({request_id: 'r2', tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T06:01:00.000Z', prompt: `${B} hello`, answer: `here: ${A} and alice@example.com`, decode_node: 'd1', prompt_tokens: 900}),
    chatLine({request_id: 'r3', tenant_id: 'tenant-a', session_id: 'a2', ts: '2026-11-02T06:02:00.000Z', prompt: 'hi', answer: `also ${A}`, decode_node: 'd2'}),
    chatLine({request_id: 'r1', tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T06:03:00.000Z', prompt: 'again', answer: 'dup'}),
    'this line is not json',
    '',
    chatLine({request_id: 'r4', tenant_id: 'tenant-c', session_id: 'c1', ts: '2026-11-02T06:04:00.000Z', prompt: 'summarise', answer: `sure: ${SHARED}`, decode_node: 'd1'}),
    chatLine({request_id: 'r5', tenant_id: 'tenant-c', session_id: 'c2', ts: '2026-11-02T06:05:00.000Z', prompt: 'plain', answer: 'plain answer'}),
  ]
  writeFileSync(logs, `${lines.join('\n')}\n`)
  base = join(dir, 'case.db')
  await runJson(['ingest', 'canaries', canaries, '--db', base])
  await runJson(['ingest', 'logs', logs, '--db', base])
  await runJson(['scan', '--db', base, '--pool-tokens', '800', '--min-words', '12'])
  await runJson(['incident', 'open', '--db', base, '--title', 'leak', '--aware-at', '2026-11-02T08:00:00Z', '--role', 'processor'])
  await runJson(['incident', 'amend-awareness', '--db', base, '--aware-at', '2026-11-02T07:30:00Z', '--reason', 'paged earlier'])
  const status = await runJson<{audit_head: string; audit_entries: number}>(['status', '--db', base])
  head = {hash: status.audit_head, count: status.audit_entries}
})

let copies = 0
/** A copy of the case altered by `edit` (triggers that stand in the way are the forger's to drop). */
function tampered(edit: (sql: Database.Database) => void): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const sql = new Database(path)
  edit(sql)
  sql.close()
  return path
}

async function verify(path: string, ...extra: string[]): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, '--no-originals', ...extra])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe('verify on the untouched case', () => {
  it('passes, prints the audit head to note, and says the chain is checked only against itself', async () => {
    const r = await verify(base)
    expect(r.out).toMatch(/^OK: /m)
    expect(r.code).toBe(0)
    expect(r.out).toContain(`Audit head: ${head.hash}:${head.count}`)
    expect(r.out).toMatch(/Not checked: the audit chain was checked only against itself/)
    const json = await runJson<{ok: boolean; audit_head: string; records_checked: number; sightings_rederived: number; canaries_checked: number; lines_checked: number}>(['verify', '--db', base, '--no-originals'])
    expect(json).toMatchObject({ok: true, audit_head: head.hash, records_checked: 5, sightings_rederived: 5, canaries_checked: 2, lines_checked: 8})
  })

  it('status prints the same head, ready to be given to --expect-head', async () => {
    expect((await run(['status', '--db', base])).stdout).toContain(`(head ${head.hash}:${head.count}, for verify --expect-head)`)
  })

  it('passes --expect-head with the noted head, a cut hash, and the hash alone', async () => {
    expect((await verify(base, '--expect-head', `${head.hash}:${head.count}`)).out).toMatch(/anchored at the head you noted/)
    expect((await verify(base, '--expect-head', `${head.hash.slice(0, 16)}:${head.count}`)).code).toBe(0)
    expect((await verify(base, '--expect-head', head.hash)).code).toBe(0)
    expect((await run(['verify', '--db', base, '--expect-head', 'xyz'])).code).toBe(2)
  })

  it('passes --deep: detection run again on a scratch copy gives the same findings', async () => {
    const json = await runJson<{ok: boolean; findings_rederived: boolean}>(['verify', '--db', base, '--no-originals', '--deep'])
    expect(json).toMatchObject({ok: true, findings_rederived: true})
  })
})

describe('verify catches an edited record field, named by record and field', () => {
  for (const [field, value] of [['tenant_id', "'tenant-z'"], ['session_id', "'b9'"], ['status', '500'], ['decode_node', "'d7'"], ['prompt_tokens', '10']] as const) {
    it(field, async () => {
      const r = await verify(tampered((sql) => sql.prepare(`UPDATE records SET ${field} = ${value} WHERE request_id = 'r2'`).run()))
      expect(r.code).toBe(1)
      expect(r.out).toMatch(new RegExp(`FAIL record: record r2 \\(.*gateway\\.jsonl line 2\\): ${field} is .* in the case, but the line says`))
    })
  }

  it('ts (text and milliseconds together)', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE records SET ts = '2026-11-01T00:00:00.000Z', ts_ms = ${Date.parse('2026-11-01T00:00:00.000Z')} WHERE request_id = 'r3'`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL record: record r3 .*line 3\): ts is "2026-11-01T00:00:00.000Z" in the case, but the line says "2026-11-02T06:02:00.000Z"/)
  })
})

describe('verify catches removed and forged rows', () => {
  it('a deleted record: its line is accounted for by nothing', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`DELETE FROM records WHERE request_id = 'r5'`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL line: .*gateway\.jsonl line 8 \(bytes \d+\.\.\d+\): a line of the evidence that no record, duplicate or quarantined line accounts for/)
    expect(r.out).toMatch(/FAIL counts: .*the file says 5 records, its evidence holds 4/)
    // Said once: not again as each per-field count the missing record changes.
    expect(r.out).not.toMatch(/of its records have/)
  })

  it('a deleted record whose file counts were lowered to match', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare(`DELETE FROM records WHERE request_id = 'r5'`).run()
      sql.prepare(`UPDATE files SET records = records - 1, lines = lines - 1 WHERE kind = 'log'`).run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/gateway\.jsonl line 8 .*no record, duplicate or quarantined line accounts for/)
  })

  it('a lowered count of records that give no decode node (scope sums these instead of reading the records)', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE files SET no_decode_node = no_decode_node - 1 WHERE kind = 'log'`).run()))
    expect(r.code).toBe(1)
    // r5 gives no decode node: the file says 0 where its records hold 1.
    expect(r.out).toMatch(/FAIL counts: .*gateway\.jsonl.*the file says 0 of its records have no decode node, its records hold 1/)
  })

  it('a deleted quarantined line and a deleted duplicate', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare('DELETE FROM bad_lines').run()
      sql.prepare('DELETE FROM duplicate_lines').run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/gateway\.jsonl line 4 .*accounts for/)
    expect(r.out).toMatch(/gateway\.jsonl line 5 .*accounts for/)
  })

  it('a record turned into a quarantined line', async () => {
    const r = await verify(tampered((sql) => {
      const row = sql.prepare(`SELECT file_id, line_no, byte_offset, byte_len FROM records WHERE request_id = 'r5'`).get() as {file_id: number; line_no: number; byte_offset: number; byte_len: number}
      sql.prepare(`DELETE FROM records WHERE request_id = 'r5'`).run()
      sql.prepare(`INSERT INTO bad_lines (file_id, line_no, byte_offset, byte_len, reason, raw, raw_truncated) VALUES (?, ?, ?, ?, 'not valid JSON', x'', 1)`).run(row.file_id, row.line_no, row.byte_offset, row.byte_len)
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL bad_line: quarantined .*line 8/)
  })

  it('deleted cross-tenant sightings (scope would report none)', async () => {
    const path = tampered((sql) => sql.prepare(`DELETE FROM sightings WHERE class = 'cross_tenant'`).run())
    expect((await runJson<{cross_tenant_responses: number}>(['scope', '--db', path])).cross_tenant_responses).toBe(0)
    const r = await verify(path)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL sighting: record r2 .*line 2\): its cross_tenant sighting of "CANARY-aaaaaaaaaaaaaaaa1111" is missing from the case/)
  })

  it('deleted sightings together with the marker tokens they came from', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare(`DELETE FROM marker_tokens WHERE record_id IN (SELECT record_id FROM sightings WHERE class = 'cross_tenant')`).run()
      sql.prepare(`DELETE FROM sightings WHERE class = 'cross_tenant'`).run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL extract: record r2 .*its marker tokens in the case \(0\) differ from those in its response \(1\)/)
    expect(r.out).toMatch(/FAIL sighting: record r2 .*missing from the case/)
  })

  it('a sighting re-classed (cross_tenant made own)', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE sightings SET class = 'own' WHERE class = 'cross_tenant'`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL sighting: record r2 .*has class "own" in the case, but re-derived "cross_tenant"/)
  })

  it('a provenance match pointed at another tenant', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE provenance SET source_tenant = 'tenant-z'`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL finding: provenance of record r4: its source \d+ is not the session or tenant it names/)
  })
})

describe('verify catches a changed canary registry', () => {
  it('a canary reassigned to another tenant', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE canaries SET tenant_id = 'tenant-b', session_id = 'b1' WHERE marker = ?`).run(A)))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL registry: marker CANARY-aaaaaaaaaaaaaaaa1111: tenant_id is "tenant-b" in the case, but its registry file says "tenant-a"/)
  })

  it('a canary reassigned with the registry version put back', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare(`UPDATE canaries SET session_id = 'a9' WHERE marker = ?`).run(A)
      sql.prepare('UPDATE case_settings SET registry_version = registry_version - 1').run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL registry: marker CANARY-aaaaaaaaaaaaaaaa1111: session_id is "a9" in the case, but its registry file says "a1"/)
  })

  it('a canary removed', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`DELETE FROM canaries WHERE marker = ?`).run(B)))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL registry: marker CANARY-bbbbbbbbbbbbbbbb2222: registered to "tenant-b"\/"b1" by its registry file, but missing from the case/)
  })
})

describe('verify catches evidence files deleted with everything derived from them', () => {
  it('a log file deleted (its records, duplicates and sightings go by cascade), even with the noted head', async () => {
    const r = await verify(tampered((sql) => {
      sql.pragma('foreign_keys = ON')
      sql.prepare(`DELETE FROM files WHERE name = 'gateway.jsonl'`).run()
    }), '--expect-head', `${head.hash}:${head.count}`)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL audit: log file \S*gateway\.jsonl: audit entry 2 records its ingest \(sha256 [0-9a-f]{16}…\) and no audited drop removed it, but the case no longer holds it/)
  })

  it('the canary registry deleted (its markers and its file row, the version put back) and the case scanned again', async () => {
    const path = tampered((sql) => {
      sql.prepare('DELETE FROM canaries').run()
      sql.prepare(`DELETE FROM files WHERE kind = 'canaries'`).run()
      sql.prepare('UPDATE case_settings SET registry_version = 0').run()
    })
    await runJson(['scan', '--db', path])
    const r = await verify(path)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL audit: registry file \S*canaries\.csv: audit entry 1 records its ingest/)
    expect(r.out).toMatch(/FAIL registry: canary registry: holds 0 markers, but the audited registry ingests added 2: markers were removed outside crosstalk/)
  })
})

describe('verify catches a moved awareness time', () => {
  it('aware_at moved without an amendment', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE incident SET aware_at = '2026-11-03T08:00:00.000Z', aware_at_ms = ${Date.parse('2026-11-03T08:00:00.000Z')}`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL incident: incident aware_at: is 2026-11-03T08:00:00.000Z, but its opening and amendments give 2026-11-02T07:30:00.000Z: it was moved without an amendment/)
  })

  it('aware_at moved with a forged amendment row', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare(`INSERT INTO incident_amendments (field, old_value, new_value, reason, at) VALUES ('aware_at', '2026-11-02T07:30:00.000Z', '2026-11-03T08:00:00.000Z', 'forged', '2026-11-04T00:00:00.000Z')`).run()
      sql.prepare(`UPDATE incident SET aware_at = '2026-11-03T08:00:00.000Z', aware_at_ms = ${Date.parse('2026-11-03T08:00:00.000Z')}`).run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL unaudited: awareness amendment 2 .*no audit entry records it/)
  })

  it('the role changed without an amendment: the duty and its clock are not what was recorded', async () => {
    const r = await verify(tampered((sql) => sql.prepare(`UPDATE incident SET role = 'controller'`).run()))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL incident: incident role: is controller, but its opening and recorded changes give processor: it was changed without an amendment/)
  })

  it('the role changed with a forged amendment row', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare(`INSERT INTO incident_amendments (field, old_value, new_value, reason, at) VALUES ('role', 'processor', 'controller', 'forged', '2026-11-04T00:00:00.000Z')`).run()
      sql.prepare(`UPDATE incident SET role = 'controller'`).run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL unaudited: role change 1 .*no audit entry records it/)
  })

  it('the amendment deleted and aware_at put back to the opening time', async () => {
    const r = await verify(tampered((sql) => {
      sql.prepare('DELETE FROM incident_amendments').run()
      sql.prepare(`UPDATE incident SET aware_at = '2026-11-02T08:00:00.000Z', aware_at_ms = ${Date.parse('2026-11-02T08:00:00.000Z')}`).run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL incident: awareness amendments: the audit log records 1 amendment, the case holds 0/)
  })
})

describe('verify catches a cut or rewritten audit log', () => {
  const dropTriggers = (sql: Database.Database): void => void sql.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete')
  const restoreTriggers = (sql: Database.Database): void =>
    void sql.exec(`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
              CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;`)

  it('every audit row deleted', async () => {
    const r = await verify(tampered((sql) => {
      dropTriggers(sql)
      sql.prepare('DELETE FROM audit_log').run()
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL audit: audit log: its append-only triggers were dropped/)
    expect(r.out).toMatch(/FAIL unaudited: .*gateway\.jsonl: log file [0-9a-f]+… is in the case, but no audit entry records its ingest/)
    expect(r.out).toMatch(/FAIL unaudited: scan run 1 .*no audit entry records this scan/)
  })

  it('every audit row deleted and the triggers put back', async () => {
    const r = await verify(tampered((sql) => {
      dropTriggers(sql)
      sql.prepare('DELETE FROM audit_log').run()
      restoreTriggers(sql)
    }))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL unaudited: .*no audit entry records/)
  })

  it('the last row deleted: caught by the noted head, and by coverage (the amendment it recorded)', async () => {
    const path = tampered((sql) => {
      dropTriggers(sql)
      sql.prepare('DELETE FROM audit_log WHERE seq = (SELECT max(seq) FROM audit_log)').run()
    })
    const anchored = await verify(path, '--expect-head', `${head.hash}:${head.count}`)
    expect(anchored.code).toBe(1)
    expect(anchored.out).toMatch(new RegExp(`FAIL audit: audit log: holds ${head.count - 1} entries, fewer than the head you noted`))
    expect((await verify(path)).out).toMatch(/FAIL unaudited: awareness amendment 1 .*no audit entry records it/)
  })

  it('an entry rewritten and every hash after it recomputed: caught by the noted head', async () => {
    const path = tampered((sql) => {
      dropTriggers(sql)
      const rows = sql.prepare('SELECT * FROM audit_log ORDER BY seq').all() as Array<Record<string, unknown> & {seq: number; hash: string}>
      let prev = '0'.repeat(64)
      for (const row of rows) {
        const body: Record<string, unknown> = {...row, prev_hash: prev}
        delete (body as {hash?: string}).hash
        if (row.seq === 1) body.args = String(body.args).replace('canaries.csv', 'other.csv')
        const hash = createHash('sha256').update(canonicalJson(body)).digest('hex')
        sql.prepare('UPDATE audit_log SET args = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(body.args, prev, hash, row.seq)
        prev = hash
      }
      restoreTriggers(sql)
    })
    // Internally consistent: only the anchor can tell, and verify says so when none is given.
    const unanchored = await verify(path)
    expect(unanchored.code).toBe(0)
    expect(unanchored.out).toMatch(/Not checked: the audit chain was checked only against itself/)
    const anchored = await verify(path, '--expect-head', `${head.hash}:${head.count}`)
    expect(anchored.code).toBe(1)
    expect(anchored.out).toMatch(new RegExp(`FAIL audit: audit entry ${head.count}: its hash is [0-9a-f]{16}…, not the head you noted .*: the log was rewritten`))
  })
})

describe('verify --deep re-derives the findings', () => {
  it('a personal-data finding deleted', async () => {
    const path = tampered((sql) => sql.prepare('DELETE FROM pii_findings').run())
    expect((await verify(path)).code).toBe(0)
    const r = await verify(path, '--deep')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL finding: personal-data finding \(email\) in record r2: is found by detection run again, but missing from the case/)
  })

  it('a provenance overlap inflated', async () => {
    const r = await verify(tampered((sql) => sql.prepare('UPDATE provenance SET overlap_words = overlap_words + 50').run()), '--deep')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL finding: provenance of record r4 .*overlap_words is \d+ in the case, \d+ when detection is run again/)
  })

  it('a personal-data value removed from the extracts', async () => {
    const r = await verify(tampered((sql) => sql.prepare('DELETE FROM pii_values WHERE in_response = 1').run()), '--deep')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL extract: record r2 .*personal-data values in the case \(0\) differ from those in its texts \(1\)/)
  })
})
