import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// Issue 16: what a log says reaches the responder's terminal, spreadsheets and drafts. A tenant
// and a session id carrying terminal controls (ESC colour, an OSC 8 hyperlink ended by BEL, the
// one-byte CSI U+009B, CR), a right-to-left override and invisible marks (LRM, RLM, line and
// paragraph separators, zero-width space, byte-order mark) must come out of every table, CSV,
// JSON document and the Article 33 Markdown as visible escapes, never raw. And `show` prints a
// leaked answer, its e-mail address and its markers only when asked.

const HOSTILE = 'T\u001b[31mred\u001b]8;;http://evil.example\u0007link\u001b]8;;\u0007\u009b2J\u202eabc\rX\u200e\u200f\u2028\u2029\u200b\ufeffY'
const SESSION = 's\u202e1\u200b'
const A = 'CANARY-5e5e5e5e5e5e5e5e5e5e'
const EMAIL = 'bob.hostile@example.com'
const SHARED = 'quarterly revenue forecast for the northern region shows a steady decline across every product line this year again'
/** Raw characters that must never reach output (LF and TAB are allowed). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2028\u2029\ufeff]/

let db: string

beforeAll(async () => {
  const c = makeCase()
  // A canary registry refuses an id holding a character that prints as nothing (QA spoof #2), so the
  // hostile ids come from the logs alone: the recipient's, whose users received tA's marker and text.
  await c.addCanary(A, 'tA', 'sA')
  await c.addFile([
    {request_id: 'r-src', tenant_id: 'tA', session_id: 'sA', request_text: `${A} write to ${EMAIL} about ${SHARED}`, response_text: 'ok', decode_node: `n\u202e1`},
    {request_id: 'r-leak', tenant_id: HOSTILE, session_id: SESSION, request_text: 'hello', response_text: `Sure: ${A} ${EMAIL} ${SHARED}`, decode_node: `n\u202e1`},
  ])
  c.close()
  db = c.path
  const scan = await run(['scan', '--db', db, '--min-words', '12'])
  expect(scan.code, scan.stderr).toBe(0)
})

/** CSV text without its CRLF row ends (a CR anywhere else is a raw control). */
const csvBody = (text: string): string => text.replace(/\r\n/g, '\n')

