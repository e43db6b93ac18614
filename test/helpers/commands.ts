import {run as oclifRun} from '@oclif/core'
import {captureOutput} from '@oclif/test'
import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

// Runs a crosstalk command in this process, against the source (oclif loads src/commands
// through tsx under NODE_ENV=test; see vitest.config.ts), as a user would type it: the
// contract's exit code (set by the base command, or oclif's own 2 for usage), stdout and
// stderr. CROSSTALK_DB is cleared and NO_COLOR set for the run, as the spawned tests did.
// @oclif/test's captureOutput does the capturing; its runCommand is not used because it joins
// the arguments with spaces and splits them again (an argument holding a space breaks) and
// strips ANSI escapes (which tests must see, to prove that none come from a log).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

export interface CommandRun {
  code: number
  stdout: string
  stderr: string
}

export async function run(args: readonly string[], options: {env?: Record<string, string | undefined>} = {}): Promise<CommandRun> {
  const env = {NO_COLOR: '1', CROSSTALK_DB: undefined, ...options.env}
  const saved: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k]
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
  const before = process.exitCode
  process.exitCode = undefined
  try {
    const r = await captureOutput(async () => {
      try {
        return await oclifRun([...args], {root: ROOT})
      } finally {
        // oclif's development-only warnings (emitted on the next tick) belong to this run.
        await new Promise((done) => setImmediate(done))
      }
    }, {stripAnsi: false})
    r.stderr = r.stderr.split('\n').filter((line) => !/\[UnparsedCommand\]|Did you forget to call 'this\.parse'|\(Use `node --trace-warnings/.test(line)).join('\n')
    const error = r.error as (Error & {oclif?: {exit?: number}}) | undefined
    const code = error ? (error.oclif?.exit ?? 1) : Number(process.exitCode ?? 0)
    return {code, stdout: r.stdout, stderr: r.stderr + (error && !r.stderr.includes(error.message) ? `${error.message}\n` : '')}
  } finally {
    process.exitCode = before
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

/** Runs with --json and parses stdout; throws with stderr when the command did not exit 0. */
export async function runJson<T = unknown>(args: readonly string[], options: {env?: Record<string, string | undefined>} = {}): Promise<T> {
  const r = await run([...args, '--json'], options)
  if (r.code !== 0) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as T
}

/**
 * `ingest logs --json` over a file whose gzip stream could not all be read: exits 1 (E_NOT_READ)
 * once what could be read is stored, with the ingest's document as the error's details, returned.
 */
export async function runJsonNotReadWhole<T = unknown>(args: readonly string[], options: {env?: Record<string, string | undefined>} = {}): Promise<T> {
  const r = await run([...args, '--json'], options)
  if (r.code !== 1) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}, not 1 (not read whole): ${r.stderr}`)
  const {error} = JSON.parse(r.stdout) as {error: {code: string; message: string; details: T}}
  if (error.code !== 'E_NOT_READ' || !/not read whole/.test(error.message)) throw new Error(`crosstalk ${args.join(' ')}: ${error.code}: ${error.message}`)
  return error.details
}
