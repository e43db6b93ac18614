import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {BIN} from './cli.js'

// `crosstalk testbed serve` as a real process (the built CLI), for tests that must see what a
// user sees: its start-up line, its answers over the wire, how it stops.

export interface ServeProcess {
  url: string
  child: ChildProcessWithoutNullStreams
  stderr(): string
  /** Sends the signal and waits for the exit (SIGKILL after 10 s: a test never waits forever). */
  stop(signal?: NodeJS.Signals): Promise<{code: number | null; signal: NodeJS.Signals | null; elapsedMs: number; stderr: string}>
}

export function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'testbed', 'serve', '--port', '0', ...args], {env: {...process.env, NO_COLOR: '1'}})
    let stderr = ''
    let exited: {code: number | null; signal: NodeJS.Signals | null} | null = null
    const exitWaiters: Array<() => void> = []
    let listening = false
    child.on('exit', (code, signal) => {
      exited = {code, signal}
      for (const waiter of exitWaiters.splice(0)) waiter()
      if (!listening) {
        clearTimeout(giveUp)
        reject(new Error(`testbed serve exited (${signal ?? code}) before listening: ${stderr}`))
      }
    })
    const giveUp = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`testbed serve did not start: ${stderr}`))
    }, 30_000)
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /listening on (http:\/\/[^\s]+)/.exec(stderr)
      if (!match || listening) return
      listening = true
      clearTimeout(giveUp)
      resolve({
        url: match[1]!,
        child,
        stderr: () => stderr,
        stop: (signal = 'SIGTERM') =>
          new Promise((done) => {
            const started = Date.now()
            let force: NodeJS.Timeout | undefined
            const report = (): void => {
              clearTimeout(force)
              done({...exited!, elapsedMs: Date.now() - started, stderr})
            }
            if (exited) return report()
            exitWaiters.push(report)
            child.kill(signal)
            force = setTimeout(() => child.kill('SIGKILL'), 10_000)
          }),
      })
    })
    child.on('error', reject)
  })
}
