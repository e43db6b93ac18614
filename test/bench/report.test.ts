import {describe, expect, it} from 'vitest'
import {accuracy, checkRegression, evaluateTargets, formatMarkdown, measurement, median, mergeSizeResults, type BenchResults, type SizeResult} from '../../src/bench/report.js'

const m = (wallMs: number, rss: number | null = 150) => measurement([wallMs], [rss], 20_000, 57e6)

function size(records: number, e2eMs: number, duckMs: number, rss = 150): SizeResult {
  return {
    records,
    seed: 1,
    log_bytes: 57e6,
    log_files: 12,
    truth_contaminated: 104,
    runs: 1,
    crosstalk: {ingest: m(e2eMs * 0.5, rss), scan: m(e2eMs * 0.4, rss), scope: m(e2eMs * 0.1, rss), end_to_end: m(e2eMs, rss)},
    peers: {duckdb: m(duckMs, 400), rg_regex: m(100, 12)},
    ratios: {duckdb: Math.round((e2eMs / duckMs) * 100) / 100, rg_regex: e2eMs / 100},
    accuracy: {crosstalk: accuracy(['a', 'b'], new Set(['a', 'b'])), duckdb: accuracy(['a', 'x', 'y', 'z'], new Set(['a', 'b']))},
  }
}

function results(sizes: SizeResult[]): BenchResults {
  return {version: 1, generated_at: '2026-11-30T00:00:00.000Z', mode: 'full', machine: {}, sizes, targets: [], notes: []}
}

describe('median and measurement', () => {
  it('takes the middle value (mean of the two middles for even counts) and derives rates', () => {
    expect(median([5, 1, 3])).toBe(3)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    const x = measurement([3000, 1000, 2000], [100, 250, null], 20_000, 40e6)
    expect(x.wall_ms).toBe(2000)
    expect(x.runs_ms).toEqual([3000, 1000, 2000])
    expect(x.peak_rss_mb).toBe(250)
    expect(x.records_per_s).toBe(10_000)
    expect(x.mb_per_s).toBe(20)
    expect(measurement([10], [null], 1, 1).peak_rss_mb).toBeNull()
  })
})

describe('accuracy', () => {
  it('scores distinct claimed ids against the truth', () => {
    const a = accuracy(['a', 'a', 'b', 'c', 'd'], new Set(['a', 'b', 'e']))
    expect(a).toEqual({claimed: 4, true_positives: 2, precision: 0.5, recall: 0.6667})
    expect(accuracy([], new Set(['a']))).toEqual({claimed: 0, true_positives: 0, precision: null, recall: 0})
  })
})

describe('checkRegression', () => {
  const baseline = results([size(20_000, 10_000, 1_000)]) // ratio 10x

  it('passes within 25% and fails beyond it', () => {
    const ok = checkRegression(results([size(20_000, 12_400, 1_000)]), baseline, 20_000)
    expect(ok.ok).toBe(true)
    expect(ok.change).toBe(1.24)
    const bad = checkRegression(results([size(20_000, 12_600, 1_000)]), baseline, 20_000)
    expect(bad.ok).toBe(false)
    expect(bad.message).toContain('REGRESSED')
    expect(bad.message).toContain('+26%')
  })

  it('treats an improvement as ok and honours a custom tolerance', () => {
    expect(checkRegression(results([size(20_000, 5_000, 1_000)]), baseline, 20_000).ok).toBe(true)
    expect(checkRegression(results([size(20_000, 11_000, 1_000)]), baseline, 20_000, 0.05).ok).toBe(false)
  })

  it('fails when crosstalk itself failed at that size', () => {
    const failed = size(20_000, 1, 1_000)
    failed.crosstalk = {}
    failed.ratios = {}
    failed.crosstalk_failure = 'run 1: ingest logs killed after 95 s, no I/O for 90 s (hung)'
    const r = checkRegression(results([failed]), baseline, 20_000)
    expect(r.ok).toBe(false)
    expect(r.message).toContain('hung')
    const md = formatMarkdown({...results([failed]), targets: evaluateTargets({sizes: [failed]})})
    expect(md).toContain('| 20k | 57 | **crosstalk FAILED** |')
    expect(md).toContain('crosstalk failed at 20k records: run 1: ingest logs killed')
    expect(md).not.toContain('crosstalk end to end')
  })

  it('compares the same size only, and passes with a note when there is no baseline', () => {
    const other = results([size(200_000, 50_000, 1_000)])
    const r = checkRegression(results([size(20_000, 50_000, 1_000)]), other, 20_000)
    expect(r.ok).toBe(true)
    expect(r.baseline).toBeNull()
    expect(checkRegression(results([size(20_000, 50_000, 1_000)]), null, 20_000).message).toContain('no recorded baseline')
  })
})

