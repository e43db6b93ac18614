import {Flags} from '@oclif/core'
import {signalExitCode, watchInterrupts} from '../cli/interrupt.js'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {safeLine, safeId} from '../util/sanitize.js'
import {CliError, GateTripped, UsageError} from '../errors.js'
import {TargetFailed} from '../probe/client.js'
import {parseTarget, shownTargetText} from '../probe/target-guard.js'
import {runReplay, type ReplayResult} from '../replay/run-replay.js'
import {cryptoRng} from '../util/rng.js'
import {count} from '../cli/plural.js'

export default class Replay extends BaseCommand {
  static override description = `Replay suspicious records against a serving stack to confirm the leak.

For each record: prime the target with canaried requests from synthetic tenants, then send a trigger under the recorded conditions (prompt size, endpoint, streaming); a primer's canary in the trigger's answer reproduces the leak (any primer's of the run, or an earlier trial's trigger's); a marker the run gave no one is reported apart (owner unknown) and confirms nothing. Repeated --trials times; verdict confirmed / not_reproduced / rejected with the reproduction rate and a Wilson 95% interval, stored in the case. By default a size-preserving synthetic prompt replaces the original: no personal data is re-sent unless --original-prompt (audited). Recorded sizes larger than the target's window are scaled or clamped, and the output says how.

Every request ends within --timeout; redirects are never followed. A target that hangs or stops answering HTTP ends the run (stored as interrupted, with what it measured). With --fail-on-leak the gate exits 3 when a record is confirmed, and also when it could not judge: trials that hung or errored, answers with no readable text, not read whole (a stream cut off before data: [DONE], or an event that was no JSON document) or with a marker the run gave no one, a run cut short, or a target that failed before the run began. A record none of whose triggers was judged (each hung, errored, or answered with no readable text or with a stream not read whole) is inconclusive, and stored so (never as not reproduced), with its answers that could not be judged counted.` 
  static override examples = [
    '<%= config.bin %> replay --from-sightings --target http://127.0.0.1:8000 --pool-tokens 4096 --trials 10',
    '<%= config.bin %> replay --request-id req-8812 --target http://10.0.0.5:8000 --source-pool-tokens 855168 --pool-tokens 4096 --json',
  ]

  static override flags = {
    db: dbFlag,
    target: Flags.string({description: 'Base URL of the server to replay against.', required: true}),
    'request-id': Flags.string({description: 'Record to replay (repeatable).', multiple: true}),
    'from-sightings': Flags.boolean({description: 'Replay every record with a cross-session or cross-tenant sighting.'}),
    trials: Flags.integer({description: 'Trials per record.', default: 5, min: 1, max: 1000}),
    primers: Flags.integer({description: 'Synthetic tenants priming the pool before each trigger.', default: 3, min: 1, max: 64}),
    'original-prompt': Flags.boolean({description: 'Re-send the original prompt text (personal data; recorded in the audit log).'}),
    'pool-tokens': Flags.integer({description: "The target's KV pool in tokens.", min: 1}),
    'advertised-tokens': Flags.integer({description: "The target's context window (default: /tokenize's max_model_len).", min: 2}),
    'source-pool-tokens': Flags.integer({description: 'KV pool of the stack the records came from: scale sizes pool-relative (to --pool-tokens, which it needs).', min: 1, dependsOn: ['pool-tokens']}),
    // Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer one fires at once.
    timeout: Flags.integer({description: 'Seconds before a request counts as hung (at most 86400).', default: 30, min: 1, max: 86_400}),
    'fail-on-leak': Flags.boolean({description: 'Exit 3 when any record is confirmed, or when the replay could not judge (hung/errored trials, answers with no readable text, not read whole or with a marker the run gave no one, primers not served, run cut short).'}),
    'allow-remote': Flags.boolean({description: 'Allow a target outside loopback/private ranges (only one you operate).'}),
    'api-key': Flags.string({description: 'Bearer token for the target.', env: 'CROSSTALK_API_KEY'}),
    model: Flags.string({description: 'Model name to request (default: first from /v1/models).'}),
    'max-tokens': Flags.integer({description: 'max_tokens per request.', default: 32, min: 1}),
    purpose: Flags.string({
      description:
        'Why this run is made: confirmation (reproduce the fault) or negative-control (a fixed or guarded stack expected not to leak). Default: confirmation, unless the target rejected every trial (then recorded as negative-control). A refusal that names a window below the one the triggers were sized by (a trigger past it) comes from the window, not a fix: it is not judged, and never makes the run a negative control. Drafts never pool the two.',
      options: ['confirmation', 'negative-control'],
    }),
  }

