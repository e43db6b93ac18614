import {spawn, spawnSync} from 'node:child_process'
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

/** Runs the built CLI (dist/) as a user would; NO_COLOR so output is comparable. */
export function runCli(args: readonly string[], options: {cwd?: string; env?: Record<string, string>; input?: string} = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: '', ...options.env},
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  })
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

export function runCliAsync(args: readonly string[], options: {cwd?: string; env?: Record<string, string>} = {}) {
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
