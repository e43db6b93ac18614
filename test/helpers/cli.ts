import {execFile, spawn, spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = join(ROOT, 'bin/run.js')

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}
export type CliRun = CliResult

/** Runs the built CLI (dist/, `npx tsc -p .` first) as a user would: NO_COLOR, UTC, no inherited CROSSTALK_DB. */
export function runCli(args: readonly string[], options: {cwd?: string; env?: Record<string, string>; input?: string} = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {...process.env, NO_COLOR: '1', TZ: 'UTC', CROSSTALK_DB: '', ...options.env},
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
    // vitest cannot interrupt a synchronous child: a hung command fails its test instead of blocking CI.
    timeout: 300_000,
    killSignal: 'SIGKILL',
  })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return {code: -1, stdout: r.stdout, stderr: `${r.stderr}\n(killed after 300 s)`}
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

/** Starts the CLI and returns the child (for tests that must kill it mid-way). */
export function spawnCli(args: readonly string[], options: {cwd?: string; env?: Record<string, string>} = {}) {
  return spawn(process.execPath, [BIN, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1', ...options.env}})
}

export function runJson<T = unknown>(args: readonly string[], options: {cwd?: string; env?: Record<string, string>} = {}): T {
  const r = runCli([...args, '--json'], options)
  if (r.code !== 0) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}

export function tempDir(prefix = 'ct-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/**
 * Runs the CLI asynchronously. Async on purpose: tests that serve a testbed in-process need
 * their event loop running while the CLI talks to it (spawnSync would deadlock).
 */
export function runCliAsync(args: readonly string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1', ...options.env}, maxBuffer: 32 * 1024 * 1024}, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({code, stdout, stderr})
    })
  })
}
