// Pure parts of the bench: statistics, accuracy, targets, the regression check and the
// Markdown table. No I/O here, so test/bench can exercise them without timing anything.

export interface Measurement {
  /** Median wall time over the runs, milliseconds. */
  wall_ms: number
  /** Every run's wall time, in run order. */
  runs_ms: number[]
  /** Highest peak RSS seen over the runs (max of the processes of one run), MiB. */
  peak_rss_mb: number | null
  records_per_s: number
  mb_per_s: number
}

export interface Accuracy {
  /** Responses (distinct request ids) the tool's answer points at. */
  claimed: number
  true_positives: number
  precision: number | null
  recall: number | null
}

export type StageName = 'ingest' | 'scan' | 'scope' | 'end_to_end' | 'triage'
export type PeerName = 'duckdb' | 'rg_regex' | 'rg_fixed'

export interface SizeResult {
  records: number
  seed: number
  log_bytes: number
  log_files: number
  truth_contaminated: number
  runs: number
  crosstalk: Partial<Record<StageName, Measurement>>
  peers: Partial<Record<PeerName, Measurement>>
  /** crosstalk end-to-end median / the peer's median. */
  ratios: Partial<Record<PeerName, number>>
  /** crosstalk triage (the same pipeline as one command) median / the peer's median. */
  triage_ratios?: Partial<Record<PeerName, number>>
  accuracy: Partial<Record<'crosstalk' | PeerName, Accuracy>>
  /** `scan --json` timings_ms of the last run: where scan spends its time. */
  scan_timings_ms?: Record<string, number>
  /** Why crosstalk has no figures at this size (a step failed, hung or ran over its limit). */
  crosstalk_failure?: string
  /** Sub-steps of the ingest stage, medians. */
  ingest_parts_ms?: {canaries: number; logs: number}
  /**
   * When triage had the canary verdict decided, median over the runs, milliseconds from its
   * start: its wall time less the work it does after classifying markers (provenance, PII
   * findings, at-risk, scope; from its own --json timings_ms.verdict). Triage prints the verdict
   * then, before the evidence work that follows it.
   */
  verdict_decided_ms?: number
  /** Bytes of the case (database and its WAL) after the last triage run, and per byte of log. */
  case_bytes?: number
  /**
   * `triage --evidence reference` (the plain files read where they lie; a .gz file is copied all
   * the same): its wall time (median), the case's bytes after the last run, and the bytes of the
   * .gz files it copied; whether it found exactly the copy's contaminated responses.
   */
  reference?: {triage_ms: number; case_bytes: number; gzip_log_bytes: number; same_findings: boolean}
}

export interface ScanScaling {
  records: number
  small_registry: number
  large_registry: number
  small_ms: number
  large_ms: number
  ratio: number
}

export interface Scope1m {
  records: number
  /** First computeScope of the case (builds its indexes). */
  first_ms: number
  /** Second computeScope (indexes present). */
  warm_ms: number
}

export interface Target {
  name: string
  /** null: not measured in this run (or a figure reported, not judged: see report). */
  pass: boolean | null
  detail: string
  /** A figure the bench reports without a threshold (printed INFO). */
  report?: boolean
}