  public async run(): Promise<ReplayResult> {
    const {flags} = await this.parse(Replay)
    const requestIds = flags['request-id'] ?? []
    if (requestIds.length === 0 && !flags['from-sightings']) throw new UsageError('pass --request-id ID (repeatable) or --from-sightings')
    parseTarget(flags.target) // a malformed --target is a usage error before the case is opened
    const db = this.openCase(flags.db)
    if (flags['original-prompt']) this.note('replay: --original-prompt: original prompt text (personal data) will be sent to the target; recorded in the audit log')
    // Ctrl-C or a CI runner's SIGTERM: end the requests in flight (their sockets are destroyed), keep what was measured; a second one ends the process.
    const interrupts = watchInterrupts()
    let result: ReplayResult
    try {
      result = await runReplay(db, {
        target: flags.target,
        requestIds,
        fromSightings: flags['from-sightings'],
        trials: flags.trials,
        primers: flags.primers,
        originalPrompt: flags['original-prompt'],
        poolTokens: flags['pool-tokens'],
        advertisedTokens: flags['advertised-tokens'],
        sourcePoolTokens: flags['source-pool-tokens'],
        timeoutMs: flags.timeout * 1000,
        allowRemote: flags['allow-remote'],
        apiKey: flags['api-key'],
        model: flags.model,
        maxTokens: flags['max-tokens'],
        purpose: flags.purpose as 'confirmation' | 'negative-control' | undefined,
        rng: cryptoRng(),
        now: () => new Date(),
        signal: interrupts.signal,
        onProgress: (message) => this.note(`replay: ${safeLine(message)}`),
      })
    } catch (error) {
      // Fail closed: under --fail-on-leak a target that never let the replay start is a tripped gate, not a pass.
      if (error instanceof TargetFailed && flags['fail-on-leak']) throw new CliError(error.message, error.code, 3)
      throw error
    } finally {
      interrupts.dispose()
    }
    const {'api-key': _secret, ...rest} = flags
    // A password in --target (user:password@) is never audited.
    const auditedFlags = {...rest, target: shownTargetText(rest.target)}
    this.audit(db, {argv: auditedArgv(this.argv), flags: auditedFlags}, {
      run_id: result.run_id,
      target: result.target,
      target_kind: result.target_kind,
      purpose: result.purpose,
      original_prompt: result.original_prompt,
      records: result.results.length,
      confirmed: result.results.filter((r) => r.verdict === 'confirmed').length,
      original_prompt_records: result.results.filter((r) => r.scaling === 'original_prompt').length,
      primer_leaks: result.results.reduce((sum, r) => sum + r.primer_leaks, 0),
      other_markers: result.results.reduce((sum, r) => sum + r.other_markers, 0),
      other_owners: [...new Set(result.results.flatMap((r) => r.other_owners.map((o) => `${o.tenant}/${o.session}`)))],
      interrupted: result.interrupted,
    })
    if (!this.jsonEnabled()) this.render(result)
    const gate = flags['fail-on-leak'] ? gateOf(result) : null
    if (gate) {
      // Set the code rather than throw, so --json still prints the result (contract: exit 3).
      this.note(`${this.paint.red('Gate:')} ${safeLine(gate.message)}`)
      process.exitCode = gate.exit
    }
    // The target failed (before any record was replayed, or part-way): what was measured is printed
    // and stored, but the run did not do what it was asked: exit 1, as for a target that fails
    // before the run (E_TARGET_HUNG); a tripped gate's 3 stands.
    if (result.target_failure && process.exitCode === undefined && !interrupts.received()) process.exitCode = 1
    // Interrupted: the conventional status (130/143) unless a tripped gate set its own.
    const received = interrupts.received()
    if (received && process.exitCode === undefined) process.exitCode = signalExitCode(received)
    return result
  }

