import {scanCase} from '../../src/detect/scan-case.js'
import type {CaseDb} from '../../src/store/open-case.js'
import {makeCase} from './case-builder.js'

export interface RecordSeed {
  request_id: string
  tenant_id?: string
  session_id?: string
  endpoint?: string
  prompt_tokens?: number | null
  stream?: boolean
  request_text?: string | null
  response_text?: string | null
}

/** A case with one log file holding the given records (through the real ingest), scanned; canaries as given. */
export async function caseWithRecords(
  seeds: readonly RecordSeed[],
  canaries: ReadonlyArray<[marker: string, tenant: string, session: string]> = [],
): Promise<{db: CaseDb; path: string}> {
  const c = makeCase()
  if (canaries.length > 0) await c.addCanaries(canaries)
  await c.addFile(
    seeds.map((seed, i) => ({
      request_id: seed.request_id,
      tenant_id: seed.tenant_id ?? 'tenant-a',
      session_id: seed.session_id ?? `s${i}`,
      ts_ms: Date.UTC(2026, 10, 2, 6, 0, i),
      endpoint: seed.endpoint ?? '/v1/chat/completions',
      prompt_tokens: seed.prompt_tokens ?? null,
      stream: seed.stream,
      request_text: seed.request_text === undefined ? 'prompt' : seed.request_text,
      response_text: seed.response_text ?? 'answer',
    })),
  )
  scanCase(c.db, {now: new Date('2026-11-02T07:00:00.000Z')})
  return {db: c.db, path: c.path}
}
