import {Flags} from '@oclif/core'
import {accessSync, constants, statSync, writeFileSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {signalExitCode, watchInterrupts} from '../cli/interrupt.js'
import {BaseCommand} from '../cli/base-command.js'
import {safeLine} from '../util/sanitize.js'
import {CliError, GateTripped, InputError, UsageError} from '../errors.js'
import {renderJunit, renderJunitError} from '../probe/junit.js'
import {runProbe, type ProbeResult} from '../probe/run-probe.js'
import {shownTargetText} from '../probe/target-guard.js'
import {cryptoRng} from '../util/rng.js'

export default class Probe extends BaseCommand {
  static override description = `Probe an OpenAI-compatible serving stack for the leak's preconditions (a CI gate).

Context limits: a prompt just below the KV pool must be served; prompts between the pool and the advertised window (one just past the pool, one midway), and above the window, must be rejected explicitly (4xx, or an error event in a 200 stream), never served or left hanging. Where a refusal names a window below --advertised-tokens, a prompt between the pool and that window is sent too, and a gap prompt refused past that window is inconclusive, never a pass. Contamination: synthetic tenants with fresh canaries, concurrent and repeated; any foreign marker is a leak. Cache isolation: the same cache_salt must hit and a different one must miss. Sends only synthetic text. Refuses targets outside loopback and private ranges unless --allow-remote, and never follows a redirect.

Every request ends within --timeout (retries on 429/503 included). A target that hangs, resets, answers with something that is not HTTP, redirects, or stays overloaded stops the run: the target.responsive check fails and the checks not run are listed. With --fail-on-leak the gate exits 3 on a fail verdict and also on an inconclusive one (it never passes what it could not check) unless --allow-inconclusive.` 
  static override examples = [
    '<%= config.bin %> probe --target http://127.0.0.1:8000 --pool-tokens 4096 --advertised-tokens 16384 --fail-on-leak',
    '<%= config.bin %> probe --target http://10.0.0.5:8000 --pool-tokens 800 --advertised-tokens 32768 --timeout 60 --json --junit probe.xml',
  ]

  static override flags = {
    target: Flags.string({description: 'Base URL of the server (http://host:port).', required: true}),
    'pool-tokens': Flags.integer({description: "The target's real KV pool in tokens (vLLM: 'GPU KV cache size').", required: true, min: 1}),
    'advertised-tokens': Flags.integer({description: 'The context window the target advertises (max_model_len).', required: true, min: 2}),
    // Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer one fires at once.
    timeout: Flags.integer({description: 'Seconds before a request counts as hung (at most 86400).', default: 30, min: 1, max: 86_400}),
    'fail-on-leak': Flags.boolean({description: 'Exit 3 when the verdict is fail or inconclusive.'}),
    'allow-inconclusive': Flags.boolean({description: 'With --fail-on-leak, exit 0 on an inconclusive verdict.', dependsOn: ['fail-on-leak']}),
    junit: Flags.string({description: 'Also write JUnit XML here: one testcase per check; a run that cannot start (nothing listening, a refused target) writes one errored testcase saying why.', helpValue: 'FILE'}),
    'allow-remote': Flags.boolean({description: 'Allow a target outside loopback/private ranges (only one you operate).'}),
    'api-key': Flags.string({description: 'Bearer token for the target.', env: 'CROSSTALK_API_KEY'}),
    model: Flags.string({description: 'Model name to request (default: first from /v1/models).'}),
    tenants: Flags.integer({description: 'Synthetic tenants in the contamination probe.', default: 4, min: 2, max: 64}),
    rounds: Flags.integer({description: 'Repetitions of the contamination probe.', default: 2, min: 1, max: 100}),
    concurrency: Flags.integer({description: 'Requests in flight at once.', default: 4, min: 1, max: 64}),
    'max-tokens': Flags.integer({description: 'max_tokens per probe request.', default: 32, min: 1}),
  }

  public async run(): Promise<ProbeResult> {
    const {flags} = await this.parse(Probe)
    // The probe checks that a prompt between the pool and the window is refused: a pool larger than the window leaves no such
    // prompt, and its below-pool prompt would exceed the window. A mistyped pair, refused before any request.
    if (flags['pool-tokens'] > flags['advertised-tokens']) {
      throw new UsageError(`--pool-tokens ${flags['pool-tokens']} is larger than --advertised-tokens ${flags['advertised-tokens']}: the probe tests a KV pool smaller than (or equal to) the advertised window`)
    }
    // Before any request: a report that cannot be written after the run would lose its result (and its exit code).
    if (flags.junit) assertWritable(flags.junit)
    // Ctrl-C or a CI runner's SIGTERM: end the requests in flight (their sockets are destroyed), keep what was measured; a second one ends the process.
    const interrupts = watchInterrupts()
    let result: ProbeResult
    const startedAt = new Date()
    try {
      result = await runProbe({
        target: flags.target,
        poolTokens: flags['pool-tokens'],
        advertisedTokens: flags['advertised-tokens'],
        timeoutMs: flags.timeout * 1000,
        allowRemote: flags['allow-remote'],
        apiKey: flags['api-key'],
        model: flags.model,
        tenants: flags.tenants,
        rounds: flags.rounds,
        concurrency: flags.concurrency,
        maxTokens: flags['max-tokens'],
        rng: cryptoRng(),
        now: () => new Date(),
        signal: interrupts.signal,
        onProgress: (message) => this.note(`probe: ${message}`),
      })
    } catch (error) {
      // A run that could not start still leaves its report, so CI shows why the gate failed.
      if (flags.junit) writeFileSync(flags.junit, renderJunitError(shownTargetText(flags.target), error instanceof CliError ? error.code : 'E_FAILED', error instanceof Error ? error.message : String(error), startedAt))
      throw error
    } finally {
      interrupts.dispose()
    }
    if (flags.junit) writeFileSync(flags.junit, renderJunit(result))
    if (!this.jsonEnabled()) this.render(result)
    const gate = flags['fail-on-leak'] ? gateOf(result, flags['allow-inconclusive']) : null
    if (gate) {
      // Contract: a tripped gate exits 3. Set the code instead of throwing so --json still prints the result.
      this.note(`${this.paint.red('Gate:')} ${safeLine(gate.message)}`)
      process.exitCode = gate.exit
    }
    // Interrupted: the conventional status (130/143) unless a tripped gate set its own.
    const received = interrupts.received()
    if (received && process.exitCode === undefined) process.exitCode = signalExitCode(received)
    return result
  }

  private render(result: ProbeResult): void {
    const rows = result.checks.map((c) => [c.name, c.size_tokens === null ? '-' : String(c.size_tokens), c.outcome, c.ok ? 'ok' : c.inconclusive ? '?' : 'FAIL', safeLine(c.detail)])
    const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['check', 'tokens', 'outcome', 'ok'][i]!.length))
    const line = (cells: string[]): string => cells.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ')
    this.log(line(['check', 'tokens', 'outcome', 'ok', 'detail']))
    for (const row of rows) this.log(line(row))
    if (result.not_run.length > 0) this.log(`not run: ${result.not_run.join(', ')}`)
    this.log(`verdict: ${result.verdict}  (${result.checks.length} checks, ${(result.duration_ms / 1000).toFixed(1)} s, sized by ${result.sizing}${result.interrupted ? ', INTERRUPTED: partial results' : ''})`)
  }
}

