import {Args, Flags} from '@oclif/core'
import {decideDuplicatesGate, decideLeakGate, decideTextLeakGate, enforceLeakGate, leakGateFlags, mergeVerdicts, finalTriageGate} from '../cli/leak-gate.js'
import {datedBeforeIssuedWarning, textLeakCounts} from '../store/findings.js'
import {BaseCommand, caseWriteError, dbFlag, diskFullError} from '../cli/base-command.js'
import {describeDecision, evidenceFor, ingestAuditArgs, ingestAuditSummary, logIngestFlags, parseIngestFlags, WALKED_FILES} from '../cli/ingest-flags.js'
import {signalExitCode, watchInterrupts} from '../cli/interrupt.js'
import {clearProgress, ingestProgressBar, scanProgressLine} from '../cli/progress.js'
import {renderScan} from '../cli/render-detect.js'
import {interruptedMessage} from '../cli/render-ingest.js'
import {NO_REGISTRY_SCOPE_NOTE, renderScope, renderUnscannedScope, renderVerdict} from '../cli/render-scope.js'
import {runTriage, TriageStopped, type TriageResult} from '../triage/run-triage.js'
import {partialIngest, notReadWholeError, unreadEntriesError} from '../ingest/ingest-logs.js'
import type {GateVerdict} from '../detect/gate.js'
import {CliError, GateTripped, InputError, IntegrityError} from '../errors.js'
import {safeLine} from '../util/sanitize.js'
import {lookAlikeWarnings, scopeTenants} from '../cli/look-alike.js'
import {registeredTenantIds} from '../store/canaries.js'
import {count} from '../cli/plural.js'
import {PROVENANCE_STALE_SCOPE_NOTE, provenancelessScope, registrylessCategories, registrylessScope, unscannedScope, type ProvenancelessScope, type RegistrylessScope, type UnscannedScope} from '../scope/unscanned.js'
import {nothingSearched} from '../detect/coverage.js'
import {knownScanSummary, scanJson, type ScanJson} from '../detect/scan-case.js'

export type {TriageResult} from '../triage/run-triage.js'

/** What a triage stopped during its scan or scope kept, and how to go on. */
function interruptedLaterMessage(stopped: TriageStopped, sig: NodeJS.Signals | null): string {
  const by = sig ? ` by ${sig}` : ''
  const ingested = `${count(stopped.ingest.files, 'file')} ingested completely and kept (${count(stopped.ingest.records, 'new record')})`
  if (stopped.during === 'scan') {
    return `Interrupted${by} during the scan: ${ingested}; the scan did not finish, and the case reads as not completely scanned (status, verify and --fail-on-leak say so) until a scan finishes. Run scan, or the same command again.`
  }
  const scan = stopped.scan
  const found = scan === null ? '' : ` (${count(scan.records_total, 'record')} scanned; ${scan.canaries === 0 ? 'no canary registry' : `${count(scan.contaminated_responses, 'contaminated response')}`})`
  return `Interrupted${by} during scope: ${ingested}; the scan finished and is stored${found}; the scope was not computed. Run scope to see it.`
}