describe('evaluateTargets', () => {
  const withTriage = (s: SizeResult, triageMs: number, rss = 150): SizeResult => ({...s, crosstalk: {...s.crosstalk, triage: m(triageMs, rss)}})

  it('judges time to verdict, the full pipeline per size, RSS limit and flatness against 200k, scan scaling and scope', () => {
    const t = evaluateTargets({
      sizes: [
        withTriage(size(20_000, 10_000, 1_000, 100), 900),
        {
          ...withTriage(size(200_000, 9_000, 10_000, 140), 9_500, 140), verdict_decided_ms: 8_000, case_bytes: 114e6,
          reference: {triage_ms: 7_000, case_bytes: 11.4e6, gzip_log_bytes: 2e6, same_findings: true},
        },
        (() => {
          const big = withTriage(size(1_000_000, 60_000, 15_000, 180), 50_000, 180)
          big.crosstalk.scope = m(1_200, 180) // the scope CLI on the 1M case
          return big
        })(),
      ],
      scan_scaling: {records: 20_000, small_registry: 10, large_registry: 100_000, small_ms: 100, large_ms: 130, ratio: 1.3},
      scope_1m: {records: 1_000_000, first_ms: 1500, warm_ms: 150},
    })
    const by = (prefix: string) => t.find((x) => x.name.startsWith(prefix))!
    expect(by('time to verdict 200k')).toMatchObject({pass: true})
    expect(by('time to verdict 200k').detail).toBe('0.80x (8.00 s vs 10.00 s; the whole triage 9.50 s)')
    // a run without the verdict's timing is judged by the whole triage
    const old = evaluateTargets({sizes: [withTriage(size(200_000, 9_000, 10_000, 140), 10_500, 140)]})
    expect(old.find((x) => x.name.startsWith('time to verdict'))).toMatchObject({pass: false, detail: '1.05x (10.50 s vs 10.00 s; at the end of triage)'})
    expect(by('full pipeline 200k').pass).toBe(true) // 0.95x
    expect(by('full pipeline 1M').pass).toBe(false) // 3.33x
    expect(t.some((x) => x.name.startsWith('full pipeline 20k'))).toBe(false) // judged from 200k up
    expect(by('peak RSS <').pass).toBe(true)
    // 180 / 140 = 1.29x against the 200k peak (against the 20k peak it would be 1.8x)
    expect(by('peak RSS flat')).toMatchObject({pass: false})
    expect(by('peak RSS flat').detail).toMatch(/^200k -> 1M: 1\.29x/)
    expect(by('scan').pass).toBe(false)
    expect(by('scope').pass).toBe(true)
    const caseSize = by('case size')
    expect(caseSize).toMatchObject({pass: null, report: true})
    expect(caseSize.detail).toBe('200k: 2.00 (114 MB for 57 MB)')
    expect(by('case size, evidence by reference')).toMatchObject({pass: null, report: true})
    expect(by('case size, evidence by reference').detail).toBe('200k: 0.20 (11 MB; the .gz files, 2 MB compressed, are copied in; triage 7.00 s vs 9.50 s copying; same findings)')
  })

  it('reports targets it could not measure as n/a, not as passes', () => {
    const t = evaluateTargets({sizes: [size(20_000, 10_000, 1_000, 400)]})
    expect(t.find((x) => x.name.startsWith('time to verdict'))!.pass).toBeNull()
    expect(t.find((x) => x.name.startsWith('full pipeline'))!.pass).toBeNull()
    expect(t.find((x) => x.name.startsWith('peak RSS <'))!.pass).toBe(false)
    expect(t.filter((x) => x.pass === null && !x.report).length).toBe(5)
    expect(formatMarkdown({...results([]), targets: t})).toContain('- INFO case size (bytes of case per byte of log, evidence copied in): not measured')
  })

  it('fails the time to verdict and pipeline targets when crosstalk failed, never passes them', () => {
    const failed: SizeResult = {...size(200_000, 1, 1), crosstalk: {}, crosstalk_failure: 'run 1: exit 1'}
    const t = evaluateTargets({sizes: [failed]})
    expect(t.find((x) => x.name.startsWith('time to verdict'))).toMatchObject({pass: false, detail: 'crosstalk failed: run 1: exit 1'})
    expect(t.find((x) => x.name.startsWith('full pipeline 200k'))).toMatchObject({pass: false})
  })
})

