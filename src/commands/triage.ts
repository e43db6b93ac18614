import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {ingestLogsCommand, logIngestFlags, parseMapFlag} from '../cli/ingest-flags.js'
import {renderScan} from '../cli/render-detect.js'
import {renderScope} from '../cli/render-scope.js'
import {safeLine} from '../cli/sanitize.js'
import {fullGc} from '../detect/provenance.js'
import {scanCase, type ScanResult} from '../detect/scan-case.js'
import {GateTripped} from '../errors.js'
import {ingestCanaries, type IngestCanariesResult} from '../ingest/ingest-canaries.js'
import type {IngestLogsResult} from '../ingest/ingest-logs.js'
import {computeScope, type ScopeResult} from '../scope/compute-scope.js'
import {count} from '../cli/plural.js'

export interface TriageResult {
  canaries: IngestCanariesResult | null
  ingest: IngestLogsResult
  scan: ScanResult
  scope: ScopeResult
  timings_ms: {canaries: number; ingest: number; scan: number; scope: number; total: number}
}

export default class Triage extends BaseCommand {
  static override summary = 'First hour of an incident in one command: ingest the registry and the logs, scan, scope.'
  static override description = `Does what \`ingest canaries\`, \`ingest logs\`, \`scan\` and \`scope\` do, in that order and in one process, into the same case database: the registry goes in first so that markers outside the CANARY-<hex> convention are matched while the logs are parsed. Safe to re-run as more logs arrive: files already in the case are skipped and the scan is incremental.

--json prints {canaries, ingest, scan, scope, timings_ms}, each part exactly what its own command prints with --json.`
  static override examples = [
    '<%= config.bin %> triage ./gateway-logs/ --canaries canaries.csv --db case.db',
    '<%= config.bin %> triage logs/ --canaries canaries.csv --pool-tokens 681280 --advertised-tokens 1048576 --json',
    '<%= config.bin %> triage logs/ --canaries canaries.csv --fail-on-leak   # CI: exit 3 when contamination is found',
  ]

  static override strict = false
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    db: dbFlag,
    canaries: Flags.string({description: 'canary registry (CSV or JSON Lines) to ingest first', helpValue: 'FILE'}),
    ...logIngestFlags,
    'pool-tokens': Flags.integer({description: 'KV pool size in tokens: status-200 responses with prompt_tokens >= N are at risk', min: 1}),
    'advertised-tokens': Flags.integer({description: 'advertised context length (needs --pool-tokens)', min: 1, dependsOn: ['pool-tokens']}),
    'no-provenance': Flags.boolean({description: 'skip canary-less provenance (markers, PII and at-risk only)'}),
    'fail-on-leak': Flags.boolean({description: 'exit 3 when any cross_session or cross_tenant sighting exists'}),
  }

  async run(): Promise<TriageResult> {
    const {argv, flags} = await this.parse(Triage)
    const map = parseMapFlag(flags.map)
    let db = this.openCase(flags.db, {create: true})
    const now = (): Date => new Date()
    const t0 = performance.now()
    const canaries = flags.canaries ? await ingestCanaries(db, {path: flags.canaries, now}) : null
    const t1 = performance.now()
    if (canaries) {
      // Likewise between the registry and the logs: each step starts from a clean slate.
      db.close()
      fullGc()
      db = this.openCase(flags.db)
    }
    const ingest = await ingestLogsCommand(db, argv as string[], map, flags, this.jsonEnabled())
    const t2 = performance.now()
    // Ingest's garbage (parse results, the request-id table) and its connection's page cache
    // are released before the scan builds its own index, so the two peaks do not stack.
    db.close()
    fullGc()
    db = this.openCase(flags.db)
    const scan = scanCase(db, {now: now(), poolTokens: flags['pool-tokens'], advertisedTokens: flags['advertised-tokens'], skipProvenance: flags['no-provenance']})
    const t3 = performance.now()
    // And the scan's (its provenance index, its evidence reads) before scope's queries.
    db.close()
    fullGc()
    db = this.openCase(flags.db)
    const scope = computeScope(db, {poolTokens: flags['pool-tokens'], advertisedTokens: flags['advertised-tokens']})
    const t4 = performance.now()
    const ms = (a: number, b: number): number => Math.round(b - a)
    const result: TriageResult = {canaries, ingest, scan, scope, timings_ms: {canaries: ms(t0, t1), ingest: ms(t1, t2), scan: ms(t2, t3), scope: ms(t3, t4), total: ms(t0, t4)}}
    this.audit(db, {paths: argv, canaries: flags.canaries ?? null, map: flags.map ?? [], source: flags.source}, {
      files: ingest.per_file.map((f) => ({path: f.path, sha256: f.sha256, status: f.status, records: f.records})),
      records: ingest.records, canaries_added: canaries?.added ?? null, contaminated_responses: scan.contaminated_responses,
    })
    for (const w of ingest.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
    if (!this.jsonEnabled()) {
      this.log(`Ingested ${count(ingest.files, 'file')}: ${count(ingest.records, 'new record')}, ${count(ingest.duplicates, 'duplicate')}, ${count(ingest.bad_lines, 'bad line')} quarantined${canaries ? `; ${count(canaries.added, 'canary', 'canaries')} registered (${canaries.already_registered} already)` : ''}.\n`)
      this.log(renderScan(scan))
      this.log('')
      this.log(renderScope(scope))
    }
    if (flags['fail-on-leak'] && scan.contaminated_responses > 0) {
      const gate = new GateTripped(`contamination found: ${scan.contaminated_responses} responses (${scan.cross_tenant_responses} cross-tenant, ${scan.cross_session_responses} cross-session)`)
      this.note(`${this.paint.red('Gate:')} ${gate.message}`)
      process.exitCode = gate.exit
    }
    return result
  }
}
