import {execFile, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const BIN = path.join(ROOT, 'bin/run.js')

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI (`npx tsc -p .` first) with NO_COLOR, in `cwd`. */
export function runCli(args: string[], options: {cwd?: string; env?: Record<string, string>} = {}): CliRun {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {...process.env, NO_COLOR: '1', TZ: 'UTC', ...options.env},
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  })
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
}

/**
 * Spawns `node bin/run.js ...` asynchronously. Async on purpose: tests that serve a testbed
 * in-process need their event loop running while the CLI talks to it (spawnSync would deadlock).
 */
export function runCliAsync(args: readonly string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1', ...options.env}, maxBuffer: 32 * 1024 * 1024}, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({code, stdout, stderr})
    })
  })
}
