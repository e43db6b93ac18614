import {execFile} from 'node:child_process'
import path from 'node:path'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/**
 * Spawns `node bin/run.js ...` asynchronously. Async on purpose: tests that serve a testbed
 * in-process need their event loop running while the CLI talks to it (spawnSync would deadlock).
 */
export function runCliAsync(args: readonly string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<CliRun> {
  const bin = path.resolve(import.meta.dirname, '../../bin/run.js')
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1', ...options.env}, maxBuffer: 32 * 1024 * 1024}, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
      resolve({code, stdout, stderr})
    })
  })
}
