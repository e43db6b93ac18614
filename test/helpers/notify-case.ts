import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from './case-builder.js'

// A small case with contamination and hostile text, built the way users build theirs (native
// logs and a registry through ingest, then scan), for the report tests: 8 responses, four
// registered markers, one tenant id and one node name that try Markdown, HTML and terminal
// injection, and a leaked e-mail address and IBAN in every leaking response.

export const HOSTILE_TENANT = 'evil_[x](javascript:alert(1))<b>\u001b[2J'
export const HOSTILE_NODE = 'node-2<img src=x onerror=alert(1)>\u001b]8;;http://x\u0007'
export const MARKERS = {
  acme1: 'CANARY-a1a1a1a1a1a1a1a1a1a1',
  acme2: 'CANARY-a2a2a2a2a2a2a2a2a2a2',
  globex1: 'CANARY-b1b1b1b1b1b1b1b1b1b1',
  evil1: 'CANARY-c1c1c1c1c1c1c1c1c1c1',
}
export const LEAKED_EMAIL = 'alice.secret@example.com'
export const LEAKED_IBAN = 'DE89370400440532013000'

export interface NotifyCase {
  db: string
  /** SHA-256 of the one log file, as the evidence annex lists it */
  logSha256: string
}

export async function buildNotifyCase(): Promise<NotifyCase> {
  const c = makeCase()
  await c.addCanaries([
    [MARKERS.acme1, 'acme', 'acme-s1'],
    [MARKERS.acme2, 'acme', 'acme-s2'],
    [MARKERS.globex1, 'globex', 'globex-s1'],
    [MARKERS.evil1, HOSTILE_TENANT, 'evil-s9'],
  ])
  const leaked = (marker: string): string => `Sure! ${marker} Contact ${LEAKED_EMAIL}, IBAN ${LEAKED_IBAN}. # Heading <script>alert(1)</script> \u001b[31mred`
  const rows: Array<[string, string, string, string, string]> = [
    // ts, tenant, session, decode node, response text
    ['2026-10-22T10:05:00.000Z', 'acme', 'acme-s1', 'node-1', `own ${MARKERS.acme1}`],
    ['2026-10-22T10:15:00.000Z', 'globex', 'globex-s1', HOSTILE_NODE, leaked(MARKERS.acme1)],
    ['2026-10-22T11:20:00.000Z', HOSTILE_TENANT, 'evil-s1', 'node-1', leaked(MARKERS.acme2)],
    ['2026-10-22T11:40:00.000Z', 'acme', 'acme-s3', 'node-1', leaked(MARKERS.globex1)],
    ['2026-10-22T13:10:00.000Z', 'acme', 'acme-s4', 'node-1', leaked(MARKERS.acme2)],
    ['2026-10-22T13:30:00.000Z', 'globex', 'globex-s2', 'node-1', leaked(MARKERS.evil1)],
    ['2026-10-22T13:45:00.000Z', 'globex', 'globex-s2', 'node-1', 'clean response'],
    ['2026-10-22T14:00:00.000Z', 'acme', 'acme-s1', 'node-1', 'orphan CANARY-dddddddd'],
  ]
  const log = await c.addFile(
    rows.map(([ts, tenant, session, node, text], i) => ({
      request_id: `req-${i + 1}`, ts_ms: Date.parse(ts), tenant_id: tenant, session_id: session, decode_node: node, prompt_tokens: 100, request_text: 'prompt', response_text: text,
    })),
  )
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  c.close()
  return {db: c.path, logSha256: createHash('sha256').update(readFileSync(log)).digest('hex')}
}
