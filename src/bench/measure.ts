// Running one measured child process: wall time and peak resident set size.
//
// Peak RSS, by preference:
//  1. GNU time (`/usr/bin/time -f %M -o FILE`): the kernel's ru_maxrss of the child, exact even
//     for processes shorter than any polling interval; it covers the whole process including
//     worker threads (ingest's thread pool) but not grandchildren, and crosstalk spawns none.
//  2. Otherwise /proc/<pid>/status VmHWM (the kernel's own high-water mark), polled every 20 ms
//     while the child runs; the last read before exit misses at most the final 20 ms of growth.
//  3. Neither (no /proc): null, reported as "–".
// Node cannot give it directly: child_process has no resourceUsage for a spawned child, and
// process.resourceUsage() inside the child would need the child's cooperation.

import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export interface ChildRun {
  wall_ms: number
  peak_rss_mb: number | null
  code: number | null
  stdout: string
  stderr: string
}

let gnuTime: boolean | undefined
export function rssMethod(): 'gnu-time' | 'proc-vmhwm' | 'none' {
  if (gnuTime === undefined) gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', '-o', '/dev/null', 'true']).status === 0
  if (gnuTime) return 'gnu-time'
  return existsSync('/proc/self/status') ? 'proc-vmhwm' : 'none'
}

function readHwmKb(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/** A child killed by the bench: hung (no I/O for `stallMs`) or over its time limit. */
export class ChildKilled extends Error {}

/** rchar + wchar of a process, or of its first child when it is the GNU time wrapper. */
function ioBytes(pid: number, wrapped: boolean): number | null {
  try {
    let target = pid
    if (wrapped) {
      const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
      if (kids.length === 0) return null
      target = Number(kids[0])
    }
    const io = readFileSync(`/proc/${target}/io`, 'utf8')
    return Number(/rchar:\s+(\d+)/.exec(io)?.[1] ?? NaN) + Number(/wchar:\s+(\d+)/.exec(io)?.[1] ?? NaN)
  } catch {
    return null
  }
}

export interface RunOptions {
  /** Kill the child after this long (default: none). */
  timeoutMs?: number
  /**
   * Kill the child when it has read and written nothing for this long (Linux /proc only):
   * a spinning process must not hold the bench for its whole time limit.
   */
  stallMs?: number
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Exit codes that count as success (default [0]). */
  okCodes?: number[]
  /** Keep stdout (default true); rg's output can be large and is not needed when timing. */
  captureStdout?: boolean
}

export async function runMeasured(command: string, args: string[], options: RunOptions = {}): Promise<ChildRun> {
  const method = rssMethod()
  const dir = method === 'gnu-time' ? mkdtempSync(join(tmpdir(), 'ct-bench-time-')) : null
  const timeFile = dir ? join(dir, 'rss') : null
  const [cmd, argv] = timeFile ? ['/usr/bin/time', ['-f', '%M', '-o', timeFile, command, ...args]] : [command, args]
  const started = performance.now()
  const child = spawn(cmd, argv, {cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe']})
  const out: Buffer[] = []
  const err: Buffer[] = []
  const capture = options.captureStdout ?? true
  child.stdout.on('data', (b: Buffer) => capture && out.push(b))
  child.stderr.on('data', (b: Buffer) => err.length < 256 && err.push(b))
  let hwmKb: number | null = null
  const poll =
    method === 'proc-vmhwm' && child.pid !== undefined
      ? setInterval(() => {
          const kb = readHwmKb(child.pid!)
          if (kb !== null) hwmKb = Math.max(hwmKb ?? 0, kb)
        }, 20)
      : null
  let killed: string | null = null
  const kill = (why: string): void => {
    if (killed) return
    killed = why
    // GNU time waits for its child: kill the measured process, then the wrapper.
    const kids = timeFile && child.pid !== undefined ? (() => { try { return readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) } catch { return [] } })() : []
    for (const k of kids) try { process.kill(k, 'SIGKILL') } catch { /* gone */ }
    child.kill('SIGKILL')
  }
  const timer = options.timeoutMs ? setTimeout(() => kill(`over its ${Math.round(options.timeoutMs! / 1000)} s limit`), options.timeoutMs) : null
  let lastIo = -1
  let lastIoAt = performance.now()
  const stall =
    options.stallMs && child.pid !== undefined
      ? setInterval(() => {
          const io = ioBytes(child.pid!, timeFile !== null)
          if (io === null) return
          const t = performance.now()
          if (io !== lastIo) {
            lastIo = io
            lastIoAt = t
          } else if (t - lastIoAt > options.stallMs!) kill(`no I/O for ${Math.round(options.stallMs! / 1000)} s (hung)`)
        }, 1000)
      : null
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (c) => resolve(c))
  })
  const wall = performance.now() - started
  if (poll) clearInterval(poll)
  if (timer) clearTimeout(timer)
  if (stall) clearInterval(stall)
  let rssKb: number | null = hwmKb
  if (timeFile) {
    try {
      // GNU time prints "Command exited with non-zero status N" before the figure.
      const lines = readFileSync(timeFile, 'utf8').trim().split('\n')
      const kb = Number(lines[lines.length - 1])
      rssKb = Number.isFinite(kb) ? kb : null
    } catch {
      rssKb = null
    }
    rmSync(dir!, {recursive: true, force: true})
  }
  const stdout = Buffer.concat(out).toString('utf8')
  const stderr = Buffer.concat(err).toString('utf8')
  if (killed) {
    if (dir) rmSync(dir, {recursive: true, force: true})
    throw new ChildKilled(`${command} ${args.join(' ')}: killed after ${(wall / 1000).toFixed(0)} s, ${killed}`)
  }
  const ok = options.okCodes ?? [0]
  if (code === null || !ok.includes(code)) {
    throw new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)
  }
  return {wall_ms: wall, peak_rss_mb: rssKb === null ? null : rssKb / 1024, code, stdout, stderr}
}
