import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {toCsv} from '../cli/csv.js'
import {duplicateLeaksNote, duplicatesNotExaminedNote, NO_REGISTRY_SCOPE_NOTE, renderScope, renderTenantView, renderUnscannedScope, SCOPE_CSV_TABLES, tenantPiiOnlyNote, tenantRetriesNote, tenantUnexaminedNote, scopeCsvTables, tenantCsvTable, type ScopeCsvTable} from '../cli/render-scope.js'
import {notReadEvidence, notReadSentence, type NotRead} from '../detect/not-read.js'
import {wrap} from '../cli/text-width.js'
import {checkDetection, detectionFlags} from '../cli/detection-flags.js'
import {InputError, UsageError} from '../errors.js'
import {computeScope} from '../scope/compute-scope.js'
import {loadScopeInputs} from '../scope/scope-data.js'
import {
  exposureKnown, knownScope, knownTenantView, PROVENANCE_STALE_SCOPE_NOTE, markersStaleReason, markersStaleScopeNote, registrylessCategories, registrylessTenantView, staleFindings, staleFindingsReason, unscannedScope,
  type KnownScope, type KnownTenantView,
} from '../scope/unscanned.js'
import {computeTenantView} from '../scope/tenant-view.js'
import {tenantHasRecords, tenantIdsWithRecords} from '../store/records.js'
import {tenantRecordsScanned} from '../store/scan-runs.js'
import {count} from '../util/plural.js'
import {hasCanaries, registeredTenantIds} from '../store/canaries.js'
import {lookAlikeWarnings, scopeTenants} from '../cli/look-alike.js'
import {describeGap, nothingSearched, nothingSearchedStep, type DetectionCoverage} from '../detect/coverage.js'
import {quoted} from '../util/sanitize.js'

export default class Scope extends BaseCommand {
  static override description =
    'How far the leak went: contaminated responses, exposed sessions and tenants, tenant-to-tenant flows, first and last seen, and Art. 33(3)(a) estimates of data subjects and records, each with its method.'

  static override examples = [
    '<%= config.bin %> scope --pool-tokens 681280 --advertised-tokens 1048576',
    '<%= config.bin %> scope --json --pool-tokens 681280',
    '<%= config.bin %> scope --csv --table nodes > nodes.csv',
    '<%= config.bin %> scope --csv --table matrix > flows-matrix.csv',
    '<%= config.bin %> scope --tenant acme --csv > acme.csv',
  ]

  static override flags = {
    db: dbFlag,
    csv: Flags.boolean({description: 'Print one table as CSV (formula-safe) instead of the report.'}),
    table: Flags.string({description: 'Table for --csv: flows (one row per tenant pair, canary markers), exposure (one row per tenant pair, marker or verbatim text), matrix (source x recipient tenants, markers), nodes or hours; default flows. The tenant view has one table.', options: [...SCOPE_CSV_TABLES], dependsOn: ['csv'], exclusive: ['tenant']}),
    'pool-tokens': Flags.integer({description: 'Prefill KV pool size: status-200 responses with prompt_tokens >= N are at risk (default: the size `scan --pool-tokens` recorded in the case).', min: 1, max: Number.MAX_SAFE_INTEGER}),
    'advertised-tokens': Flags.integer({description: 'Advertised context window (reported: responses at or over it).', min: 1, max: Number.MAX_SAFE_INTEGER}),
    ...detectionFlags,
    tenant: Flags.string({description: "One tenant's view: what it received and what of its reached others."}),
    'reveal-tenants': Flags.boolean({description: 'With --tenant: name the other tenants instead of opaque labels.'}),
  }