describe('formatMarkdown', () => {
  it('renders one row per stage and peer with ratios, accuracy and target lines', () => {
    const r = results([size(20_000, 10_000, 1_000)])
    r.targets = [{name: 'end-to-end 200k <= 1.0x DuckDB', pass: false, detail: '1.50x'}, {name: 'scope', pass: null, detail: 'not measured'}]
    const md = formatMarkdown(r)
    const lines = md.trim().split('\n')
    expect(lines[0]).toMatch(/^\| records \| log MB \| tool \| wall s \|/)
    expect(lines[1]).toMatch(/^\| ---: \|/)
    expect(md).toContain('| 20k | 57 | **crosstalk end to end** | 10.00 | 2,000 | 5.7 | 150 | 1.00x | 100.0% | 100.0% |')
    expect(md).toContain('| 20k | 57 | DuckDB naive SQL | 1.00 | 20,000 | 57.0 | 400 | 10.00x | 25.0% | 50.0% |')
    expect(md).toContain('| 20k | 57 | ripgrep marker regex | 0.10 |')
    expect(md).not.toContain('all markers (-F -f)') // no measurement, no row
    expect(md).toContain('- FAIL end-to-end 200k <= 1.0x DuckDB: 1.50x')
    expect(md).toContain('- n/a  scope: not measured')
    // every table row has the same number of cells as the header
    const cells = (l: string) => l.split('|').length
    for (const l of lines.filter((x) => x.startsWith('|'))) expect(cells(l)).toBe(cells(lines[0]!))
  })
})

describe('mergeSizeResults', () => {
  it('pools the runs of two measurements and recomputes medians and ratios', () => {
    const a = size(20_000, 10_000, 1_000)
    const b = size(20_000, 14_000, 1_000)
    b.crosstalk.end_to_end = measurement([14_000, 12_000], [300], 20_000, 57e6)
    b.runs = 2
    const merged = mergeSizeResults(a, b)
    expect(merged.runs).toBe(3)
    expect(merged.crosstalk.end_to_end!.runs_ms).toEqual([10_000, 14_000, 12_000])
    expect(merged.crosstalk.end_to_end!.wall_ms).toBe(12_000)
    expect(merged.crosstalk.end_to_end!.peak_rss_mb).toBe(300)
    expect(merged.peers.duckdb!.runs_ms).toEqual([1_000, 1_000])
    expect(merged.ratios.duckdb).toBe(12)
  })
})

describe('the one-command pipeline (triage)', () => {
  it('gets its own row, ratio and target, and survives merging', () => {
    const a = {...size(200_000, 20_000, 2_000), crosstalk: {...size(200_000, 20_000, 2_000).crosstalk, triage: m(14_000)}, triage_ratios: {duckdb: 7}}
    const t = evaluateTargets({sizes: [a]})
    const tri = t.find((x) => x.name.startsWith('full pipeline 200k'))
    expect(tri).toMatchObject({pass: false})
    expect(tri!.detail).toBe('7.00x (14.00 s vs 2.00 s); as four commands 10.00x')
    const md = formatMarkdown({...results([a]), targets: t})
    expect(md).toMatch(/\*\*crosstalk triage\*\* \(the same, one command\) \| 14\.00 \|.*\| 7\.00x of DuckDB \|/)
    const merged = mergeSizeResults(a, a)
    expect(merged.crosstalk.triage?.runs_ms).toEqual([14_000, 14_000])
    expect(merged.triage_ratios?.duckdb).toBe(7)
  })
})
