import {IntegrityError} from '../../errors.js'
import {iterateFingerprintMeta, maxFingerprintedRecord} from '../../store/extracts.js'
import type {CaseDb} from '../../store/open-case.js'

/** Per-record facts by rank (time order, ties by record id), as dense integers. */
export interface RecordOrder {
  /** Record id by rank. */
  id: Uint32Array
  /** Session number (a session is numbered within its tenant). */
  session: Int32Array
  tenant: Int32Array
  /** Decode node number, -1 when unknown. */
  node: Int32Array
  /** Rank by record id, -1 for ids without fingerprints. */
  rankOfId: Int32Array
}

/**
 * Per-record facts in time order (rank r; ties by record id), and rank by record id, read
 * in one pass over the fingerprints table sorted by session: sessions are numbered as
 * they change (no JS map of hundreds of thousands of session strings, no temp table and
 * join), and the fingerprint counts that size the passes are summed on the way.
 * Typed arrays: about 24 bytes per record.
 */
export function loadRecordOrder(db: CaseDb): {records: number; maxId: number; rfps: number; pfps: number; order: RecordOrder} {
  const intern = (map: Map<string, number>, key: string): number => {
    let v = map.get(key)
    if (v === undefined) {
      v = map.size
      map.set(key, v)
    }
    return v
  }
  // Record ids are the records' rowids: the largest bounds the count (every record is
  // fingerprinted when it is ingested, so the bound is tight).
  const maxId = maxFingerprintedRecord(db)
  const tenants = new Map<string, number>()
  const nodes = new Map<string, number>()
  // Read order k (by session). The arrays are reused below as the time order is built, so
  // that the peak stays near 24 bytes per record (plus 12 while sorting). Ids index typed
  // arrays (rankOfId), so they are 32-bit: SQLite numbers rows from 1 in insert order.
  if (maxId >= 0x7fffffff) throw new IntegrityError(`fingerprints: record id ${maxId} is beyond what provenance indexes (2^31 - 1)`)
  const id = new Uint32Array(maxId)
  const ts = new Float64Array(maxId)
  const session = new Int32Array(maxId)
  const tenant = new Int32Array(maxId)
  const node = new Int32Array(maxId)
  let n = 0
  let rBytes = 0
  let pBytes = 0
  {
    const rows = iterateFingerprintMeta(db, maxId)
    // A session belongs to its tenant: the same session id under two tenants is two sessions.
    let sid = -1
    let lastTenant: string | undefined
    let lastSession: string | undefined
    for (const [rid, t, tn, ss, nd, rl, pl] of rows) {
      if (ss !== lastSession || tn !== lastTenant) {
        sid++
        lastSession = ss
        lastTenant = tn
      }
      id[n] = rid
      ts[n] = t
      tenant[n] = intern(tenants, tn)
      session[n] = sid
      node[n] = nd === null || nd === '' ? -1 : intern(nodes, nd)
      rBytes += rl
      pBytes += pl
      n++
    }
  }
  // Time order, ties by record id: byTime[rank] = read position k. Packed keys (time, id)
  // sort natively (in place of the times) when (time span) x (ids) fits in 53 bits;
  // otherwise a comparator sort. rankOfId first serves as k by id.
  const byTime = new Uint32Array(n)
  const rankOfId = new Int32Array(maxId + 1)
  {
    let min = Infinity
    let max = -Infinity
    for (let k = 0; k < n; k++) {
      if (ts[k]! < min) min = ts[k]!
      if (ts[k]! > max) max = ts[k]!
    }
    const width = maxId + 1
    if (n > 0 && (max - min + 1) * width < 2 ** 53) {
      const packed = ts.subarray(0, n)
      for (let k = 0; k < n; k++) {
        packed[k] = (packed[k]! - min) * width + id[k]!
        rankOfId[id[k]!] = k
      }
      packed.sort()
      for (let r = 0; r < n; r++) byTime[r] = rankOfId[packed[r]! % width]!
    } else {
      for (let k = 0; k < n; k++) byTime[k] = k
      byTime.sort((x, y) => ts[x]! - ts[y]! || id[x]! - id[y]!)
    }
  }
  // Permute into time order, each array through one scratch array.
  rankOfId.fill(-1)
  const idByRank = new Uint32Array(n)
  for (let r = 0; r < n; r++) {
    idByRank[r] = id[byTime[r]!]!
    rankOfId[idByRank[r]!] = r
  }
  const scratch = new Int32Array(ts.buffer, 0, n) // the times are no longer needed
  for (const arr of [session, tenant, node]) {
    for (let r = 0; r < n; r++) scratch[r] = arr[byTime[r]!]!
    arr.set(scratch)
  }
  return {
    records: n,
    maxId,
    rfps: Math.floor(rBytes / 8),
    pfps: Math.floor(pBytes / 8),
    order: {id: idByRank, session: session.subarray(0, n), tenant: tenant.subarray(0, n), node: node.subarray(0, n), rankOfId},
  }
}
