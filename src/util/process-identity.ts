import {readdirSync, readFileSync, readlinkSync} from 'node:fs'
import {hostname} from 'node:os'
import {processEnded} from './process-alive.js'

// Who holds a case's ingest claim, said so that another process can judge whether it still runs.
// A bare pid means nothing outside its PID namespace: an ingest killed in a container left pid 2,
// which on the host is a kernel thread that never ends, and the case stayed claimed for ever.
// With the host, the boot, the PID namespace and the process's start time (Linux's /proc), a
// claim is judged gone when the machine rebooted, the namespace holds no process any more, or
// the pid now names another process; what cannot be judged (another host, a namespace that still
// runs something) stays held, and `crosstalk ingest release` breaks it, recorded in the audit log.

export interface ProcessIdentity {
  pid: number
  host: string
  /** /proc/sys/kernel/random/boot_id; null where there is none */
  boot_id: string | null
  /** the PID namespace, as /proc/self/ns/pid links it ("pid:[4026531836]"); null where there is none */
  pid_ns: string | null
  /** the process's start time in clock ticks since boot (/proc/PID/stat, field 22); null where unknown */
  start: string | null
}

function readOrNull(read: () => string): string | null {
  try {
    return read().trim() || null
  } catch {
    return null
  }
}

function startOf(pid: number | 'self'): string | null {
  return readOrNull(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // "pid (comm) S ppid ...": comm may hold spaces and parentheses; field 22 is the 20th after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? ''
  })
}

export function currentProcessIdentity(): ProcessIdentity {
  return {
    pid: process.pid,
    host: hostname(),
    boot_id: readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'latin1')),
    pid_ns: readOrNull(() => readlinkSync('/proc/self/ns/pid')),
    start: startOf('self'),
  }
}

/** Whether any process this one can see lies in the PID namespace `ns`; null where some could not be looked at. */
function namespaceHasProcesses(ns: string): boolean | null {
  let unknown = false
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return null
  }
  for (const entry of entries) {
    // Pid 1 of this /proc is the init of this process's own namespace (not the claim's, which differs): some
    // sandboxes let nobody read its links.
    if (!/^\d+$/.test(entry) || entry === '1') continue
    try {
      if (readlinkSync(`/proc/${entry}/ns/pid`) === ns) return true
    } catch (error) {
      // Gone since the listing: no matter. Not ours to look at: it may be in that namespace.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unknown = true
    }
  }
  return unknown ? null : false
}

/**
 * Whether the process that made a claim still runs: 'gone', 'alive', or 'unknown' where this
 * process cannot tell (another host; a PID namespace that still holds processes).
 */
export function claimantState(claim: ProcessIdentity, me: ProcessIdentity = currentProcessIdentity()): 'alive' | 'gone' | 'unknown' {
  if (claim.host !== me.host) return 'unknown'
  if (claim.boot_id !== null && me.boot_id !== null && claim.boot_id !== me.boot_id) return 'gone'
  if (claim.pid_ns !== null && me.pid_ns !== null && claim.pid_ns !== me.pid_ns) {
    return namespaceHasProcesses(claim.pid_ns) === false ? 'gone' : 'unknown'
  }
  if (processEnded(claim.pid)) return 'gone'
  // The pid names another process now (reused since the claimant ended).
  if (claim.start !== null && startOf(claim.pid) !== null && startOf(claim.pid) !== claim.start) return 'gone'
  return 'alive'
}

/** A case's ingest claim as stored: the pid, and who made it (null: a claim made before schema 16). */
export interface StoredClaim {
  pid: number
  identity: ProcessIdentity | null
}

/** Whether the claim is this process's own (its pid, in its namespace, on its host and boot). */
export function ownClaim(claim: StoredClaim, me: ProcessIdentity = currentProcessIdentity()): boolean {
  if (claim.pid !== me.pid) return false
  const c = claim.identity
  return c === null || (c.host === me.host && c.boot_id === me.boot_id && c.pid_ns === me.pid_ns)
}

/**
 * Whether another process's claim still holds the case: 'alive' or 'unknown' (it cannot be told
 * from here: held until broken by hand) hold it; 'gone' and no claim do not.
 */
export function otherClaimHolds(claim: StoredClaim | null, me: ProcessIdentity = currentProcessIdentity()): 'alive' | 'unknown' | null {
  if (claim === null || ownClaim(claim, me)) return null
  // A claim of an earlier version: its pid alone, as it was judged then.
  const state = claim.identity === null ? (processEnded(claim.pid) ? 'gone' : 'alive') : claimantState(claim.identity, me)
  return state === 'gone' ? null : state
}
