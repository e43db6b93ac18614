import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {FINDINGS_FORMAT} from '../../src/scale/ingest-findings.js'
import {writeStringTable} from '../../src/scale/parquet-io.js'
import {buildFacts, isNotExaminedRemedy, loadFactsInputs, remediesOf, type CaseFacts} from '../../src/notify/facts.js'
import {noneFoundGaps} from '../../src/notify/none-found.js'
import {EN} from '../../src/notify/phrases-en.js'
import {openCase} from '../../src/store/open-case.js'
import {runCli, tempDir} from '../helpers/cli.js'

// A case of Spark findings refuses `ingest logs`, `ingest canaries`, `drop` and `scan`: an open item
// telling its reader to run them named a remedy the case refuses. Its remedies are the job's: run
// it again over the files named and bring its findings into a new case. The case is made here
// without Spark: the findings of a job over no shard, as the job writes them.

const TABLES = ['records', 'sightings', 'provenance', 'pii_findings', 'bad_lines', 'duplicates'] as const

function emptyFindings(dir: string): string {
  const out = join(dir, 'findings')
  const tables: Record<string, {rows: number; parts: Record<string, number>}> = {}
  for (const t of TABLES) {
    mkdirSync(join(out, t), {recursive: true})
    const part = `part-00000-${t}-c000.snappy.parquet`
    writeStringTable(join(out, t, part), ['x'], [])
    tables[t] = {rows: 0, parts: {[part]: 0}}
  }
  writeFileSync(join(out, 'manifest.json'), JSON.stringify({
    format: FINDINGS_FORMAT, source: 'default', registry: {registry_files: [], canaries: 0},
    parameters: {min_words: 12, boilerplate_tenants: 3, pool_tokens: null, advertised_tokens: null},
    corpus: {records: 0, tenants: 0, tenant_ids: [], sessions: 0, first_ms: null, last_ms: null, no_status: 0, no_prompt_tokens: 0, no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: 0},
    exposure: null, counts: {shards: 0, records: 0, sightings: 0, provenance: 0, pii_findings: 0, duplicate_lines: 0}, shards: [], tables,
  }))
  return out
}

function factsOf(db: string): CaseFacts {
  const c = openCase(db, {readonly: true})
  try {
    return buildFacts(loadFactsInputs(c), new Date('2026-11-03T00:00:00Z'))
  } finally {
    c.close()
  }
}

/** The facts with every gap a remedy closes: what the job's case cannot hold without its shards, set by hand. */
function withGaps(facts: CaseFacts): CaseFacts {
  return {
    ...facts,
    totals: {...facts.totals, bad_lines: 2, unread_sources: ['a.jsonl.zst'], files_not_read_whole: ['b.jsonl'], files_grown: ['c.jsonl'], responses_without_text: 1, records_without_request_text: 1, duplicate_lines_not_examined: 1},
  }
}

describe('open items of a case of Spark findings name the job, never a command the case refuses', () => {
  it('the job again for every gap; a case of logs keeps its own commands', () => {
    const dir = tempDir('ct-findings-remedies-')
    const spark = join(dir, 'spark.db')
    const ingested = runCli(['ingest', 'findings', emptyFindings(dir), '--db', spark, '--json'])
    expect(ingested.code, ingested.stderr).toBe(0)
    // The case itself refuses what the local remedies say.
    const scan = runCli(['scan', '--db', spark])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toContain('detection runs in the job')

    const facts = factsOf(spark)
    expect(facts.spark_findings).toBe(true)
    const gaps = noneFoundGaps(withGaps(facts), EN).filter((g) => g.record_with !== null)
    expect(gaps.map((g) => g.kind)).toEqual(expect.arrayContaining(['unread_sources', 'not_read_whole', 'grown_originals', 'bad_lines', 'responses_without_text', 'no_request_text', 'duplicates_not_examined']))
    for (const g of gaps) {
      expect(g.record_with, g.kind).toMatch(/crosstalk-spark SHARDS\.\.\./)
      expect(g.record_with, g.kind).toMatch(/crosstalk ingest findings DIR/)
      expect(g.record_with, g.kind).not.toMatch(/crosstalk scan|crosstalk ingest logs|crosstalk drop/)
      if (g.kind !== 'responses_without_text') expect(isNotExaminedRemedy(g.record_with)).toBe(true)
    }

    const local = join(dir, 'local.db')
    const logs = join(dir, 'gw.jsonl')
    writeFileSync(logs, `${JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', response: 'hello'})}\n`)
    expect(runCli(['ingest', 'logs', logs, '--db', local]).code).toBe(0)
    const localFacts = factsOf(local)
    expect(localFacts.spark_findings).toBeUndefined()
    const localGaps = noneFoundGaps(withGaps(localFacts), EN)
    expect(localGaps.find((g) => g.kind === 'bad_lines')!.record_with).toBe(remediesOf(localFacts).bad_lines)
    expect(localGaps.find((g) => g.kind === 'duplicates_not_examined')!.record_with).toContain('crosstalk scan')
  })
})
