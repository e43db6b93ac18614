import {IntegrityError} from '../../errors.js'
import {iterateFingerprintsByTime, iterateFingerprintSessions, maxFingerprintedRecord} from '../../store/extracts.js'
import type {CaseDb} from '../../store/open-case.js'
import {withSortCache} from '../../store/session.js'

/**
 * Per-record facts by rank (time order, ties by record id), as dense integers. Tenants and
 * decode nodes take 8 bits while they fit (a generated incident has 30 tenants and 8 nodes),
 * then 16 (a case has hundreds of tenants and a few dozen nodes), then 32: at 5M records each
 * byte a record is 5 MB held through provenance's passes, where a 5M scan peaks.
 */
export interface RecordOrder {
  /** Record id by rank. */
  id: Uint32Array
  /** Session number (a session is numbered within its tenant). */
  session: Int32Array
  tenant: TenantNumbers
  /** Decode node number, -1 when unknown. */
  node: NodeNumbers
}

export type TenantNumbers = Uint8Array | Uint16Array | Int32Array
export type NodeNumbers = Int8Array | Int16Array | Int32Array

/**
 * A typed array over shared memory: the arrays provenance's passes read are handed to its
 * helper thread (helper.ts) as they are, where a plain array would be copied (60 MB at 5M
 * records).
 */
function shared<T>(Kind: {new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number}, length: number): T {
  return new Kind(new SharedArrayBuffer(length * Kind.BYTES_PER_ELEMENT))
}

/** Rank by record id (-1 for ids without fingerprints): the inverse of `id`, rebuilt from it when needed again. */
export function rankById(id: Uint32Array, maxId: number, into?: Int32Array): Int32Array {
  const rankOfId = into ?? shared(Int32Array, maxId + 1)
  rankOfId.fill(-1)
  for (let r = 0; r < id.length; r++) rankOfId[id[r]!] = r
  return rankOfId
}

/** Record id by rank: the inverse of rank by id (`n` ranks), rebuilt from it. */
export function idByRank(rankOfId: Int32Array, n: number): Uint32Array {
  const id = new Uint32Array(n)
  for (let x = 0; x < rankOfId.length; x++) {
    const r = rankOfId[x]!
    if (r >= 0) id[r] = x
  }
  return id
}

/**
 * Per-record facts in time order (rank r; ties by record id), and rank by record id, in two
 * ordered reads (SQLite spills a large sort to temporary files, so its memory does not grow
 * with the case): the records grouped by session (as an index holds them), to number sessions
 * as they change (no JS map of hundreds of thousands of session strings), then the
 * fingerprints table in time order, which gives the ranks as rows arrive (no times held, no
 * sort in JS).
 * The fingerprint counts that size the passes are summed on the way. Typed arrays: 16 bytes
 * per record (12 by rank, 4 by id), the session numbers by id becoming the ranks by id.
 */
export interface LoadedOrder {
  records: number
  maxId: number
  rfps: number
  pfps: number
  order: RecordOrder
  rankOfId: Int32Array
}

export function loadRecordOrder(db: CaseDb): LoadedOrder {
  return withSortCache(db, () => readRecordOrder(db))
}

function readRecordOrder(db: CaseDb): LoadedOrder {
  // Record ids are the records' rowids: the largest bounds the count (every record is
  // fingerprinted when it is ingested, so the bound is tight). Ids index typed arrays
  // (rankOfId), so they are 32-bit: SQLite numbers rows from 1 in insert order.
  const maxId = maxFingerprintedRecord(db)
  if (maxId >= 0x7fffffff) throw new IntegrityError(`fingerprints: record id ${maxId} is beyond what provenance indexes (2^31 - 1)`)
  // Session number by record id. A session belongs to its tenant: the same session id under
  // two tenants is two sessions.
  const sessionById = shared(Int32Array, maxId + 1).fill(-1)
  {
    let sid = -1
    let lastTenant: string | undefined
    let lastSession: string | undefined
    for (const [rid, tn, ss] of iterateFingerprintSessions(db, maxId)) {
      if (ss !== lastSession || tn !== lastTenant) {
        sid++
        lastSession = ss
        lastTenant = tn
      }
      sessionById[rid] = sid
    }
  }
  const intern = (map: Map<string, number>, key: string): number => {
    let v = map.get(key)
    if (v === undefined) {
      v = map.size
      map.set(key, v)
    }
    return v
  }
  const tenants = new Map<string, number>()
  const nodes = new Map<string, number>()
  const id = shared(Uint32Array, maxId)
  const session = shared(Int32Array, maxId)
  let tenant: TenantNumbers = shared(Uint8Array, maxId)
  let node: NodeNumbers = shared(Int8Array, maxId)
  // The next width up, with the values so far (a number never changes when its array widens).
  const widen = <W extends TenantNumbers | NodeNumbers>(narrow: TenantNumbers | NodeNumbers, Kind: {new (buffer: SharedArrayBuffer): W; readonly BYTES_PER_ELEMENT: number}): W => {
    const wide = shared(Kind, narrow.length)
    wide.set(narrow)
    return wide
  }
  let n = 0
  let rBytes = 0
  let pBytes = 0
  for (const [rid, tn, nd, rl, pl] of iterateFingerprintsByTime(db, maxId)) {
    // A record only the second read saw (changed in between) is left to the next scan.
    if (sessionById[rid] === -1) continue
    id[n] = rid
    session[n] = sessionById[rid]!
    const t = intern(tenants, tn)
    if (t > 0xff && tenant instanceof Uint8Array) tenant = widen(tenant, Uint16Array)
    if (t > 0xffff && tenant instanceof Uint16Array) tenant = widen(tenant, Int32Array)
    tenant[n] = t
    const d = nd === null || nd === '' ? -1 : intern(nodes, nd)
    if (d > 0x7f && node instanceof Int8Array) node = widen(node, Int16Array)
    if (d > 0x7fff && node instanceof Int16Array) node = widen(node, Int32Array)
    node[n] = d
    rBytes += rl
    pBytes += pl
    n++
  }
  return {
    records: n,
    maxId,
    rfps: Math.floor(rBytes / 8),
    pfps: Math.floor(pBytes / 8),
    order: {id: id.subarray(0, n), session: session.subarray(0, n), tenant: tenant.subarray(0, n), node: node.subarray(0, n)},
    // In the session numbers' array: they are not needed past this point.
    rankOfId: rankById(id.subarray(0, n), maxId, sessionById),
  }
}
