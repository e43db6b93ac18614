import {Flags} from '@oclif/core'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {BaseCommand} from '../cli/base-command.js'
import {folderBytes, invocation} from '../cli/invocation.js'
import {renderDemoSummary} from '../cli/render-demo.js'
import {CliError} from '../errors.js'
import {runDemo, type DemoResult} from '../demo/pipeline.js'

export default class Demo extends BaseCommand {
  static override summary = 'Run the whole pipeline on a generated incident: ingest, scan, scope, notify, probe, replay, verify.'
  static override description = `Generates a realistic synthetic incident (the documented stale-KV-page leak: over-pool prompts on disaggregated decode nodes answered with other tenants' content), then runs every stage a responder would, as the real commands: ingest logs and canaries, scan, scope, open the incident, probe and replay against the built-in reference backend, draft the Article 33 notification (Markdown, JSON, PDF), the processor notices and the breach register, and verify the case. Ends with a short summary and where everything was written. Nothing leaves this machine.`
  static override examples = ['<%= config.bin %> demo', '<%= config.bin %> demo --out ./demo-case --records 50000', '<%= config.bin %> demo --json']
  static override flags = {
    out: Flags.string({description: 'folder to write the incident, case and reports into (default: a new temporary folder)', helpValue: 'DIR'}),
    records: Flags.integer({description: 'records in the generated incident', default: 20_000, min: 500}),
    seed: Flags.integer({description: 'generator seed (same seed, same incident)', default: 1}),
    force: Flags.boolean({description: 'reuse a non-empty --out folder, replacing a case and reports left there by an earlier demo'}),
  }

  async run(): Promise<DemoResult> {
    const {flags} = await this.parse(Demo)
    const out = resolve(flags.out ?? mkdtempSync(join(tmpdir(), 'crosstalk-demo-')))
    const started = Date.now()
    const result = await runDemo({
      out,
      records: flags.records,
      seed: flags.seed,
      force: flags.force,
      now: new Date(),
      run: (id, argv) => this.runStep(id, argv),
      onStep: (line) => this.note(this.paint.dim(`$ ${line}`)),
    })
    if (!this.jsonEnabled()) {
      // npm run sets INIT_CWD to the folder the user typed the command in.
      const bin = invocation(this.config.root, this.config.bin, {cwd: process.env.INIT_CWD || process.cwd()})
      const folder = {path: out, bytes: folderBytes(out), temporary: flags.out === undefined}
      this.log(renderDemoSummary(result, (Date.now() - started) / 1000, {bin, folder}))
    }
    return result
  }

  /** Runs one real command in-process with --json and captures its stdout document. */
  private async runStep(id: string, argv: string[]): Promise<unknown> {
    const chunks: string[] = []
    const write = process.stdout.write.bind(process.stdout)
    const exitCode = process.exitCode
    process.stdout.write = ((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
      return true
    }) as typeof process.stdout.write
    try {
      await this.config.runCommand(id, [...argv, '--json'])
    } finally {
      process.stdout.write = write
    }
    const text = chunks.join('')
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new CliError(`demo step ${id} printed no JSON result`)
    }
    // Gates (probe/replay exit 3 when they reproduce the leak) are the expected outcome here.
    if (process.exitCode === 3) process.exitCode = exitCode
    const error = (parsed as {error?: {message?: string}}).error
    if (error && process.exitCode) throw new CliError(`demo step ${id} failed: ${error.message ?? 'error'}`)
    return parsed
  }
}
