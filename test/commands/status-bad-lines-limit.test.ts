import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #5: status --bad-lines listed the first 1,000 quarantined lines of 1,500 and said
// nothing of the rest, in text and in --json.

const dir = tempDir('ct-bad-lines-')
const db = join(dir, 'c.db')
const GARBAGE = 1500

beforeAll(async () => {
  const file = join(dir, 'm.jsonl')
  const lines = [JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r0', tenant_id: 't', session_id: 's'})]
  for (let i = 0; i < GARBAGE; i++) lines.push(`garbage ${i}`)
  writeFileSync(file, lines.join('\n') + '\n')
  await run(['ingest', 'logs', file, '--db', db, '--log-format', 'native'])
})

describe('status --bad-lines past its limit', () => {
  it('--json counts the lines it does not list', async () => {
    const s = await runJson<{bad_lines: number; bad_line_list: unknown[]; bad_lines_not_listed: number}>(['status', '--bad-lines', '--json', '--db', db])
    expect(s.bad_lines).toBe(GARBAGE)
    expect(s.bad_line_list.length + s.bad_lines_not_listed).toBe(s.bad_lines)
    expect(s.bad_lines_not_listed).toBeGreaterThan(0)
  })

  it('the text says how many more there are', async () => {
    const s = await runJson<{bad_line_list: unknown[]}>(['status', '--bad-lines', '--json', '--db', db])
    const r = await run(['status', '--bad-lines', '--db', db])
    expect(r.stdout).toContain(`… and ${GARBAGE - s.bad_line_list.length} more quarantined lines not listed`)
  })
})
