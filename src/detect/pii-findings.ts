import {promptsWithValue, responsePiiValues, type PiiValueRow} from '../store/extracts.js'
import {piiFindingWriter} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'

// "PII you never sent": a value in a response that its session had not put in any of its
// own prompts by then (this request's or an earlier one's). Where another session sent the same value in an earlier prompt, that
// session is the likely owner (same decode node first, then the most recent).

export function computePiiFindings(db: CaseDb): {findings: number; attributed: number} {
  // Only values found in responses can be findings: read those, then, per distinct value,
  // the prompts that carry it (by the value index). Memory follows the findings, not the
  // number of values in all prompts.
  const responses = responsePiiValues(db)
  const promptsOf = promptsWithValue(db)
  const sessionOf = (r: PiiValueRow): string => `${r.tenant_id}\u0000${r.session_id}`
  const cache = new Map<string, PiiValueRow[]>()
  const prompts = (value: string): PiiValueRow[] => {
    let list = cache.get(value)
    if (!list) cache.set(value, (list = promptsOf(value)))
    return list
  }
  const writer = piiFindingWriter(db)
  let findings = 0
  let attributed = 0
  inTransaction(db, () => {
    writer.clear()
    for (const r of responses) {
      const own = sessionOf(r)
      const sent = prompts(r.value_sha256)
      const earlier = (p: PiiValueRow): boolean => p.ts_ms < r.ts_ms || (p.ts_ms === r.ts_ms && p.record_id < r.record_id)
      // The session sent it itself, in this request or an earlier one: not a finding. A later
      // prompt of the session does not count: a user who asks "whose number is this?" about
      // a value it was served would otherwise erase the evidence of receiving it.
      if (sent.some((p) => sessionOf(p) === own && (p.record_id === r.record_id || earlier(p)))) continue
      let source: PiiValueRow | null = null
      for (const p of sent) {
        if (!earlier(p)) break
        const sameNode = r.decode_node !== null && p.decode_node === r.decode_node
        const bestSameNode = source !== null && r.decode_node !== null && source.decode_node === r.decode_node
        // Later entries are more recent; a same-node source is only displaced by another same-node one.
        if (source === null || sameNode || !bestSameNode) source = p
      }
      writer.insert({
        recordId: r.record_id, kind: r.kind, valueSha256: r.value_sha256,
        sourceRecordId: source?.record_id ?? null, sourceSession: source?.session_id ?? null, sourceTenant: source?.tenant_id ?? null,
      })
      findings++
      if (source) attributed++
    }
  })
  return {findings, attributed}
}
