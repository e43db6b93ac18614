import {mkdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {generateIncident} from '../generate/generate-incident.js'
import {startTestbed} from '../testbed/server.js'

// The main job on an embedded default: a generated incident taken through every stage
// crosstalk has, as a responder would run them. Each stage is the real command, run by the
// caller-supplied `run` (the demo command runs them in-process and collects their --json
// results), so the demo exercises exactly what users run.

/** Runs `crosstalk <id> <argv...> --json` and returns its parsed JSON result. */
export type StepRunner = (id: string, argv: string[]) => Promise<unknown>

export interface DemoOptions {
  out: string
  records: number
  seed: number
  /** Write into a non-empty `out`, replacing an earlier demo's case and reports. */
  force?: boolean
  now: Date
  run: StepRunner
  /** Called before each stage with the command line a user would type. */
  onStep?: (commandLine: string) => void
}

/** What the incident looked like in production (the documented case). */
export const DEMO_POOL_TOKENS = 681_280
export const DEMO_ADVERTISED_TOKENS = 1_048_576

export interface DemoStep {
  command: string
  result: unknown
}

export interface DemoResult {
  out: string
  db: string
  records: number
  seed: number
  steps: DemoStep[]
  outputs: {logs: string; canaries: string; ground_truth: string; reports: string; article33: string[]; notices: string; junit: string}
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const {out, run} = options
  const db = join(out, 'case.db')
  const reports = join(out, 'reports')
  const steps: DemoStep[] = []
  const step = async (id: string, argv: string[]): Promise<any> => {
    const line = `crosstalk ${id.replace(/:/g, ' ')} ${argv.map(shellQuote).join(' ')}`
    options.onStep?.(line)
    const result = await run(id, argv)
    steps.push({command: line, result})
    return result
  }

  options.onStep?.(`crosstalk generate --out ${out} --records ${options.records} --seed ${options.seed}`)
  if (options.force) for (const stale of ['case.db', 'case.db-wal', 'case.db-shm', 'reports']) rmSync(join(out, stale), {recursive: true, force: true})
  const generated = await generateIncident({out, records: options.records, seed: options.seed, force: options.force})
  steps.push({command: `crosstalk generate --out ${shellQuote(out)} --records ${options.records} --seed ${options.seed}`, result: generated})
  mkdirSync(reports, {recursive: true})
  const logs = join(out, 'logs')
  const canaries = join(out, 'canaries.csv')
  const pool = String(DEMO_POOL_TOKENS)
  const advertised = String(DEMO_ADVERTISED_TOKENS)

  const triage = (await step('triage', [logs, '--canaries', canaries, '--db', db, '--pool-tokens', pool, '--advertised-tokens', advertised])) as {
    scope?: {exposure?: {flows?: Array<{source_tenant: string; responses: number}>}}
  }
  const sightings = (await step('sightings', ['--db', db, '--class', 'cross_session,cross_tenant'])) as {request_id: string}[]

  // The provider found out two hours ago: the 72-hour clock is running.
  const awareAt = new Date(options.now.getTime() - 2 * 3600_000).toISOString()
  await step('incident:open', ['--db', db, '--title', 'Cross-tenant responses from stale KV pages (demo)', '--aware-at', awareAt, '--role', 'processor'])

  // Confirm against the reference backend in its incident configuration.
  const testbed = await startTestbed({port: 0, onOverflow: 'stale', disaggregated: true})
  const junit = join(reports, 'probe-junit.xml')
  try {
    await step('probe', ['--target', testbed.url, '--pool-tokens', '4096', '--advertised-tokens', '16384', '--timeout', '5', '--junit', junit])
    const ids = [...new Set(sightings.map((s) => s.request_id))].slice(0, 3)
    if (ids.length > 0) {
      await step('replay', ['--db', db, '--target', testbed.url, '--source-pool-tokens', pool, '--pool-tokens', '4096', '--trials', '3', ...ids.flatMap((id) => ['--request-id', id])])
    }
  } finally {
    await testbed.close()
  }

  // As processor, the duty is a notice to each controller (Art. 33(2)); the authority draft is
  // prepared for the controller whose users' data leaked most, as it would be if that
  // controller asked its processor for one.
  const notices = join(reports, 'processor-notices')
  await step('report:processor-notice', ['--db', db, '--all', '--format', 'md', '--out', notices])
  const bySource = new Map<string, number>()
  for (const f of triage.scope?.exposure?.flows ?? []) bySource.set(f.source_tenant, (bySource.get(f.source_tenant) ?? 0) + f.responses)
  const controller = [...bySource].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0]
  const article33 = controller === undefined ? [] : ['md', 'json', 'pdf'].map((f) => join(reports, `article33.${f}`))
  for (const file of article33) await step('report:article33', ['--db', db, '--format', file.split('.').pop()!, '--out', file, '--on-behalf-of-controller', controller!])
  await step('report:register', ['--db', db, '--format', 'md', '--out', join(reports, 'register.md')])
  await step('clock', ['--db', db])
  await step('verify', ['--db', db])
  return {
    out,
    db,
    records: options.records,
    seed: options.seed,
    steps,
    outputs: {logs, canaries, ground_truth: join(out, 'ground-truth.json'), reports, article33, notices, junit},
  }
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