  public async run(): Promise<(KnownScope & {not_read: NotRead}) | KnownTenantView | IncompleteTenantView> {
    const {flags} = await this.parse(Scope)
    if (flags.csv && this.jsonEnabled()) throw new UsageError('--csv and --json are exclusive')
    // checked here rather than with oclif's dependsOn, whose message is several lines long
    if (flags['reveal-tenants'] && flags.tenant === undefined) throw new UsageError('--reveal-tenants only applies with --tenant T')
    const db = this.openCase(flags.db, {readsOnly: true})
    const inputs = loadScopeInputs(db, {poolTokens: flags['pool-tokens'], advertisedTokens: flags['advertised-tokens']})
    if (flags['advertised-tokens'] !== undefined && flags['pool-tokens'] === undefined) {
      // A window is judged at a pool: the one the scan recorded where no --pool-tokens is given, said so (pool_basis 'recorded' in --json).
      if (inputs.pool === null) throw new UsageError('--advertised-tokens needs --pool-tokens: no scan recorded a pool size in this case (scan --pool-tokens N)')
      this.note(`scope: --advertised-tokens ${flags['advertised-tokens']} judged at the pool size the scan recorded (${inputs.pool} tokens); --pool-tokens N for another`)
    }
    const warning = checkDetection(inputs.detection, 'scope', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    if (flags.tenant !== undefined && nothingSearched(inputs.detection)) {
      // Every figure of a tenant's view is detection's: none is known yet, and none is printed as 0.
      throw new InputError(`--tenant ${flags.tenant}: ${describeGap(inputs.detection)}: nothing is known yet of what this tenant received or sent; run \`${nothingSearchedStep(inputs.detection)}\` first`, 'E_NOT_SCANNED')
    }
    // Without a registry the markers' figures count nothing: said on the console, null in --json;
    // so are the figures of findings that do not cover the case (knownScope, knownTenantView).
    const registry = hasCanaries(db)
    const stale = staleFindings(inputs.detection)
    const markersKnown = registry && !stale.markers
    if (flags.tenant !== undefined) {
      const view = computeTenantView(inputs, {tenant: flags.tenant, revealTenants: flags['reveal-tenants']}, {has: (t) => tenantHasRecords(db, t), ids: () => tenantIdsWithRecords(db)})
      // Detection that does not cover the case (--allow-incomplete): the view counts what was scanned. Its figures are then a
      // lower bound, said as one (--json: `detection`, `counts_lower_bound`, `records_not_scanned`); where none of this
      // tenant's records was scanned, what it received is not known at all (null), never 0.
      const coverage = tenantCoverage(db, flags.tenant, inputs.detection)
      const known = coverage.complete ? knownTenantView(view, inputs.detection, registry, inputs.orphans) : incompleteTenantView(knownTenantView(view, inputs.detection, registry, inputs.orphans), coverage, inputs.detection)
      const incompleteLine = coverage.complete ? null : incompleteTenantLine(flags.tenant, inputs.detection, coverage)
      if (incompleteLine !== null && flags.csv) {
        if (coverage.nothingReceivedSearched) throw new InputError(`--tenant ${flags.tenant} --csv: no record of this tenant was scanned (${describeGap(inputs.detection)}), so the counts of this table are not known; run \`crosstalk scan\` first`, 'E_NOT_SCANNED')
        this.note(this.paint.yellow(`${incompleteLine}. The CSV counts what was scanned.`))
      }
      // The CSV counts records: a leaking retry of this tenant's is said beside it on stderr, as sightings says its own (--json has the key).
      const retries = tenantRetriesNote(view.retry_leaks_not_counted)
      if (retries !== null && flags.csv) this.note(this.paint.yellow(retries))
      const unexamined = tenantUnexaminedNote(view.duplicate_lines_not_examined)
      if (unexamined !== null && flags.csv) this.note(this.paint.yellow(unexamined))
      // What was never read holds what no count of the CSV can: said beside it, as the console says it.
      const notReadLine = notReadSentence(notReadEvidence(db))
      if (notReadLine !== null && flags.csv) this.note(this.paint.yellow(`${notReadLine} The CSV counts what was read.`))
      // Personal data matched by value only is in no count of the CSV: said beside it, as the console says it.
      if (flags.csv && !stale.markers && !stale.provenance) {
        for (const side of ['received', 'leaked'] as const) {
          const n = view[side].pii_attributed_only_responses ?? 0
          if (n > 0) this.note(this.paint.yellow(tenantPiiOnlyNote(n, side)))
        }
      }
      if (flags.csv) {
        if (stale.markers || stale.provenance) throw new InputError(`--tenant ${flags.tenant} --csv: ${staleFindingsReason(stale)}, so this table's counts are not known; run \`crosstalk scan\` first`, 'E_NOT_SCANNED')
        const t = tenantCsvTable(registry ? view : registrylessTenantView(view), {exposure: exposureKnown(registry, inputs.orphans)})
        process.stdout.write(toCsv(t.columns, t.rows))
      } else if (!this.jsonEnabled()) {
        if (!registry) this.log(`${NO_REGISTRY_SCOPE_NOTE}\n`)
        else if (stale.markers) this.log(`${markersStaleScopeNote(stale.markers_cause ?? 'registry')}\n`)
        if (stale.provenance) this.log(`${PROVENANCE_STALE_SCOPE_NOTE}\n`)
        if (incompleteLine !== null) this.log(`${wrap(`${incompleteLine}.`)}\n`)
        // None of its records searched: its figures are unknown, never 0 (the other side's lower bounds go with them: one table).
        const searched = !coverage.nothingReceivedSearched
        this.log(renderTenantView(view, {registry: markersKnown && searched, provenance: !stale.provenance && searched, exposure: searched && !stale.markers && !stale.provenance && exposureKnown(registry, inputs.orphans)}))
      }
      // --json: what the stored findings cannot speak for is unknown, never 0.
      return known
    }
    const result = computeScope(inputs)
    for (const w of lookAlikeWarnings(scopeTenants(result, registeredTenantIds(db)))) this.note(this.paint.yellow(`warning: ${w}`))
    // What no figure counts because it was never read (quarantined lines, files not read whole): named, never taken as 0.
    const notRead = notReadEvidence(db)
    const known = {...knownScope(result, registry), not_read: notRead}
    if (nothingSearched(inputs.detection)) {
      // Allowed over a case never scanned: detection's counts are unknown, never printed as 0.
      if (flags.csv) throw new InputError(`${describeGap(inputs.detection)}: every count in the scope tables is unknown; run \`${nothingSearchedStep(inputs.detection)}\` first`, 'E_NOT_SCANNED')
      if (!this.jsonEnabled()) this.log(renderUnscannedScope(unscannedScope(result)))
      return known
    }
    // Allowed over a case whose findings do not cover it: their figures are unknown, never printed as 0.
    const provenanceKnown = !stale.provenance
    const table = (flags.table ?? 'flows') as ScopeCsvTable
    if (flags.csv && !provenanceKnown && ['exposure', 'nodes', 'hours'].includes(table)) {
      throw new InputError(`--table ${table}: canary-less provenance does not cover the case, so the verbatim-text counts of this table are not known; run \`crosstalk scan\` first`, 'E_NOT_SCANNED')
    }
    if (flags.csv && registry && stale.markers) {
      throw new InputError(`--table ${table}: ${markersStaleReason(stale.markers_cause ?? 'registry')}, so the marker counts of this table are not known; run \`crosstalk scan\` first`, 'E_NOT_SCANNED')
    }
    if (flags.csv) {
      // The markers' own tables count nothing without a registry: refused, as an unscanned case's are, rather than written empty.
      if (!registry && (table === 'flows' || table === 'matrix')) {
        throw new InputError(`--table ${table}: the case holds no canary registry, so no marker can be attributed and this table of marker flows cannot count anything; --table exposure gives the flows by verbatim text (crosstalk ingest canaries FILE)`, 'E_NO_REGISTRY')
      }
      // The CSV counts records: what it cannot count (a leaking retry, a line not read again, evidence never read) is said beside it on stderr, as the console says it.
      if (result.duplicate_leaks_not_counted.length > 0) this.note(this.paint.yellow(duplicateLeaksNote(result.duplicate_leaks_not_counted)))
      if (result.duplicate_lines_not_examined > 0) this.note(this.paint.yellow(duplicatesNotExaminedNote(result.duplicate_lines_not_examined)))
      const notReadLine = notReadSentence(notRead)
      if (notReadLine !== null) this.note(this.paint.yellow(`${notReadLine} The CSV counts what was read.`))
      const t = scopeCsvTables(result, {registry})[table]
      process.stdout.write(toCsv(t.columns, t.rows))
    } else if (!this.jsonEnabled()) {
      // The canary figures count markers of registered sessions: with no registry they count nothing, and say so first.
      if (!registry) this.log(`${NO_REGISTRY_SCOPE_NOTE}\n`)
      else if (stale.markers) this.log(`${markersStaleScopeNote(stale.markers_cause ?? 'registry')}\n`)
      if (!provenanceKnown) this.log(`${PROVENANCE_STALE_SCOPE_NOTE}\n`)
      // A registry changed since the scan leaves the exposure (markers and text together) unknown too.
      const notReadLine = notReadSentence(notRead)
      if (notReadLine !== null) this.log(`${wrap(`${notReadLine} The figures below count what was read.`)}\n`)
      // No registry: whether a verbatim-text response held a marker is not known, and its category says so.
      this.log(renderScope(registry ? result : {...result, data_categories: registrylessCategories(result.data_categories)}, {registry: markersKnown, provenance: provenanceKnown && !stale.markers, orphans: !stale.markers}))
    }
    // --json: what the markers count is unknown without a registry, never 0; so is what any finding counts where it does not cover the case.
    return known
  }
}

interface TenantCoverage {
  /** detection covered the whole case */
  complete: boolean
  /** this tenant's records in complete log files, and those no finished scan covered */
  records: number
  records_not_scanned: number
  /** none of this tenant's records was scanned: nothing it received was searched */
  nothingReceivedSearched: boolean
}

function tenantCoverage(db: Parameters<typeof tenantRecordsScanned>[0], tenant: string, detection: DetectionCoverage): TenantCoverage {
  if (detection.complete) return {complete: true, records: 0, records_not_scanned: 0, nothingReceivedSearched: false}
  const r = tenantRecordsScanned(db, tenant)
  return {complete: false, records: r.records, records_not_scanned: r.not_scanned, nothingReceivedSearched: r.records > 0 && r.not_scanned >= r.records}
}

/** The line said above the tenant view (console) or beside its CSV (stderr) when detection does not cover the case. */
function incompleteTenantLine(tenant: string, detection: DetectionCoverage, c: TenantCoverage): string {
  const own = c.records_not_scanned === 0 ? '' : c.nothingReceivedSearched
    ? `; no record of tenant ${quoted(tenant)} was scanned (${count(c.records, 'record')}), so what it received is not known`
    : `; ${c.records_not_scanned} of the ${count(c.records, 'record')} of tenant ${quoted(tenant)} ${c.records_not_scanned === 1 ? 'was' : 'were'} never scanned`
  return `Detection has not covered the whole case (${describeGap(detection)})${own}: every figure of this view counts what was scanned and is a lower bound, not a total`
}

type TenantDirectionOf<V> = V extends {received: infer D} ? D : never
type UnknownDirection<D> = {[K in keyof D]: D[K] extends number ? null : D[K] extends number | null ? null : D[K] extends string | null ? null : D[K] extends unknown[] ? [] : D[K] extends object ? UnknownDirection<D[K]> : D[K]}

/** Every figure of one direction of the view not known: numbers and instants null, no counterpart listed. */
function unknownDirection<D extends object>(d: D): UnknownDirection<D> {
  return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Array.isArray(v) ? [] : v !== null && typeof v === 'object' ? unknownDirection(v as object) : typeof v === 'number' || typeof v === 'string' || v === null ? null : v])) as UnknownDirection<D>
}

export type IncompleteTenantView = Omit<KnownTenantView, 'received'> & {
  received: KnownTenantView['received'] | UnknownDirection<TenantDirectionOf<KnownTenantView>>
  /** detection's coverage of the case, as every findings command gives it under --allow-incomplete */
  detection: DetectionCoverage
  /** the figures count what was scanned: each is a lower bound (null where not known at all) */
  counts_lower_bound: true
  /** this tenant's records that no finished scan covered */
  records_not_scanned: number
}

function incompleteTenantView(v: KnownTenantView, c: TenantCoverage, detection: DetectionCoverage): IncompleteTenantView {
  return {
    ...v,
    // None of its records searched: what it received is not known, never 0 (its own at-risk figures are not detection's: kept).
    received: c.nothingReceivedSearched ? unknownDirection(v.received) : v.received,
    detection,
    counts_lower_bound: true,
    records_not_scanned: c.records_not_scanned,
  }
}
