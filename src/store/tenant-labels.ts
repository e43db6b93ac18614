import type {CaseDb} from './open-case.js'

// The other customers' opaque labels as given (migration 022): tenant -> other -> N of tenant#N.

export type TenantLabelNumbers = Map<string, Map<string, number>>

export function storedTenantLabels(db: CaseDb): TenantLabelNumbers {
  const out: TenantLabelNumbers = new Map()
  for (const r of db.prepare('SELECT tenant, other, label FROM tenant_labels').all() as Array<{tenant: string; other: string; label: number}>) {
    let m = out.get(r.tenant)
    if (!m) out.set(r.tenant, (m = new Map()))
    m.set(r.other, r.label)
  }
  return out
}

/** Every label given, with when: what verify derives again and checks (case/verify-tenant-labels.ts). */
export function listTenantLabels(db: CaseDb): Array<{tenant: string; other: string; label: number; given_at: string}> {
  return db.prepare('SELECT tenant, other, label, given_at FROM tenant_labels ORDER BY tenant, label').all() as Array<{tenant: string; other: string; label: number; given_at: string}>
}

/**
 * When each tenant's documents first had labels stored (its earliest label's given_at): a notice to
 * it recorded before then (a case from before migration 022, or one sent before any scan gave
 * labels) named other customers by labels this case did not keep.
 */
export function tenantLabelsFirstGiven(db: CaseDb): Map<string, string> {
  const rows = db.prepare('SELECT tenant, min(given_at) AS first FROM tenant_labels GROUP BY tenant').all() as Array<{tenant: string; first: string}>
  return new Map(rows.map((r) => [r.tenant, r.first]))
}

/** Stores labels not yet given; one already given is never changed (the caller numbers new ones after those stored). */
export function giveTenantLabels(db: CaseDb, labels: ReadonlyArray<{tenant: string; other: string; label: number}>, at: string): number {
  if (labels.length === 0) return 0
  const insert = db.prepare('INSERT OR IGNORE INTO tenant_labels (tenant, other, label, given_at) VALUES (?, ?, ?, ?)')
  let n = 0
  db.transaction(() => {
    for (const l of labels) n += insert.run(l.tenant, l.other, l.label, at).changes
  })()
  return n
}
