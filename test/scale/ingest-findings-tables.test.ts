import {copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {FINDINGS_FORMAT} from '../../src/scale/ingest-findings.js'
import {writeStringTable} from '../../src/scale/parquet-io.js'
import {runCli, tempDir} from '../helpers/cli.js'

// `ingest findings` takes a findings/ folder only as the job wrote it: every table's part files,
// each with the rows the manifest records. A part missing (a partial copy of an object-store
// folder) read as no sightings and every draft stated 0 marker leaks; a part present twice (a sync
// run twice) doubled the findings. These folders are made here (no Spark): a job over no shard,
// whose tables are Parquet files of the rows the manifest says.

const TABLES = ['records', 'sightings', 'provenance', 'pii_findings', 'bad_lines', 'duplicates'] as const
type Table = (typeof TABLES)[number]

/** A findings folder of a job over no shard, with `rows` rows (of a placeholder column) in each table's one part file. */
function findings(dir: string, rows: Partial<Record<Table, number>> = {}): string {
  const out = join(dir, 'findings')
  rmSync(out, {recursive: true, force: true})
  const tables: Record<string, {rows: number; parts: Record<string, number>}> = {}
  for (const t of TABLES) {
    mkdirSync(join(out, t), {recursive: true})
    const n = rows[t] ?? 0
    const part = `part-00000-${t}-c000.snappy.parquet`
    writeStringTable(join(out, t, part), ['x'], Array.from({length: n}, (_, i) => ({x: String(i)})))
    writeFileSync(join(out, t, '_SUCCESS'), '')
    tables[t] = {rows: n, parts: {[part]: n}}
  }
  const manifest = {
    format: FINDINGS_FORMAT, source: 'default', registry: {registry_files: [], canaries: 0},
    parameters: {min_words: 12, boilerplate_tenants: 3, pool_tokens: null, advertised_tokens: null},
    corpus: {records: 0, tenants: 0, tenant_ids: [], sessions: 0, first_ms: null, last_ms: null, no_status: 0, no_prompt_tokens: 0,
      no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: 0},
    exposure: null,
    counts: {shards: 0, records: 0, sightings: rows.sightings ?? 0, provenance: rows.provenance ?? 0, pii_findings: rows.pii_findings ?? 0, duplicate_lines: rows.duplicates ?? 0},
    shards: [],
    tables,
  }
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2))
  return out
}

const partOf = (dir: string, t: Table): string => join(dir, t, readdirSync(join(dir, t)).find((n) => n.startsWith('part-'))!)

function ingest(dir: string, name: string) {
  const db = join(dir, `${name}.db`)
  const r = runCli(['ingest', 'findings', join(dir, 'findings'), '--db', db, '--json'])
  const status = runCli(['status', '--db', db, '--json'])
  return {...r, files: status.code === 0 ? (JSON.parse(status.stdout) as {files: number}).files : null}
}

