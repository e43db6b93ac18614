import {giveOtherTenantLabels} from '../scope/tenant-view.js'
import {datedBeforeIssuedWarning, textLeakCounts} from '../store/findings.js'
import {Flags, type Interfaces} from '@oclif/core'
import {applyLeakGate, leakGateFlags} from '../cli/leak-gate.js'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {clearProgress, scanProgressLine} from '../cli/progress.js'
import {notReadEvidence, notReadSentence} from '../detect/not-read.js'
import {renderScan} from '../cli/render-detect.js'
import {knownScanSummary, registryChangedSinceScan, scanCaseUntil, scanJson, ScanStopped, type ScanJson, type ScanOptions, type ScanResult} from '../detect/scan-case.js'
import {CliError, InputError} from '../errors.js'
import {MAX_BOILERPLATE_TENANTS, MAX_MIN_WORDS} from '../extract/winnow.js'
import type {CaseDb} from '../store/open-case.js'
import {scanOnWorker, scanWorkerScript} from '../detect/scan-thread.js'
import {answerInterrupts, watchInterrupts} from '../cli/interrupt.js'

export default class Scan extends BaseCommand {
  static override description =
    'Find canary markers, canary-less provenance, personal data the recipient never sent and over-pool requests in every response (incremental).'

  static override examples = [
    '<%= config.bin %> scan --db case.db',
    '<%= config.bin %> scan --pool-tokens 131072 --advertised-tokens 200000 --json',
    '<%= config.bin %> scan --fail-on-leak   # CI gate: exit 3 on any cross-session or cross-tenant sighting, or another session\'s text repeated verbatim',
  ]

  static override flags = {
    db: dbFlag,
    ...leakGateFlags,
    'pool-tokens': Flags.integer({description: 'KV pool size in tokens: status-200 responses with prompt_tokens >= N are flagged at-risk.', min: 1, max: Number.MAX_SAFE_INTEGER}),
    'advertised-tokens': Flags.integer({description: 'Advertised context length (needs --pool-tokens).', min: 1, max: Number.MAX_SAFE_INTEGER, dependsOn: ['pool-tokens']}),
    'min-words': Flags.integer({description: `Shortest verbatim overlap (words) that counts as provenance; at least 12, the run the word fingerprints always find, and at most ${MAX_MIN_WORDS}.`, default: 12, max: MAX_MIN_WORDS}),
    'boilerplate-tenants': Flags.integer({description: 'Text found in this many tenants is boilerplate, never evidence.', default: 3, min: 2, max: MAX_BOILERPLATE_TENANTS}),
    'no-provenance': Flags.boolean({description: 'Skip canary-less provenance (markers, PII and at-risk only).'}),
  }

  public async run(): Promise<ScanJson> {
    const {flags} = await this.parse(Scan)
    const db = this.openCase(flags.db)
    const now = new Date()
    const progress = this.jsonEnabled() ? undefined : scanProgressLine()
    const options = {
      poolTokens: flags['pool-tokens'],
      advertisedTokens: flags['advertised-tokens'],
      provenance: {minWords: flags['min-words'], boilerplateTenants: flags['boilerplate-tenants']},
      skipProvenance: flags['no-provenance'],
    }
    try {
      return await this.scan(db, flags, now, progress, options)
    } catch (error) {
      // The gate names why it cannot pass: the registry it would judge against is not the one the scan used.
      if (flags['fail-on-leak'] && error instanceof CliError && error.code === 'E_REGISTRY_CHANGED') throw new InputError(`--fail-on-leak cannot pass: ${error.message}`, error.code)
      throw error
    }
  }

  private async scan(db: CaseDb, flags: Interfaces.InferredFlags<typeof Scan.flags>, now: Date, progress: ReturnType<typeof scanProgressLine> | undefined, options: Pick<ScanOptions, 'poolTokens' | 'advertisedTokens' | 'provenance' | 'skipProvenance'>): Promise<ScanJson> {
    const script = scanWorkerScript()
    let result: ScanResult
    const interruptedLine = (sig: NodeJS.Signals): string =>
      `scan interrupted (${sig}): what it stored stays, and the case reads as not completely scanned (status, verify and --fail-on-leak say so) until a scan finishes; run scan again`
    if (script === null) {
      // On the main thread (no worker threads): a signal is seen between the scan's phases and pages of records.
      const interrupts = watchInterrupts()
      try {
        result = await scanCaseUntil(db, {
          now, ...options, onProgress: progress,
          // Stored with the scan, in its last transaction.
          record: (r) => {
            const {timings_ms: _t, provenance_stats: _p, ...summary} = r
            this.audit(db, {flags}, knownScanSummary(summary), now)
          },
        }, interrupts.signal)
      } catch (error) {
        if (!(error instanceof ScanStopped)) throw error
        if (progress) clearProgress()
        const sig = interrupts.received() ?? 'SIGINT'
        this.note(interruptedLine(sig))
        // Ended by the signal, as the scan on a worker thread ends (the shell sees 130 or 143).
        interrupts.dispose()
        process.kill(process.pid, sig)
        return await new Promise<never>(() => {})
      } finally {
        interrupts.dispose()
      }
    } else {
      // On its own thread, so that Ctrl-C is answered at once (scan-thread.ts).
      const stop = answerInterrupts((sig) => {
        if (progress) clearProgress()
        return interruptedLine(sig)
      })
      try {
        result = await scanOnWorker(script, {path: db.name, now: now.toISOString(), ...options, progress: progress !== undefined, audit: {command: this.id ?? 'scan', args: {argv: this.argv, flags}, version: this.config.version}}, {onProgress: progress})
      } finally {
        stop()
      }
    }
    if (progress) clearProgress()
    // Changed after the scan was stored and before its gate: the findings are not of the registry now.
    const changed = registryChangedSinceScan(db, result.canaries)
    if (changed !== null) throw changed
    // The other customers' labels are given as the scan that found them finishes, and kept (phased notices name a customer alike).
    giveOtherTenantLabels(db, now)
    if (!this.jsonEnabled()) {
      this.log(renderScan(result))
      // The counts above are of what was read: what was not is named with them, as the gate below fails on it.
      const notRead = notReadSentence(notReadEvidence(db))
      if (notRead !== null) this.log(notRead)
    }
    const beforeIssued = datedBeforeIssuedWarning(db)
    if (beforeIssued !== null) this.note(this.paint.yellow(`warning: ${beforeIssued}`))
    // Provenance's findings, where current, trip the gate as markers do (a response carrying another session's text verbatim).
    const textLeaks = flags['fail-on-leak'] && result.provenance_matches !== null ? textLeakCounts(db) : null
    applyLeakGate(db, {...result, text_leaks: textLeaks}, flags, (line) => this.note(line.replace(/^Gate:/, this.paint.red('Gate:'))))
    return scanJson(db, result)
  }
}