  private render(result: ReplayResult): void {
    this.log(`replay run ${result.run_id} against ${safeLine(result.target)} (${count(result.trials, 'trial')}, ${count(result.primers, 'primer')}${promptsSent(result)})`)
    this.log(
      `target: ${result.target_kind === 'simulator' ? "crosstalk's built-in testbed (a simulator built to leak: it shows the mechanism, not the production stack)" : `external stack${result.target_version ? ` (version ${safeLine(result.target_version)})` : ''}`}; purpose: ${result.purpose}${result.purpose_given ? '' : ' (default)'}`,
    )
    this.log(`sizes: ${result.scaling_note}`)
    for (const r of result.results) {
      const pct = (x: number): string => `${(x * 100).toFixed(0)}%`
      this.log(
        `${safeLine(r.request_id)}  ${r.verdict.padEnd(14)} ${r.reproduced}/${r.judged} = ${r.rate === null ? 'rate not known (no trigger judged)' : `${pct(r.rate)} [95% CI ${pct(r.wilson_low)}-${pct(r.wilson_high)}]`}` +
          `  ${r.original_prompt_tokens ?? '?'} -> ${r.replay_prompt_tokens} tokens (${r.scaling}), ${r.endpoint}${r.stream ? ' stream' : ''}` +
          (r.rejected + r.hung + r.errors > 0 ? `  rejected ${r.rejected}, hung ${r.hung}, errors ${r.errors}${r.hung + r.errors > 0 ? ' (hung and errored not judged)' : ''}` : '') +
          (r.no_text > 0 ? `  ${count(r.no_text, 'answer')} with no readable text (not counted)` : '') +
          (r.incomplete > 0 ? `  ${count(r.incomplete, 'answer')} not read whole: a stream cut off or an event that was no JSON document (not counted)` : '') +
          (r.unprimed > 0 ? `  ${count(r.unprimed, 'trial')} not run: no primer was served` : '') +
          (r.primer_leaks > 0 ? `  ${count(r.primer_leaks, 'answer')} to priming requests carried another synthetic tenant's marker (a leak observed)` : '') +
          (r.other_markers > 0 ? `  ${count(r.other_markers, 'answer')} with a marker the run gave no one${r.ambiguous_markers > 0 ? ` (${r.ambiguous_markers} cut short so that whose it is cannot be told)` : ''} (not counted)` : '') +
          (r.other_owners.length > 0 ? `  markers the run gave no one that the case's canary registry assigns to ${r.other_owners.map((o) => `${safeId(o.tenant)}/${safeLine(o.session)}`).join(', ')}` : '') +
          (r.other_unowned > 0 ? `  ${count(r.other_unowned, 'marker')} the run gave no one and the case's registry does not hold (owner unknown)` : ''),
      )
    }
    if (result.target_failure) this.log(`STOPPED: the target ${result.target_failure.outcome === 'hung' ? 'hung' : 'failed'} on ${result.target_failure.request}: ${safeLine(result.target_failure.error)}`)
    const verdicts = (v: string): number => result.results.filter((r) => r.verdict === v).length
    // Nothing replayed is no "0 of 0 records confirmed".
    if (result.results.length === 0 && result.target_failure) {
      this.log('NOTHING REPLAYED: the target failed before any record was replayed; the run is stored as interrupted')
      return
    }
    this.log(
      `${verdicts('confirmed')} of ${count(result.results.length, 'record')} confirmed` +
        ` (${verdicts('not_reproduced')} not reproduced, ${verdicts('rejected')} rejected by the target${verdicts('inconclusive') > 0 ? `, ${verdicts('inconclusive')} inconclusive: no trigger was judged (each hung, errored, had no readable text, was not read whole or no primer served), stored as inconclusive` : ''})${result.interrupted ? ' before the interruption' : ''}`,
    )
    if (result.interrupted) this.log('INTERRUPTED: partial results stored')
  }
}