export default class Triage extends BaseCommand {
  static override summary = 'First hour of an incident in one command: ingest the registry and the logs, scan, scope.'
  static override description = `Does what \`ingest canaries\`, \`ingest logs\`, \`scan\` and \`scope\` do, in that order and in one process, into the same case database: the registry is read first so that markers outside the CANARY-<hex> convention are matched while the logs are parsed. Into a case with no registry yet, a registry of ordinary size (up to 24 MB, about 250,000 markers, for a plain CSV read by the native addon; up to 8 MB otherwise) is checked in memory, the quick verdict is given against it, and it is stored once that pass is over, before the first log record (a registry file rewritten in between refuses the run). Safe to re-run as more logs arrive: files already in the case are skipped and the scan is incremental.

The canary verdict (contaminated responses by class, the largest flows, first and last seen) is printed first. On a case with no logs yet it comes from a quick pass before ingest (markers only, by the rules ingest and scan apply); once the scan has classified every record it is checked against the case, and a difference fails the run (exit 1). Otherwise it is printed as soon as the scan has classified the markers. Canary-less provenance, personal data and scope follow and never change it; --fail-on-leak decides its exit code on it, and then on provenance: a response found repeating another session's text verbatim trips the gate (exit 3) after a verdict that found no marker, and says so. The command ends once the case is complete.

PATHS are read as \`ingest logs\` reads them: a directory is walked for ${WALKED_FILES}. Triage again on the same case as logs grow: a file already in the case adds nothing, and one appended to since is read from where its stored version ends (its new lines only; the file counts once). A walked file that may hold a log and is not read (a broken link, a FIFO or device, a log compressed other than gzip, UTF-16 text, a file that may not be read), whatever its name, is a warning, keeps --fail-on-leak from passing, and makes the command exit 1 once the case is complete (as \`ingest logs\` does; 3 where the gate tripped); a file that is not a log by its name nor its first bytes (a README, .DS_Store, a checksum list) is skipped with a warning line and fails no gate.

--json prints {canaries, ingest, scan, scope, timings_ms, verdict}, each step exactly what its own command prints with --json; verdict is {basis: quick|scan, confirmed_by_scan}; timings_ms.verdict is when the verdict was known.

Ctrl-C (SIGINT) or SIGTERM before the scan stops triage at the next unit of the logs (a registry being read goes in whole first): the command says what was kept, records it in the audit log and exits 130 (143); nothing is scanned. During the scan it stops triage at the scan's next phase or page of records: the logs ingested stay in the case (audited), the scan's unfinished run leaves the case not completely scanned (status, verify and --fail-on-leak say so) until the next \`scan\` or \`triage\` finishes one, and the command says so and exits 130 (143). During scope (which writes nothing) it stops triage with the scan stored and audited, and exits the same way; \`scope\` then gives what triage would have printed. Under --json an interrupted triage prints {interrupted: true, ingest}.`
  static override examples = [
    '<%= config.bin %> triage ./gateway-logs/ --canaries canaries.csv --db case.db',
    '<%= config.bin %> triage logs/ --canaries canaries.csv --pool-tokens 681280 --advertised-tokens 1048576 --json',
    '<%= config.bin %> triage logs/ --canaries canaries.csv --fail-on-leak   # CI: exit 3 when contamination is found (by marker or by verbatim text)',
  ]

