import type {CaseDb} from '../store/open-case.js'
import {findPii, hashPii} from './pii.js'
import {piiRefKey} from './pii-ref.js'

// "PII you never sent": a value in a response that its session never put in any of its
// own prompts. Where another session sent the same value in an earlier prompt, that
// session is the likely owner (same decode node first, then the most recent).

export function storePiiValues(db: CaseDb): (recordId: number, prompt: string | null, response: string | null) => void {
  const insert = db.prepare('INSERT OR IGNORE INTO pii_values (record_id, part, kind, value_sha256) VALUES (?, ?, ?, ?)')
  return (id, prompt, response) => {
    for (const [text, part] of [[prompt, 0], [response, 1]] as const) {
      if (!text) continue
      for (const v of findPii(text)) insert.run(id, part, v.kind, hashPii(v.kind, v.value))
    }
  }
}

interface ValueRow {
  record_id: number
  part: number
  kind: string
  value_sha256: string
  ts_ms: number
  tenant_id: string
  session_id: string
  decode_node: string | null
}

export function computePiiFindings(db: CaseDb): {findings: number; attributed: number} {
  // Only values found in responses can be findings: read those, then, per distinct value,
  // the prompts that carry it (by the value index). Memory follows the findings, not the
  // number of values in all prompts.
  const responses = db
    .prepare(
      `SELECT v.record_id, v.part, v.kind, v.value_sha256, r.ts_ms, r.tenant_id, r.session_id, r.decode_node
       FROM pii_values v JOIN records r ON r.id = v.record_id JOIN files f ON f.id = r.file_id
       WHERE v.part = 1 AND f.state = 'complete' ORDER BY r.ts_ms, r.id`,
    )
    .all() as ValueRow[]
  const promptsOf = db.prepare(
    `SELECT v.record_id, v.part, v.kind, v.value_sha256, r.ts_ms, r.tenant_id, r.session_id, r.decode_node
     FROM pii_values v JOIN records r ON r.id = v.record_id JOIN files f ON f.id = r.file_id
     WHERE v.value_sha256 = ? AND v.part = 0 AND f.state = 'complete' ORDER BY r.ts_ms, r.id`,
  )
  const sessionOf = (r: ValueRow): string => `${r.tenant_id}\u0000${r.session_id}`
  const cache = new Map<string, ValueRow[]>()
  const prompts = (value: string): ValueRow[] => {
    let list = cache.get(value)
    if (!list) cache.set(value, (list = promptsOf.all(value) as ValueRow[]))
    return list
  }
  const insert = db.prepare(
    'INSERT INTO pii_findings (record_id, kind, value_sha256, source_record_id, source_session, source_tenant) VALUES (?, ?, ?, ?, ?, ?)',
  )
  let findings = 0
  let attributed = 0
  // The key that `pii` prints value references under (src/detect/pii-ref.ts): made here, by
  // the scan that the audit log records, rather than by a later read-only listing.
  piiRefKey(db)
  db.transaction(() => {
    db.prepare('DELETE FROM pii_findings').run()
    for (const r of responses) {
      const own = sessionOf(r)
      const sent = prompts(r.value_sha256)
      // The session sent it itself (at any time): not a finding.
      if (sent.some((p) => sessionOf(p) === own)) continue
      let source: ValueRow | null = null
      for (const p of sent) {
        const earlier = p.ts_ms < r.ts_ms || (p.ts_ms === r.ts_ms && p.record_id < r.record_id)
        if (!earlier) break
        const sameNode = r.decode_node !== null && p.decode_node === r.decode_node
        const bestSameNode = source !== null && r.decode_node !== null && source.decode_node === r.decode_node
        // Later entries are more recent; a same-node source is only displaced by another same-node one.
        if (source === null || sameNode || !bestSameNode) source = p
      }
      insert.run(r.record_id, r.kind, r.value_sha256, source?.record_id ?? null, source?.session_id ?? null, source?.tenant_id ?? null)
      findings++
      if (source) attributed++
    }
  })()
  return {findings, attributed}
}
