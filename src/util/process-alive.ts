import {readFileSync} from 'node:fs'

/** Whether a process with this pid exists (EPERM: it does, owned by another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether a process has ended: gone, or a zombie (ended, not yet reaped: kill(pid, 0) still
 * succeeds on it). A process killed outright whose parent died with it stays a zombie where
 * pid 1 does not reap orphans (some container and micro-VM inits), found so under SIGKILL.
 * The zombie state is read from Linux's /proc; elsewhere only a gone process counts as ended.
 */
export function processEnded(pid: number): boolean {
  if (!processAlive(pid)) return true
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // "pid (comm) S ...": comm may hold spaces and parentheses, so the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z'
  } catch {
    return false
  }
}
