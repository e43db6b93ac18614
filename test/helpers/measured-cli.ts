import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {BIN} from './cli.js'

// Runs the built CLI as a child process and watches it: wall time, peak resident memory (sampled
// from /proc on Linux), and a hard kill so a command that never ends fails its test instead of
// hanging the suite.

export interface MeasuredRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  elapsedMs: number
  /** Peak resident set size seen, in MiB; null where /proc is not available. */
  peakRssMiB: number | null
  /** True when the run had to be killed at the hard limit. */
  killed: boolean
}

function rssMiB(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}

export function runMeasured(
  args: readonly string[],
  options: {killAfterMs: number; env?: NodeJS.ProcessEnv; /** sends `signal` once, when stderr first matches `when` */ signalOn?: {when: RegExp; signal: NodeJS.Signals}},
): Promise<MeasuredRun> {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, ...args], {env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: '', ...options.env}})
    let stdout = ''
    let stderr = ''
    let peak: number | null = null
    let killed = false
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    let signalled = false
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (options.signalOn && !signalled && options.signalOn.when.test(stderr)) {
        signalled = true
        child.kill(options.signalOn.signal)
      }
    })
    const sample = setInterval(() => {
      const rss = child.pid === undefined ? null : rssMiB(child.pid)
      if (rss !== null) peak = Math.max(peak ?? 0, rss)
    }, 25)
    const limit = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, options.killAfterMs)
    child.on('close', (code, signal) => {
      clearInterval(sample)
      clearTimeout(limit)
      resolve({code, signal, stdout, stderr, elapsedMs: Date.now() - started, peakRssMiB: peak, killed})
    })
  })
}
