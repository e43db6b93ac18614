import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI (`npx tsc -p .` first) with NO_COLOR, in `cwd`. */
export function runCli(args: string[], options: {cwd?: string; env?: Record<string, string>} = {}): CliRun {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/run.js'), ...args], {
    cwd: options.cwd ?? ROOT,
    env: {...process.env, NO_COLOR: '1', TZ: 'UTC', ...options.env},
    encoding: 'utf8',
  })
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
}