describe('ingest findings checks every table against the manifest', () => {
  it('takes a folder whose tables are as the job wrote them', () => {
    const dir = tempDir('ct-findings-ok-')
    findings(dir)
    const r = ingest(dir, 'ok')
    expect(r.code, r.stderr).toBe(0)
  })

  it('refuses a table whose part file is missing (a partial copy), naming the table, the counts and the folder', () => {
    const dir = tempDir('ct-findings-missing-')
    // The tables hold rows the manifest records; the sightings part is then lost.
    const out = findings(dir, {sightings: 3})
    rmSync(partOf(out, 'sightings'))
    const r = ingest(dir, 'missing')
    expect(r.code).toBe(1)
    const line = r.stderr.trim()
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toContain(join(out, 'sightings'))
    expect(line).toMatch(/sightings holds 0 part files, the manifest lists 1 of 3 rows: missing part-00000-sightings-c000\.snappy\.parquet \(3 rows\)/)
    expect(line).toMatch(/nothing was brought in/)
  })

  it('refuses a part file present twice (a sync run twice) and one holding other rows than recorded', () => {
    const dir = tempDir('ct-findings-twice-')
    const out = findings(dir, {pii_findings: 2})
    const part = partOf(out, 'pii_findings')
    copyFileSync(part, join(out, 'pii_findings', 'part-00001-copy-c000.snappy.parquet'))
    const twice = ingest(dir, 'twice')
    expect(twice.code).toBe(1)
    expect(twice.stderr.trim()).toMatch(/pii_findings: pii_findings holds 2 part files, the manifest lists 1 of 2 rows; not the job's: part-00001-copy-c000\.snappy\.parquet;/)
    // Nothing stored: the case holds no file.
    expect(twice.files ?? 0).toBe(0)

    rmSync(join(out, 'pii_findings', 'part-00001-copy-c000.snappy.parquet'))
    writeStringTable(part, ['x'], [{x: 'a'}, {x: 'b'}, {x: 'c'}, {x: 'd'}])
    const other = ingest(dir, 'other')
    expect(other.code).toBe(1)
    expect(other.stderr.trim()).toMatch(/pii_findings part part-00000-pii_findings-c000\.snappy\.parquet holds 4 rows, the manifest records 2/)
  })

  it('refuses a table whose rows differ from the job\'s count of its findings', () => {
    const dir = tempDir('ct-findings-count-')
    const out = findings(dir, {duplicates: 1})
    const manifest = JSON.parse(readText(join(out, 'manifest.json'))) as {counts: {duplicate_lines: number}}
    manifest.counts.duplicate_lines = 28
    writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest))
    const r = ingest(dir, 'count')
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(/duplicates: duplicates holds 1 row, the manifest records 1 \(counts: 28\)/)
  })

  it('refuses findings whose manifest records no tables (a job before crosstalk-findings/8)', () => {
    const dir = tempDir('ct-findings-old-')
    const out = findings(dir)
    const manifest = JSON.parse(readText(join(out, 'manifest.json'))) as {tables?: unknown}
    delete manifest.tables
    writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest))
    const old = ingest(dir, 'old')
    expect(old.code).toBe(1)
    expect(old.stderr).toMatch(/no record of the records table's part files/)
  })

  it('names a part file that is no readable Parquet (the library\'s message named none)', () => {
    const dir = tempDir('ct-findings-damaged-')
    const out = findings(dir)
    writeFileSync(partOf(out, 'sightings'), 'PAR1 not really')
    const damaged = ingest(dir, 'damaged')
    expect(damaged.code).toBe(1)
    expect(damaged.stderr.trim().split('\n')).toHaveLength(1)
    expect(damaged.stderr).toContain(`${join(out, 'sightings', 'part-00000-sightings-c000.snappy.parquet')}: not a readable Parquet file (`)
  })
})

describe('ingest findings --shard-prefix', () => {
  it('refuses a FROM that begins no shard URI of the findings (exit 2), naming the prefix theirs have', () => {
    const dir = tempDir('ct-findings-prefix-')
    const out = findings(dir)
    const manifest = JSON.parse(readText(join(out, 'manifest.json'))) as {shards: unknown[]}
    manifest.shards = [{uri: 'file:///data/logs/gw-a.jsonl'}, {uri: 'file:///data/logs/gw-b.jsonl'}]
    writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest))
    const db = join(dir, 'prefix.db')
    // A path given for the file:// URIs: the mapping was ignored, and the shards read from where the job read them.
    const path = runCli(['ingest', 'findings', out, '--db', db, '--shard-prefix', '/data/logs=/mnt/copy'])
    expect(path.code).toBe(2)
    expect(path.stderr.trim().split('\n')[0]).toMatch(/^Error: --shard-prefix \/data\/logs=\/mnt\/copy: \/data\/logs begins no shard URI of these findings; theirs begin "file:\/\/\/data\/logs\/"$/)
    // A FROM that begins them is taken (what fails next is the shards' own reading, not the mapping).
    const uri = runCli(['ingest', 'findings', out, '--db', db, '--shard-prefix', 'file:///data/logs=/mnt/copy'])
    expect(uri.code).toBe(1)
    expect(uri.stderr).not.toMatch(/--shard-prefix/)
  })
})

const readText = (path: string): string => readFileSync(path, 'utf8')
