import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {cruise, type ICruiseResult} from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'
import {describe, expect, it} from 'vitest'
import {ROOT} from './helpers/cli.js'

// The house's structure, checked on every test run: imports point one way (the rules and
// the layer order are in .dependency-cruiser.cjs), SQL lives in the store, and no "does this
// table exist?" guard makes a missing fact look like zero.

async function violations(base: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'))
  // validate: apply the rule set (without it the cruise only resolves the modules).
  const result = await cruise(['src'], {...options, validate: true, baseDir: base}, {}, {tsConfig: {fileName: join(ROOT, 'tsconfig.json')}} as never)
  const output = result.output as ICruiseResult
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => (typeof c === 'string' ? c : c.name)).join(' -> ')})` : ''}`)
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : []
  })
}

/** The code without comments, so that prose about SQL is not taken for SQL. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

describe('layers', () => {
  it('src/ has no import circle and no import against the layer order', async () => {
    expect(await violations(ROOT)).toEqual([])
  }, 120_000)

  it('the rules catch an upward import, a later stage and a circle (a fixture tree that breaks them)', async () => {
    const found = await violations(join(ROOT, 'test/fixtures/layers'))
    expect(found).toEqual(
      expect.arrayContaining([
        'store-imports-upward: src/store/records.ts -> src/ingest/ingest-logs.ts',
        'stage-ingest-imports-later-stage: src/ingest/ingest-logs.ts -> src/scope/compute-scope.ts',
        expect.stringMatching(/^no-circular: /),
      ]),
    )
  }, 120_000)
})

describe('the store owns the SQL', () => {
  const files = sourceFiles(join(ROOT, 'src'))
  const SQL = /\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(UNIQUE\s+|TEMP\s+)?(TABLE|INDEX|TRIGGER|VIEW)|DROP\s+(TABLE|INDEX)|PRAGMA\s+\w+|BEGIN\b|COMMIT\b|ROLLBACK\b)/
  const DB_CALL = /\.(prepare|pragma|transaction)\(|\bdb\.exec\(/

  it('SQL text and database calls appear only under src/store/ (and the bench)', () => {
    const outside = files
      .filter((f) => !/\/src\/(store|bench)\//.test(f))
      .flatMap((f) =>
        code(readFileSync(f, 'utf8'))
          .split('\n')
          .flatMap((line, i) => (SQL.test(line) || DB_CALL.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
      )
    expect(outside).toEqual([])
  })

  it('the check would see SQL in a stage', () => {
    expect(SQL.test(code("const rows = db.prepare('SELECT id FROM records').all()"))).toBe(true)
    expect(DB_CALL.test(code("db.pragma('user_version')"))).toBe(true)
    expect(DB_CALL.test(code('db.transaction(() => insert(row))()'))).toBe(true)
    expect(SQL.test(code('// SELECT in a comment is prose'))).toBe(false)
  })

  it('no guard asks whether a table exists: every case has every table of its schema', () => {
    expect(files.filter((f) => /\btableExists\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f))).toEqual([])
  })
})