/** The command line as audited: no password of a --target URL, no --api-key value (a secret in the audit log is a secret handed on). */
function auditedArgv(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null]
    if (name !== '--target' && name !== '--api-key') {
      out.push(arg)
      continue
    }
    const shown = (value: string): string => (name === '--api-key' ? '(withheld)' : shownTargetText(value))
    if (inline !== null) out.push(`${name}=${shown(inline)}`)
    else {
      out.push(arg)
      if (i + 1 < argv.length) out.push(shown(argv[++i]!))
    }
  }
  return out
}

/** Which prompts were sent: with --original-prompt, a record whose log holds no request text was sent a synthetic stand-in. */
function promptsSent(result: ReplayResult): string {
  if (!result.original_prompt_requested) return ', synthetic prompts'
  const original = result.results.filter((r) => r.scaling === 'original_prompt').length
  if (result.results.length > 0 && original === result.results.length) return ', ORIGINAL PROMPTS'
  return `, ORIGINAL PROMPTS asked for: re-sent for ${original} of ${count(result.results.length, 'record')}; the others' logs hold no request text, so a synthetic stand-in was sent`
}

/** Fail closed: a confirmed leak trips the gate, and so does a replay that could not judge what it was asked to. */
function gateOf(result: ReplayResult): GateTripped | null {
  const confirmed = result.results.filter((r) => r.verdict === 'confirmed')
  if (confirmed.length > 0) return new GateTripped(`replay confirmed ${count(confirmed.length, 'record')}`)
  const unanswered = result.results.reduce((sum, r) => sum + r.hung + r.errors, 0)
  const unread = result.results.reduce((sum, r) => sum + r.no_text, 0)
  const notWhole = result.results.reduce((sum, r) => sum + r.incomplete, 0)
  const unprimed = result.results.reduce((sum, r) => sum + r.unprimed, 0)
  const other = result.results.reduce((sum, r) => sum + r.other_markers, 0)
  const ambiguous = result.results.reduce((sum, r) => sum + r.ambiguous_markers, 0)
  const reasons = [
    unanswered > 0 ? `${count(unanswered, 'trial')} hung or errored` : '',
    unread > 0 ? `${count(unread, 'answer')} with no readable text` : '',
    notWhole > 0 ? `${count(notWhole, 'answer')} not read whole (a stream cut off, or an event that was no JSON document)` : '',
    unprimed > 0 ? `${count(unprimed, 'trial')} not run: no primer was served` : '',
    other > 0 ? `${count(other, 'answer')} with a marker the run gave no one${other > ambiguous ? (result.results.some((r) => r.other_unowned > 0) ? ' (owner unknown)' : " (the case's canary registry names its owner)") : ''}${ambiguous > 0 ? ` (${ambiguous} cut short so that whose it is cannot be told)` : ''}` : '',
    result.target_failure ? `the target ${result.target_failure.outcome === 'hung' ? 'hung' : 'failed'} on ${result.target_failure.request}` : result.interrupted ? 'the run was interrupted' : '',
  ].filter(Boolean)
  return reasons.length > 0 ? new GateTripped(`replay could not judge: ${reasons.join('; ')}`, 'E_INCONCLUSIVE') : null
}
