import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {randomHex, seededRng} from '../../src/util/rng.js'

// A small incident that is wide: many tenants, each leaking to many others, in the native
// log format. `crosstalk generate` names at most 30 tenants (its vocabulary); the console
// views must read at 200, so tests that need that many write them here, a few thousand
// records in all.

export interface WideIncident {
  logs: string
  canaries: string
  tenants: string[]
  markers: string[]
  /** cross-tenant and cross-session responses written */
  leaks: number
}

export const WIDE_POOL_TOKENS = 681_280

export function writeWideIncident(dir: string, options: {tenants?: number; sessionsPerTenant?: number; leaks?: number; seed?: number} = {}): WideIncident {
  const rng = seededRng(options.seed ?? 17)
  const tenantCount = options.tenants ?? 200
  const perTenant = options.sessionsPerTenant ?? 2
  const leakCount = options.leaks ?? 1200
  // Tenant 0 has a name longer than any line may be, as a hostile or careless log could.
  const tenants = Array.from({length: tenantCount}, (_, i) => (i === 0 ? `tn-${'very-long-organisation-name-'.repeat(8)}end` : `tn-customer-organisation-${String(i).padStart(3, '0')}`))
  const sessions = tenants.flatMap((tenant, t) => Array.from({length: perTenant}, (_, s) => ({tenant, session: `sess-${t}-${s}`, marker: `CANARY-${randomHex(rng, 20)}`})))
  const logs = join(dir, 'logs')
  mkdirSync(logs, {recursive: true})
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, ['marker,tenant_id,session_id,issued_at', ...sessions.map((s) => `${s.marker},${s.tenant},${s.session},2026-10-30T00:00:00Z`)].join('\n') + '\n')

  const start = Date.UTC(2026, 9, 31, 0, 0, 0)
  const lines: string[][] = [[], []]
  let n = 0
  const line = (at: number, s: (typeof sessions)[number], prompt: string, answer: string, promptTokens: number, node: string): void => {
    n++
    lines[n % 2]!.push(
      JSON.stringify({
        ts: new Date(at).toISOString(),
        request_id: `req-${String(n).padStart(6, '0')}`,
        tenant_id: s.tenant,
        session_id: s.session,
        status: 200,
        prefill_node: 'prefill-1',
        decode_node: node,
        prompt_tokens: promptTokens,
        request: {model: 'm', messages: [{role: 'user', content: prompt}]},
        response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}}], usage: {prompt_tokens: promptTokens, completion_tokens: 12}},
      }),
    )
  }
  // Every session once, clean: its own marker in the prompt, a plain answer.
  for (const s of sessions) line(start + Math.floor(rng() * 48 * 3600_000), s, `Session note ${s.marker}. Please summarise my order history.`, 'Here is a short summary of your order history.', 1200, `decode-0${1 + Math.floor(rng() * 8)}`)
  // Leaks: an over-pool prompt answered from someone else's stale pages, on three nodes.
  for (let k = 0; k < leakCount; k++) {
    // one leak in ten goes from the long-named tenant to tenant 1: the biggest flow
    const recipient = k % 10 === 0 ? sessions[perTenant]! : sessions[Math.floor(rng() * sessions.length)]!
    let source = k % 10 === 0 ? sessions[0]! : sessions[Math.floor(rng() * sessions.length)]!
    if (source.session === recipient.session) source = sessions[(sessions.indexOf(source) + 1) % sessions.length]!
    const at = start + 6 * 3600_000 + Math.floor(rng() * 36 * 3600_000)
    line(at, recipient, `Long document for analysis ${recipient.marker} ${'lorem '.repeat(20)}`, `As discussed in ${source.marker}, the invoice total is due.`, WIDE_POOL_TOKENS + 1000, `decode-0${1 + (k % 3)}`)
  }
  writeFileSync(join(logs, 'gw-a.jsonl'), lines[0]!.join('\n') + '\n')
  writeFileSync(join(logs, 'gw-b.jsonl'), lines[1]!.join('\n') + '\n')
  return {logs, canaries, tenants, markers: sessions.map((s) => s.marker), leaks: leakCount}
}
