import {describe, expect, it} from 'vitest'
import {toCsv} from '../../src/cli/csv.js'
import {scopeCsvTables, tenantCsvTable} from '../../src/cli/render-scope.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {computeTenantView} from '../../src/scope/tenant-view.js'
import {makeCase} from '../helpers/case-builder.js'

const EVIL = '=HYPERLINK("http://x")'

// A spreadsheet evaluates a cell that starts with = + - @ TAB or CR. Each such value from
// the logs must reach the CSV prefixed with a quote, so it opens as text.
function cellsOf(csv: string): string[][] {
  // minimal RFC 4180 reader, enough for these tests
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < csv.length; i++) {
    const ch = csv[i]!
    if (quoted) {
      if (ch === '"' && csv[i + 1] === '"') (cell += '"'), i++
      else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') row.push(cell), (cell = '')
    else if (ch === '\r' && csv[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++
    else cell += ch
  }
  return rows
}

describe('CSV export against formula injection', () => {
  it('toCsv: a sighting whose session id is =HYPERLINK(...) opens as text', () => {
    const csv = toCsv(['request_id', 'recipient_session', 'source_session'], [{request_id: 'r1', recipient_session: EVIL, source_session: '+1-555', extra: 'x'}])
    const [header, row] = cellsOf(csv)
    expect(header).toEqual(['request_id', 'recipient_session', 'source_session'])
    expect(row).toEqual(['r1', `'${EVIL}`, "'+1-555"])
    expect(csv).not.toMatch(/(^|,)=HYPERLINK/m)
  })

  it('toCsv: a formula after leading white space (which spreadsheets skip) opens as text too', () => {
    const values = [' =1+1', '  -2+3', '\u00a0@SUM(A1)', '\t =x', ' +cmd']
    const csv = toCsv(values.map((_, i) => `c${i}`), [Object.fromEntries(values.map((v, i) => [`c${i}`, v]))])
    const [, row] = cellsOf(csv)
    // Each starts with the guard's quote; white space that is not a control is kept as written.
    for (const cell of row!) expect(cell.startsWith("'")).toBe(true)
    expect(row![0]).toBe("' =1+1")
    // Plain text that only starts with white space is left alone.
    expect(cellsOf(toCsv(['a'], [{a: ' tenant-a'}]))[1]).toEqual([' tenant-a'])
  })

  it('scope and tenant CSV: tenant, session and node ids from logs are neutralised', async () => {
    const c = makeCase()
    try {
      const marker = 'CANARY-0123456789abcdef'
      await c.addCanary(marker, '-victim', '=cmd|x')
      await c.addFile([
        {request_id: 'r0', ts_ms: Date.parse('2026-11-02T05:00:00.000Z'), tenant_id: '-victim', session_id: '=cmd|x', decode_node: '@node', request_text: marker},
        {request_id: 'r1', ts_ms: Date.parse('2026-11-02T06:00:00.000Z'), tenant_id: EVIL, session_id: EVIL, decode_node: '@node', prompt_tokens: 700000, response_text: `see ${marker}`},
      ])
      scanCase(c.db, {now: new Date('2026-11-03T00:00:00.000Z'), poolTokens: 681280})
      const inputs = loadScopeInputs(c.db)
      const tables = scopeCsvTables(computeScope(inputs))
      const flows = cellsOf(toCsv(tables.flows.columns, tables.flows.rows))
      expect(flows[1]).toEqual(["'-victim", `'${EVIL}`, '1'])
      const nodes = cellsOf(toCsv(tables.nodes.columns, tables.nodes.rows))
      expect(nodes[1]![0]).toBe("'@node")
      const t = tenantCsvTable(computeTenantView(inputs, {tenant: '-victim', revealTenants: true}))
      const tenant = cellsOf(toCsv(t.columns, t.rows))
      expect(tenant[1]!.slice(0, 3)).toEqual(["'-victim", 'leaked', `'${EVIL}`])
      for (const cells of [...flows, ...nodes, ...tenant]) for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
    } finally {
      c.close()
    }
  })
})