describe('--csv never passes raw controls, bidi or invisible marks from a log', () => {
  for (const args of [['sightings'], ['provenance'], ['pii'], ['scope', '--table', 'flows'], ['scope', '--table', 'matrix'], ['scope', '--table', 'nodes']]) {
    it(args.join(' '), async () => {
      const r = await run([...args, '--db', db, '--csv'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout.split('\r\n').length).toBeGreaterThan(2)
      expect(csvBody(r.stdout)).not.toMatch(RAW)
      if (args[0] !== 'scope' || args[2] !== 'nodes') expect(r.stdout).toContain('\\x1b[31mred')
    })
  }
})

describe('terminal tables escape invisible and bidi marks', () => {
  for (const args of [['sightings', '--show-markers'], ['provenance'], ['pii'], ['scope']]) {
    it(args.join(' '), async () => {
      const r = await run([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).not.toMatch(RAW)
      expect(r.stdout).toMatch(/\\u202e/)
    })
  }
})

describe('--json escapes what JSON.stringify leaves raw', () => {
  it('sightings --json: U+202E, U+009B and the invisible marks as \\u escapes, the same strings when parsed', async () => {
    const r = await run(['sightings', '--db', db, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(RAW)
    expect(r.stdout).toContain('\\u202e')
    expect(r.stdout).toContain('\\u009b')
    const rows = JSON.parse(r.stdout) as Array<{recipient_tenant: string; recipient_session: string}>
    expect(rows[0]).toMatchObject({recipient_tenant: HOSTILE, recipient_session: SESSION})
  })

  it('report case --format json, to stdout and to a file', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ct-case-json-')), 'case.json')
    for (const args of [['report', 'case', '--format', 'json'], ['report', 'case', '--format', 'json', '--out', out]]) {
      const r = await run([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
      const text = args.includes('--out') ? fs.readFileSync(out, 'utf8') : r.stdout
      expect(text).not.toMatch(RAW)
      expect(text).toContain('\\u202e')
      expect(text).toContain('\\u009b')
      const data = JSON.parse(text) as {sightings: {rows: Array<{recipient_tenant: string | null}>}}
      expect(data.sightings.rows.map((s) => s.recipient_tenant)).toContain(HOSTILE)
    }
  })

  it('status and scope --json too', async () => {
    for (const args of [['scope'], ['provenance']]) {
      const r = await run([...args, '--db', db, '--json'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).not.toMatch(RAW)
    }
  })
})

describe('the Article 33 draft escapes invisible and bidi marks', () => {
  it('report article33 (Markdown)', async () => {
    expect((await run(['incident', 'open', '--db', db, '--title', 'leak', '--aware-at', '2026-11-02T10:00:00Z', '--role', 'controller'])).code).toBe(0)
    const r = await run(['report', 'article33', '--db', db, '--now', '2026-11-02T12:00:00Z'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('\\\\u202e')
    expect(r.stdout).not.toMatch(RAW)
  })
})

describe('a 100 KB tenant id does not blow up the sightings table', () => {
  it('cells are clipped, so the table stays small; --csv keeps the whole id', async () => {
    const c = makeCase()
    const big = `big-${'x'.repeat(100_000)}`
    await c.addCanary(A, big, 's1')
    await c.addFile([{request_id: 'r1', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `here ${A}`}, ...Array.from({length: 50}, (_, i) => ({request_id: `o${i}`, tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `own? ${A}`}))])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const table = await run(['sightings', '--db', c.path])
    expect(table.code).toBe(0)
    expect(table.stdout.split('\n').length).toBeGreaterThan(50)
    expect(table.stdout.length).toBeLessThan(20_000)
    expect(Math.max(...table.stdout.split('\n').map((l) => l.length))).toBeLessThan(400)
    expect((await run(['sightings', '--db', c.path, '--csv'])).stdout).toContain(big)
  })
})

describe('show prints no leaked text, e-mail or full marker unless asked', () => {
  it('by default: metadata and the texts\u2019 sizes only', async () => {
    const r = await run(['show', 'r-leak', '--db', db])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/request_id\s+r-leak/)
    expect(r.stdout).not.toContain(EMAIL)
    expect(r.stdout).not.toContain('CANARY-5e5e')
    expect(r.stdout).not.toContain('northern region')
    expect(r.stdout).toMatch(/texts\s+request 5 chars, response \d+ chars {2}\(not shown: .*--show-text prints them\)/)
    const json = JSON.parse((await run(['show', 'r-leak', '--db', db, '--json'])).stdout) as Record<string, unknown>
    expect(json).not.toHaveProperty('response_text')
    expect(json).toMatchObject({texts: 'hidden', markers: 'shortened', request_chars: 5})
    expect(JSON.stringify(json)).not.toContain(EMAIL)
  })

  it('--show-text prints the texts with markers shortened; --show-markers in full', async () => {
    const text = await run(['show', 'r-leak', '--db', db, '--show-text'])
    expect(text.stdout).toContain(EMAIL)
    expect(text.stdout).toContain('CANARY-5e5e…')
    expect(text.stdout).not.toContain(A)
    const full = JSON.parse((await run(['show', 'r-leak', '--db', db, '--json', '--show-text', '--show-markers'])).stdout) as Record<string, unknown>
    expect(full).toMatchObject({texts: 'shown', markers: 'full', response_text: `Sure: ${A} ${EMAIL} ${SHARED}`})
  })

  it('--raw stays the original bytes', async () => {
    expect((await run(['show', 'r-leak', '--db', db, '--raw'])).stdout).toContain(A)
  })
})

describe('error lines quote log bytes safely', () => {
  it('a refused file whose only line carries CR and ESC: one error line with the controls made visible', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-hostile-'))
    const file = path.join(dir, 'evil.jsonl')
    fs.writeFileSync(file, 'x\r\u001b[2Kevil\n')
    const r = await run(['ingest', 'logs', file, '--db', path.join(dir, 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/evil\.jsonl: not ingested/)
    expect(r.stdout + r.stderr).not.toMatch(/[\r\u001b]/)
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('Error:'))).toHaveLength(1)
  })
})