export interface BenchResults {
  version: 1
  generated_at: string
  mode: 'full' | 'quick' | 'large'
  machine: Record<string, string | number>
  sizes: SizeResult[]
  scan_scaling?: ScanScaling
  scope_1m?: Scope1m
  targets: Target[]
  notes: string[]
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const round = (x: number, digits: number): number => {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

export function measurement(runsMs: readonly number[], rssMb: readonly (number | null)[], records: number, bytes: number): Measurement {
  const wall = median(runsMs)
  const rss = rssMb.filter((x): x is number => x !== null)
  return {
    wall_ms: Math.round(wall),
    runs_ms: runsMs.map((x) => Math.round(x)),
    peak_rss_mb: rss.length ? round(Math.max(...rss), 1) : null,
    records_per_s: Math.round(records / (wall / 1000)),
    mb_per_s: round(bytes / 1e6 / (wall / 1000), 1),
  }
}

/** Precision and recall of a set of claimed contaminated responses against the ground truth. */
export function accuracy(claimed: Iterable<string>, truth: ReadonlySet<string>): Accuracy {
  const set = new Set(claimed)
  let tp = 0
  for (const id of set) if (truth.has(id)) tp++
  return {
    claimed: set.size,
    true_positives: tp,
    precision: set.size ? round(tp / set.size, 4) : null,
    recall: truth.size ? round(tp / truth.size, 4) : null,
  }
}

function mergeMeasurement(a: Measurement | undefined, b: Measurement | undefined, records: number, bytes: number): Measurement | undefined {
  if (!a || !b) return a ?? b
  const rss = [a.peak_rss_mb, b.peak_rss_mb]
  return measurement([...a.runs_ms, ...b.runs_ms], rss, records, bytes)
}

/** Two measurements of the same size pooled: medians over all their runs (the guard's re-check). */
export function mergeSizeResults(a: SizeResult, b: SizeResult): SizeResult {
  const m = (x: Measurement | undefined, y: Measurement | undefined): Measurement | undefined => mergeMeasurement(x, y, a.records, a.log_bytes)
  const crosstalk: SizeResult['crosstalk'] = {}
  for (const k of ['ingest', 'scan', 'scope', 'end_to_end', 'triage'] as const) {
    const v = m(a.crosstalk[k], b.crosstalk[k])
    if (v) crosstalk[k] = v
  }
  const peers: SizeResult['peers'] = {}
  const ratios: SizeResult['ratios'] = {}
  const triageRatios: SizeResult['ratios'] = {}
  for (const k of ['duckdb', 'rg_regex', 'rg_fixed'] as const) {
    const v = m(a.peers[k], b.peers[k])
    if (!v) continue
    peers[k] = v
    if (crosstalk.end_to_end) ratios[k] = Math.round((crosstalk.end_to_end.wall_ms / v.wall_ms) * 100) / 100
    if (crosstalk.triage) triageRatios[k] = Math.round((crosstalk.triage.wall_ms / v.wall_ms) * 100) / 100
  }
  const failure = a.crosstalk_failure ?? b.crosstalk_failure
  return {
    ...b, runs: a.runs + b.runs, crosstalk: failure ? {} : crosstalk, peers, ratios: failure ? {} : ratios,
    ...(failure || !crosstalk.triage ? {} : {triage_ratios: triageRatios}), ...(failure ? {crosstalk_failure: failure} : {}),
  }
}

export interface RegressionCheck {
  ok: boolean
  /** null when there is nothing to compare against. */
  baseline: number | null
  current: number | null
  /** current / baseline. */
  change: number | null
  message: string
}

/**
 * The quick bench's guard: the end-to-end ratio crosstalk/DuckDB (lower is better) at `records`
 * must not exceed the recorded baseline's by more than `tolerance` (0.25 = 25%). No baseline
 * for that size, or no current figure, passes with a message saying so.
 */
export function checkRegression(current: BenchResults, baseline: BenchResults | null, records: number, tolerance = 0.25): RegressionCheck {
  const failed = current.sizes.find((s) => s.records === records)?.crosstalk_failure
  if (failed) return {ok: false, baseline: null, current: null, change: null, message: `crosstalk failed at ${records} records: ${failed}`}
  const now = current.sizes.find((s) => s.records === records)?.ratios.duckdb ?? null
  const then = baseline?.sizes.find((s) => s.records === records)?.ratios.duckdb ?? null
  if (now === null) return {ok: true, baseline: then, current: null, change: null, message: `no end-to-end/DuckDB ratio measured at ${records} records; nothing to check`}
  if (then === null) return {ok: true, baseline: null, current: now, change: null, message: `no recorded baseline at ${records} records; ratio now ${fmtRatio(now)}`}
  const change = now / then
  const ok = change <= 1 + tolerance
  const pct = Math.round((change - 1) * 100)
  return {
    ok,
    baseline: then,
    current: now,
    change: round(change, 3),
    message: `end-to-end/DuckDB at ${records} records: ${fmtRatio(now)} vs recorded ${fmtRatio(then)} (${pct >= 0 ? '+' : ''}${pct}%, limit +${Math.round(tolerance * 100)}%): ${ok ? 'ok' : 'REGRESSED'}`,
  }
}

export const RSS_LIMIT_MB = 300
/** "Flat": the largest size's peak may be at most this much above the 200k peak (the smallest size's when 200k was not run). */
export const RSS_FLAT_FACTOR = 1.25
/** Time to verdict: triage has printed the exact canary verdict within this multiple of DuckDB's naive query. */
export const VERDICT_LIMIT = 1.0
/** The full pipeline (everything stored, provenance and PII included) within this multiple of DuckDB, at every size from 200k. */
export const PIPELINE_LIMIT = 3.0
export const SCAN_SCALING_LIMIT = 1.2
export const SCOPE_1M_LIMIT_MS = 2000

export function evaluateTargets(r: Pick<BenchResults, 'sizes' | 'scan_scaling' | 'scope_1m'>): Target[] {
  const targets: Target[] = []
  const at200k = r.sizes.find((s) => s.records === 200_000)
  const verdictName = `time to verdict 200k <= ${VERDICT_LIMIT.toFixed(1)}x DuckDB`
  const duck200k = at200k?.peers.duckdb?.wall_ms
  if (at200k?.crosstalk_failure) targets.push({name: verdictName, pass: false, detail: `crosstalk failed: ${at200k.crosstalk_failure}`})
  else if (!at200k?.crosstalk.triage || duck200k === undefined) targets.push({name: verdictName, pass: null, detail: 'not measured (200k size not run)'})
  else {
    // Triage prints the verdict as soon as every record's markers are classified (and decides
    // --fail-on-leak there); the rest of the evidence work follows in the same command.
    const printed = at200k.verdict_decided_ms ?? at200k.crosstalk.triage.wall_ms
    targets.push({
      name: verdictName, pass: printed / duck200k <= VERDICT_LIMIT,
      detail: `${fmtRatio(printed / duck200k)} (${secs(printed)} vs ${secs(duck200k)}; ${at200k.verdict_decided_ms === undefined ? 'at the end of triage' : `the whole triage ${secs(at200k.crosstalk.triage.wall_ms)}`})`,
    })
  }
  for (const s of r.sizes.filter((x) => x.records >= 200_000)) {
    const name = `full pipeline ${fmtRecords(s.records)} <= ${PIPELINE_LIMIT.toFixed(1)}x DuckDB (triage, one command)`
    const duck = s.peers.duckdb?.wall_ms
    if (s.crosstalk_failure) targets.push({name, pass: false, detail: `crosstalk failed: ${s.crosstalk_failure}`})
    else if (!s.crosstalk.triage || duck === undefined) targets.push({name, pass: null, detail: 'not measured'})
    else {
      const ratio = s.crosstalk.triage.wall_ms / duck
      const fourCommands = s.ratios.duckdb
      targets.push({
        name, pass: ratio <= PIPELINE_LIMIT,
        detail: `${fmtRatio(ratio)} (${secs(s.crosstalk.triage.wall_ms)} vs ${secs(duck)})${fourCommands === undefined ? '' : `; as four commands ${fmtRatio(fourCommands)}`}`,
      })
    }
  }
  if (!r.sizes.some((x) => x.records >= 200_000)) targets.push({name: `full pipeline <= ${PIPELINE_LIMIT.toFixed(1)}x DuckDB (triage, one command)`, pass: null, detail: 'not measured (no size of 200k or more run)'})
  const peaks = r.sizes
    .map((s) => ({records: s.records, peak: Math.max(...Object.values(s.crosstalk).map((m) => m?.peak_rss_mb ?? 0))}))
    .filter((p) => p.peak > 0)
    .sort((a, b) => a.records - b.records)
  const failedSizes = r.sizes.filter((s) => s.crosstalk_failure).map((s) => fmtRecords(s.records))
  const unmeasured = failedSizes.length ? ` (no figure at ${failedSizes.join(', ')}: crosstalk failed)` : ''
  if (peaks.length === 0) targets.push({name: `peak RSS < ${RSS_LIMIT_MB} MB`, pass: null, detail: 'not measured'})
  else {
    const worst = peaks.reduce((a, b) => (b.peak > a.peak ? b : a))
    targets.push({name: `peak RSS < ${RSS_LIMIT_MB} MB`, pass: worst.peak < RSS_LIMIT_MB, detail: peaks.map((p) => `${fmtRecords(p.records)}: ${p.peak.toFixed(0)} MB`).join(', ') + unmeasured})
    const first = peaks.find((p) => p.records === 200_000 && p !== peaks[peaks.length - 1]) ?? peaks[0]!
    const last = peaks[peaks.length - 1]!
    if (peaks.length < 2) targets.push({name: `peak RSS flat (<= ${RSS_FLAT_FACTOR}x growth)`, pass: null, detail: `needs two sizes${unmeasured}`})
    else {
      const growth = last.peak / first.peak
      targets.push({
        name: `peak RSS flat (<= ${RSS_FLAT_FACTOR}x growth)`,
        pass: growth <= RSS_FLAT_FACTOR,
        detail: `${fmtRecords(first.records)} -> ${fmtRecords(last.records)}: ${growth.toFixed(2)}x${last.records < 5_000_000 ? ` (measured to ${fmtRecords(last.records)}; 1M with --large, 5M with --sizes 200000,5000000)` : ''}`,
      })
    }
  }
  const sized = r.sizes.filter((s) => s.case_bytes !== undefined)
  targets.push({
    name: 'case size (bytes of case per byte of log, evidence copied in)', pass: null, report: true,
    detail: sized.length
      ? sized.map((s) => `${fmtRecords(s.records)}: ${(s.case_bytes! / s.log_bytes).toFixed(2)} (${(s.case_bytes! / 1e6).toFixed(0)} MB for ${(s.log_bytes / 1e6).toFixed(0)} MB)`).join(', ')
      : 'not measured',
  })
  const referenced = r.sizes.filter((s) => s.reference !== undefined)
  targets.push({
    name: 'case size, evidence by reference (--evidence reference; .gz files still copied)', pass: null, report: true,
    detail: referenced.length
      ? referenced
          .map((s) => {
            const ref = s.reference!
            const copyTriage = s.crosstalk.triage?.wall_ms
            return `${fmtRecords(s.records)}: ${(ref.case_bytes / s.log_bytes).toFixed(2)} (${(ref.case_bytes / 1e6).toFixed(0)} MB; the .gz files, ${(ref.gzip_log_bytes / 1e6).toFixed(0)} MB compressed, are copied in; triage ${secs(ref.triage_ms)}${copyTriage ? ` vs ${secs(copyTriage)} copying` : ''}; ${ref.same_findings ? 'same findings' : 'FINDINGS DIFFER'})`
          })
          .join(', ')
      : 'not measured',
  })
  targets.push(
    r.scan_scaling
      ? {
          name: `scan independent of registry size (<= ${SCAN_SCALING_LIMIT}x)`,
          pass: r.scan_scaling.ratio <= SCAN_SCALING_LIMIT,
          detail: `${r.scan_scaling.large_registry.toLocaleString('en-US')} vs ${r.scan_scaling.small_registry} markers over ${fmtRecords(r.scan_scaling.records)} records: ${r.scan_scaling.large_ms} vs ${r.scan_scaling.small_ms} ms = ${r.scan_scaling.ratio.toFixed(2)}x`,
        }
      : {name: `scan independent of registry size (<= ${SCAN_SCALING_LIMIT}x)`, pass: null, detail: 'not measured in this mode'},
  )
  const at1m = r.sizes.find((s) => s.records === 1_000_000)?.crosstalk.scope
  if (r.scope_1m || at1m) {
    const parts: string[] = []
    if (r.scope_1m) parts.push(`synthetic ${fmtRecords(r.scope_1m.records)} case, computeScope in-process: first ${r.scope_1m.first_ms} ms, warm ${r.scope_1m.warm_ms} ms`)
    if (at1m) parts.push(`\`crosstalk scope\` CLI on the generated 1M case: ${at1m.wall_ms} ms`)
    const worst = Math.max(r.scope_1m?.first_ms ?? 0, at1m?.wall_ms ?? 0)
    targets.push({name: 'scope on a 1M-record case < 2 s', pass: worst < SCOPE_1M_LIMIT_MS, detail: parts.join('; ')})
  } else targets.push({name: 'scope on a 1M-record case < 2 s', pass: null, detail: 'not measured in this mode'})
  return targets
}

export const fmtRatio = (x: number): string => `${x.toFixed(2)}x`
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`
export const fmtRecords = (n: number): string => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n))

const LABELS: Record<StageName | PeerName, string> = {
  ingest: 'crosstalk ingest (canaries + logs)',
  scan: 'crosstalk scan',
  scope: 'crosstalk scope',
  end_to_end: '**crosstalk end to end**',
  triage: '**crosstalk triage** (the same, one command)',
  duckdb: 'DuckDB naive SQL',
  rg_regex: 'ripgrep marker regex',
  rg_fixed: 'ripgrep all markers (-F -f)',
}

const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`)

/** The results as Markdown: one table row per tool or stage and size, then the targets. */
export function formatMarkdown(r: BenchResults): string {
  const lines: string[] = []
  lines.push('| records | log MB | tool | wall s | records/s | MB/s | peak RSS MB | crosstalk e2e ÷ tool | precision | recall |')
  lines.push('| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const s of r.sizes) {
    const mb = (s.log_bytes / 1e6).toFixed(0)
    if (s.crosstalk_failure) lines.push(`| ${fmtRecords(s.records)} | ${mb} | **crosstalk FAILED** | – | – | – | – | – | – | – |`)
    const row = (name: StageName | PeerName, m: Measurement | undefined, ratio: string, acc: Accuracy | undefined): void => {
      if (!m) return
      lines.push(
        `| ${fmtRecords(s.records)} | ${mb} | ${LABELS[name]} | ${(m.wall_ms / 1000).toFixed(2)} | ${m.records_per_s.toLocaleString('en-US')} | ${m.mb_per_s.toFixed(1)} | ${m.peak_rss_mb === null ? '–' : m.peak_rss_mb.toFixed(0)} | ${ratio} | ${pct(acc?.precision)} | ${pct(acc?.recall)} |`,
      )
    }
    for (const stage of ['ingest', 'scan', 'scope'] as const) row(stage, s.crosstalk[stage], '', undefined)
    row('end_to_end', s.crosstalk.end_to_end, '1.00x', s.accuracy.crosstalk)
    const tr = s.triage_ratios?.duckdb
    row('triage', s.crosstalk.triage, tr === undefined ? '' : `${fmtRatio(tr)} of DuckDB`, s.accuracy.crosstalk)
    for (const peer of ['duckdb', 'rg_regex', 'rg_fixed'] as const) {
      const ratio = s.ratios[peer]
      row(peer, s.peers[peer], ratio === undefined ? '' : fmtRatio(ratio), s.accuracy[peer])
    }
  }
  const failures = r.sizes.filter((s) => s.crosstalk_failure)
  if (failures.length) {
    lines.push('')
    for (const s of failures) lines.push(`crosstalk failed at ${fmtRecords(s.records)} records: ${s.crosstalk_failure}`)
  }
  lines.push('')
  lines.push('Targets:')
  lines.push('')
  for (const t of r.targets) lines.push(`- ${t.report ? 'INFO' : t.pass === null ? 'n/a ' : t.pass ? 'PASS' : 'FAIL'} ${t.name}: ${t.detail}`)
  return `${lines.join('\n')}\n`
}