/** Fail closed: a fail verdict trips the gate, and so does an inconclusive one unless the user accepts it. */
function gateOf(result: ProbeResult, allowInconclusive: boolean): GateTripped | null {
  if (result.verdict === 'fail') return new GateTripped(`probe verdict fail: ${result.checks.filter((c) => !c.ok && !c.inconclusive).map((c) => c.name).join(', ')}`)
  if (result.verdict === 'inconclusive' && !allowInconclusive) {
    const open = result.checks.filter((c) => c.inconclusive).map((c) => c.name)
    const why = [open.length > 0 ? `undecided: ${open.join(', ')}` : '', result.interrupted ? 'interrupted' : ''].filter(Boolean).join('; ')
    return new GateTripped(`probe verdict inconclusive (${why}); the gate does not pass what it could not check (--allow-inconclusive to accept)`, 'E_INCONCLUSIVE')
  }
  return null
}

/** --junit names a file that can be written: its folder exists and is writable, and it is no folder itself. */
function assertWritable(file: string): void {
  const folder = dirname(resolve(file))
  try {
    accessSync(folder, constants.W_OK)
  } catch (error) {
    throw new InputError(`--junit ${file}: cannot write in ${folder} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'E_JUNIT')
  }
  let isFolder = false
  try {
    isFolder = statSync(file).isDirectory()
  } catch {
    // Not there yet: it will be created.
  }
  if (isFolder) throw new InputError(`--junit ${file}: is a folder`, 'E_JUNIT')
}