  static override strict = false
  // Its registry and verdict pass run with V8's own heap growth; ingest bounds it (ingest-logs.ts).
  static override boundsHeapLater = true
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    db: dbFlag,
    canaries: Flags.string({description: 'canary registry (CSV or JSON Lines) to ingest first', helpValue: 'FILE'}),
    ...logIngestFlags,
    'pool-tokens': Flags.integer({description: 'KV pool size in tokens: status-200 responses with prompt_tokens >= N are at risk', min: 1, max: Number.MAX_SAFE_INTEGER}),
    'advertised-tokens': Flags.integer({description: 'advertised context length (needs --pool-tokens)', min: 1, max: Number.MAX_SAFE_INTEGER, dependsOn: ['pool-tokens']}),
    'no-provenance': Flags.boolean({description: 'skip canary-less provenance (markers, PII and at-risk only)'}),
    'no-quick-verdict': Flags.boolean({description: 'skip the markers-only pass before ingest (one parse of every line less); the verdict then comes after the scan has classified the markers'}),
    ...leakGateFlags,
  }

  async run(): Promise<
    | (Omit<TriageResult, 'scope' | 'scan'> & {scan: ScanJson; scope: TriageResult['scope'] | UnscannedScope | RegistrylessScope | ProvenancelessScope<RegistrylessScope> | ProvenancelessScope<TriageResult['scope']>})
    | {interrupted: true; ingest: TriageResult['ingest']}
  > {
    const {argv, flags} = await this.parse(Triage)
    const parsed = parseIngestFlags(flags)
    const db = this.openCase(flags.db, {create: true})
    // How the logs are kept: decided once, before anything is ingested (the audit entry says the same).
    const evidence = evidenceFor(db, flags.evidence)
    const progress = this.jsonEnabled() ? undefined : ingestProgressBar()
    const interrupts = watchInterrupts()
    let result: TriageResult
    // Decided on the canary verdict, when it is known; acted on when the case is complete.
    let gate: GateVerdict | null = null
    let mismatch: string | null = null
    const gateNote = (line: string) => this.note(line.replace(/^Gate:/, this.paint.red('Gate:')))
    try {
      result = await runTriage(
        db,
        {
          paths: argv as string[], canaries: flags.canaries, logFormat: parsed.logFormat, parse: parsed.parse, source: flags.source,
          evidenceCodec: flags['compress-evidence'] ? 'deflate' : 'raw', evidence,
          poolTokens: flags['pool-tokens'], advertisedTokens: flags['advertised-tokens'], skipProvenance: flags['no-provenance'], quickVerdict: !flags['no-quick-verdict'], now: () => new Date(),
          onIngestProgress: progress, signal: interrupts.signal,
          onFormat: (d) => {
            if (progress) clearProgress()
            this.note(safeLine(describeDecision(d)))
          },
          onScanProgress: this.jsonEnabled() ? undefined : scanProgressLine(),
          onVerdict: (v) => {
            if (!this.jsonEnabled()) {
              clearProgress()
              this.log(`${renderVerdict(v)}\n`)
            }
            gate = decideLeakGate(db, v, flags, gateNote)
          },
          onVerdictMismatch: (q, full) => {
            mismatch = `the quick canary verdict (${q.contaminated_responses} contaminated responses, ${q.flows.length} flows, ${q.unreadable_files.length} files it cannot pass on) differs from the scan's (${full.contaminated_responses}, ${full.flows.length} flows, ${full.unreadable_files.length} files); the scan's figures below are the case's. Please report this`
            if (!this.jsonEnabled()) clearProgress()
            this.note(this.paint.red(`error: ${mismatch}`))
            gate = decideLeakGate(db, full, flags, gateNote)
          },
        },
        // Each step is audited as soon as it has changed the case, so a later failure leaves no unrecorded change.
        (s) => {
          if (progress) clearProgress()
          if (s.step === 'canaries') this.audit(db, {step: 'ingest canaries', canaries: flags.canaries}, {file: s.result.file, sha256: s.result.sha256, status: s.result.status, added: s.result.added})
          else if (s.step === 'ingest') {
            this.audit(db, {step: 'ingest logs', ...ingestAuditArgs(argv as string[], parsed, flags.source, evidence)}, ingestAuditSummary(s.result, db))
          } else {
            const {timings_ms: _t, provenance_stats: _p, ...summary} = s.result
            this.audit(db, {step: 'scan', 'pool-tokens': flags['pool-tokens'] ?? null, 'advertised-tokens': flags['advertised-tokens'] ?? null, 'no-provenance': flags['no-provenance']}, knownScanSummary(summary))
          }
        },
      )
    } catch (error) {
      if (error instanceof TriageStopped) {
        // What was kept (the ingest, and a finished scan) is audited already.
        if (progress) clearProgress()
        for (const w of error.ingest.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
        const sig = interrupts.received()
        this.note(error.during === 'ingest' ? interruptedMessage(error.ingest, sig) : interruptedLaterMessage(error, sig))
        process.exitCode = signalExitCode(sig ?? 'SIGINT')
        return {interrupted: true, ingest: error.ingest}
      }
      // A file refused ends triage before the scan: the ingest's warnings (the walk's broken links,
      // FIFOs, other compressions, empty files, byte-order marks) are printed before its error, as
      // `ingest logs` prints them; they were dropped, leaving the unread entries unnamed.
      const refusedIngest = (error as {ingest?: TriageResult['ingest']} | null)?.ingest
      if (refusedIngest) {
        if (progress) clearProgress()
        for (const w of refusedIngest.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
      }
      // What a failed ingest stored (files, the sources it did not read) is recorded all the same.
      const partial = partialIngest(error)
      if (partial) this.audit(db, {step: 'ingest logs', ...ingestAuditArgs(argv as string[], parsed, flags.source, evidence)}, {...ingestAuditSummary(partial, db), failed: (error as Error).message})
      // "Gate: contamination found" was printed before the failure (provenance's, say): the contract's 3 stands, the failure is still said.
      if ((gate as GateVerdict | null)?.tripped) throw trippedFailure(error, [db.name])
      throw error
    } finally {
      interrupts.dispose()
      if (progress) clearProgress()
    }
    const {canaries, ingest, scan, scope} = result
    // --no-provenance over new records leaves provenance stale: its figures are unknown, never 0.
    const provenanceKnown = scope.detection.provenance === 'current'
    // Nothing searched (no log record was read, so the scan searched nothing): every figure of
    // detection is unknown, never 0, as `scope` gives it; the drafts refuse such a case.
    const searched = !nothingSearched(scope.detection)
    if (!provenanceKnown && this.jsonEnabled()) this.note(this.paint.yellow(`warning: ${PROVENANCE_STALE_SCOPE_NOTE.replace('below are not known', 'are null (not known)')}`))
    for (const w of ingest.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
    for (const w of lookAlikeWarnings(scopeTenants(scope, registeredTenantIds(db)))) this.note(this.paint.yellow(`warning: ${w}`))
    const beforeIssued = datedBeforeIssuedWarning(db)
    if (beforeIssued !== null) this.note(this.paint.yellow(`warning: ${beforeIssued}`))
    if (!this.jsonEnabled()) {
      this.log(`Ingested ${count(ingest.files, 'file')}: ${count(ingest.records, 'new record')}, ${count(ingest.duplicates, 'duplicate')}, ${count(ingest.bad_lines, 'bad line')} quarantined${canaries ? `; ${count(canaries.added, 'canary', 'canaries')} registered (${canaries.already_registered} already)` : ''}.\n`)
      if (result.verdict.confirmed_by_scan) this.log('The scan confirmed the canary verdict printed above.\n')
      // The verdict judged each request's record (its first line); a retry under the same id that leaks is named, never left behind "no response carried ...".
      const retries = scope.duplicate_leaks_not_counted.length
      if (retries > 0) this.log(`But ${count(retries, 'line repeats', 'lines repeat')} a request_id already in the case with an answer carrying another session's marker (a retry): not in the verdict above nor in any figure below (see NOT COUNTED).\n`)
      this.log(renderScan(scan))
      this.log('')
      if (scan.canaries === 0) this.log(`${NO_REGISTRY_SCOPE_NOTE}\n`)
      if (!searched) this.log(renderUnscannedScope(unscannedScope(scope)))
      else {
        if (!provenanceKnown) this.log(`${PROVENANCE_STALE_SCOPE_NOTE}\n`)
        this.log(renderScope(scan.canaries > 0 ? scope : {...scope, data_categories: registrylessCategories(scope.data_categories)}, {registry: scan.canaries > 0, provenance: provenanceKnown}))
      }
    }
    // A quick verdict the scan contradicted fails the run whatever the gate says.
    if (mismatch) throw new IntegrityError(mismatch)
    // The verdict was decided on the same sightings; a scan that skipped the hook (none) decides here.
    // A quick verdict came before ingest: the lines ingest kept as differing duplicates are judged now.
    if (gate && result.verdict.basis === 'quick') gate = mergeVerdicts(gate, decideDuplicatesGate(db, flags, gateNote))
    // A log that grew after it was read (its new lines never judged) fails the gate now, whenever the verdict was decided.
    const markersGate = (gate as GateVerdict | null) ?? decideLeakGate(db, scan, flags, gateNote)
    // The verdict was decided on the markers, before provenance ran: a response provenance found
    // carrying another session's text verbatim trips the gate now (exit 3), as it does scan's.
    const textGate = decideTextLeakGate(flags['fail-on-leak'] && provenanceKnown && searched ? textLeakCounts(db) : null, markersGate, flags, gateNote)
    const verdict = finalTriageGate(db, mergeVerdicts(markersGate, textGate), flags, gateNote)
    enforceLeakGate(verdict)
    // --json: scope as `scope --json` prints it (the markers' counts unknown without a registry).
    // The scan as `scan --json` prints it (scanJson: counts unknown where nothing was searched).
    const scanOut = scanJson(db, scan)
    const out = !searched
      ? {...result, scan: scanOut, scope: unscannedScope(scope)}
      : !provenanceKnown
      ? (scan.canaries === 0 ? {...result, scan: scanOut, scope: provenancelessScope(registrylessScope(scope))} : {...result, scan: scanOut, scope: provenancelessScope(scope)})
      : (scan.canaries === 0 ? {...result, scan: scanOut, scope: registrylessScope(scope)} : {...result, scan: scanOut})
    // An entry the walk reached and could not read (a broken link, a FIFO, a .zst) fails the run
    // once the case is complete, gate or none, as it fails `ingest logs` on the same paths: it
    // exited 0 with a warning, so a script saw success over a log never read. A tripped gate's 3 stands.
    // Under --json the error object carries, as its details, the document triage would have printed.
    const unread = [unreadEntriesError(ingest), notReadWholeError(ingest)].filter(Boolean).join('; ')
    if (unread && !verdict?.tripped) throw new InputError(unread, 'E_NOT_READ').withDetails(out)
    return out
  }
}

/**
 * A failure after the gate tripped, as exit 3 with its own message and code. SQLite's and Node's
 * errors are first worded as the base command words them (a full disk names the case).
 */
function trippedFailure(error: unknown, cases: readonly string[]): CliError {
  const e = error instanceof Error ? (diskFullError(error, cases) ?? caseWriteError(error, cases) ?? error) : new Error(String(error))
  const code = e instanceof CliError ? e.code : typeof (e as {code?: unknown}).code === 'string' ? String((e as {code?: unknown}).code) : 'E_FAILED'
  const tripped = new CliError(e.message, code, new GateTripped('').exit)
  return e instanceof CliError && e.details !== undefined ? tripped.withDetails(e.details) : tripped
}
