import {ScopeCase} from '../helpers/scope-case.js'

// A hand-built incident whose every scope figure is worked out by hand below.
//   tenants acme, beta, gamma; sessions sess-<tenant>-<n>; decode nodes d1, d2; pool 681280.
//   id  tenant session       node ts (UTC)                 status prompt   sightings / provenance
//    1  acme   sess-acme-1   d1   05:00:00.000             200    1000
//    2  beta   sess-beta-1   d1   05:10:00.000             200    1000
//    3  gamma  sess-gamma-1  d1   06:00:00.123             200    700000   x_tenant acme-1 (twice), x_tenant beta-1, pii email
//   12  gamma  sess-gamma-1  d1   06:10:00.000             200    700001   x_tenant acme-2
//    4  acme   sess-acme-2   d1   06:30:00.456             200    690000   x_session acme-1
//    5  beta   sess-beta-2   d2   07:15:30.789             200    681280   x_tenant gamma-1, own; error event in the stream
//    6  beta   sess-beta-1   d2   07:20:00.000             200    681279   provenance from acme-2 (record 4), pii iban
//    7  acme   sess-acme-1   d2   08:00:00.000             413    900000
//    8  gamma  sess-gamma-1  d1   04:00:00.000             200    1000     orphan
//    9  beta   sess-beta-2   d1   06:45:00.000             200    700000   x_tenant acme-1, but its file is still 'loading'
//   10  acme   sess-acme-1   d2   07:00:00.000             200    100      echo of beta-1; pii phone (own data, not counted)
//   11  gamma  sess-gamma-1  d2   07:10:00.000             200    800000
export const POOL = 681280

export function buildKnownCase(): ScopeCase {
  const c = new ScopeCase()
  const complete = c.addFile('complete')
  const loading = c.addFile('loading')
  const day = '2026-11-02T'
  const rec = (id: number, tenant: string, n: number, node: string, time: string, status: number, prompt: number, extra: {file_id?: number; is_error?: 0 | 1} = {}) =>
    c.addRecord({id, tenant_id: tenant, session_id: `sess-${tenant}-${n}`, decode_node: node, ts: `${day}${time}Z`, status, prompt_tokens: prompt, file_id: extra.file_id ?? complete, is_error: extra.is_error})
  rec(1, 'acme', 1, 'd1', '05:00:00.000', 200, 1000)
  rec(2, 'beta', 1, 'd1', '05:10:00.000', 200, 1000)
  rec(3, 'gamma', 1, 'd1', '06:00:00.123', 200, 700000)
  rec(12, 'gamma', 1, 'd1', '06:10:00.000', 200, 700001)
  rec(4, 'acme', 2, 'd1', '06:30:00.456', 200, 690000)
  rec(5, 'beta', 2, 'd2', '07:15:30.789', 200, 681280, {is_error: 1})
  rec(6, 'beta', 1, 'd2', '07:20:00.000', 200, 681279)
  rec(7, 'acme', 1, 'd2', '08:00:00.000', 413, 900000)
  rec(8, 'gamma', 1, 'd1', '04:00:00.000', 200, 1000)
  rec(9, 'beta', 2, 'd1', '06:45:00.000', 200, 700000, {file_id: loading})
  rec(10, 'acme', 1, 'd2', '07:00:00.000', 200, 100)
  rec(11, 'gamma', 1, 'd2', '07:10:00.000', 200, 800000)

  const from = (tenant: string, n: number) => ({source_tenant: tenant, source_session: `sess-${tenant}-${n}`})
  c.addSighting({record_id: 3, class: 'cross_tenant', ...from('acme', 1)})
  c.addSighting({record_id: 3, class: 'cross_tenant', ...from('acme', 1), partial: 1, marker: 'CANARY-aaaaaaaaaaaaaaaa'})
  c.addSighting({record_id: 3, class: 'cross_tenant', ...from('beta', 1)})
  c.addSighting({record_id: 12, class: 'cross_tenant', ...from('acme', 2)})
  c.addSighting({record_id: 4, class: 'cross_session', ...from('acme', 1)})
  c.addSighting({record_id: 5, class: 'cross_tenant', ...from('gamma', 1)})
  c.addSighting({record_id: 5, class: 'own', ...from('beta', 2)})
  c.addSighting({record_id: 8, class: 'orphan', marker: 'CANARY-0123456789'})
  c.addSighting({record_id: 9, class: 'cross_tenant', ...from('acme', 1)})
  c.addSighting({record_id: 10, class: 'echo', ...from('beta', 1)})
  c.addProvenance({record_id: 6, source_record_id: 4, ...from('acme', 2)})
  c.addPii({record_id: 3, kind: 'email'})
  c.addPii({record_id: 6, kind: 'iban'})
  c.addPii({record_id: 10, kind: 'phone'})
  return c
}
