import {labelsToGive} from '../scope/tenant-view.js'
import type {AuditEntry} from '../store/audit.js'
import type {CaseDb} from '../store/open-case.js'
import {listTenantLabels, type TenantLabelNumbers} from '../store/tenant-labels.js'
import {count} from '../util/plural.js'
import {Problems, shown} from './verify-problems.js'
import {summaryOf} from './verify-recorded.js'

// The opaque labels (tenant#N) a notice names other customers by are given as each scan
// finishes, stored once and never changed: each tenant's are numbered 1, 2, 3, ... in turn, a
// scan numbering the customers it met first after those given before, in the order of their
// first contact. No audit entry lists them; they are derived again instead. A label swapped or
// edited by hand would have a notice name the wrong customer.
// - Every label: numbered in turn, each given no earlier than the ones before it, and by a
//   scan the audit log records (given no earlier than the first).
// - The last scan's labels: derived again from the findings (which the last scan made, and
//   verify checks) and the labels given before it; they must be those stored.
// Labels of earlier scans were derived from findings the case no longer holds as they were:
// their numbering is checked, their order is not, and verify says so.

const GROUP = 'tenant-labels'

type Label = {tenant: string; other: string; label: number; given_at: string}

/** Checks the stored tenant labels; returns what it could not check (for not_checked). */
export function checkTenantLabels(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): string[] {
  const rows = listTenantLabels(db)
  if (rows.length === 0) return []
  const scans = entries.flatMap((e) => {
    const at = summaryOf(e).scanned_at
    return typeof at === 'string' ? [{seq: e.seq, at}] : []
  })
  checkNumbering(rows, scans[0]?.at ?? null, problems)
  const last = scans.at(-1)
  if (!last) return []
  const notes: string[] = []
  const earlier = rows.filter((r) => r.given_at < last.at)
  const given = rows.filter((r) => r.given_at >= last.at)
  // A drop since removes records, and with them the first contacts the labels were numbered by.
  const drop = entries.find((e) => e.seq > last.seq && e.command === 'drop')
  if (drop) {
    notes.push(`${count(rows.length, 'tenant label')} (the opaque tenant#N a notice names another customer by): checked to be numbered in turn, not derived again (audit entry ${drop.seq} dropped files after the last scan, whose findings they were derived from)`)
    return notes
  }
  let derived: Array<{tenant: string; other: string; label: number}>
  try {
    derived = labelsToGive(db, numbers(earlier))
  } catch (error) {
    notes.push(`tenant labels of the last scan not derived again: its findings could not be read (${(error as Error).message})`)
    return notes
  }
  compareDerived(given, derived, last.seq, problems)
  if (earlier.length > 0) {
    notes.push(`${count(earlier.length, 'tenant label')} given by scans before the last: checked to be numbered in turn, their order not derived again (the findings they were derived from are not the case's now)`)
  }
  return notes
}

function numbers(rows: readonly Label[]): TenantLabelNumbers {
  const out: TenantLabelNumbers = new Map()
  for (const r of rows) {
    let m = out.get(r.tenant)
    if (!m) out.set(r.tenant, (m = new Map()))
    m.set(r.other, r.label)
  }
  return out
}

/** Each tenant's labels are 1..n, each given no earlier than the one before, none before the first audited scan. */
function checkNumbering(rows: readonly Label[], firstScan: string | null, problems: Problems): void {
  const byTenant = new Map<string, Label[]>()
  for (const r of rows) byTenant.set(r.tenant, [...(byTenant.get(r.tenant) ?? []), r])
  for (const [tenant, labels] of byTenant) {
    labels.sort((a, b) => a.label - b.label)
    const where = `tenant labels of ${shown(tenant)}`
    const gap = labels.findIndex((l, i) => l.label !== i + 1)
    if (gap >= 0) {
      problems.add('recorded', where, `numbered ${labels.map((l) => `tenant#${l.label}`).join(', ')}: a scan gives them 1, 2, 3, ... in turn and none is ever changed or removed, so tenant#${gap + 1} was edited or removed outside crosstalk`, GROUP)
      continue
    }
    const back = labels.findIndex((l, i) => i > 0 && l.given_at < labels[i - 1]!.given_at)
    if (back > 0) {
      const [a, b] = [labels[back - 1]!, labels[back]!]
      problems.add('recorded', where, `tenant#${b.label} (${shown(b.other)}) was given at ${b.given_at}, before tenant#${a.label} (${shown(a.other)}) at ${a.given_at}: a scan numbers the customers it meets after those given before, so the labels were swapped or edited outside crosstalk`, GROUP)
      continue
    }
    const early = firstScan === null ? labels[0] : labels.find((l) => l.given_at < firstScan)
    if (early) {
      problems.add('unaudited', where, `tenant#${early.label} (${shown(early.other)}) was given at ${early.given_at}, ${firstScan === null ? 'but the audit log records no scan' : `before the first scan the audit log records (${firstScan})`}: no audited scan gave it`, GROUP)
    }
  }
}

/** The last scan's labels against those derived again; each difference named. */
function compareDerived(given: readonly Label[], derived: ReadonlyArray<{tenant: string; other: string; label: number}>, seq: number, problems: Problems): void {
  const key = (tenant: string, other: string): string => JSON.stringify([tenant, other])
  const stored = new Map(given.map((g) => [key(g.tenant, g.other), g]))
  const want = new Map(derived.map((d) => [key(d.tenant, d.other), d]))
  const because = `derived again from the findings of the last scan (audit entry ${seq}) and the labels given before it`
  for (const d of derived) {
    const g = stored.get(key(d.tenant, d.other))
    if (!g) problems.add('recorded', `tenant labels of ${shown(d.tenant)}`, `${shown(d.other)} has no label given by the last scan, but ${because}, it is tenant#${d.label}: removed outside crosstalk`, GROUP)
    else if (g.label !== d.label) problems.add('recorded', `tenant labels of ${shown(d.tenant)}`, `${shown(d.other)} is tenant#${g.label}, but ${because}, it is tenant#${d.label}: a notice would name the wrong customer`, GROUP)
  }
  for (const g of given) {
    if (!want.has(key(g.tenant, g.other))) problems.add('recorded', `tenant labels of ${shown(g.tenant)}`, `${shown(g.other)} is tenant#${g.label}, given by the last scan, but ${because}, no label is given to it: added or edited outside crosstalk`, GROUP)
  }
}
