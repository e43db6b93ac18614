import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {renderReport} from '../../src/cli/report-output.js'
import {renderCaseReportHtml} from '../../src/cli/html/case-report.js'
import {pdfSafe, renderArticle33Pdf} from '../../src/cli/render-pdf.js'
import {gatherCaseReport} from '../../src/notify/case-report-data.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildArticle34} from '../../src/notify/article34.js'
import {AUTHORITIES} from '../../src/notify/authority-forms.js'
import {escapeMd} from '../../src/notify/escape.js'
import {buildFacts, loadFactsInputs, type CaseFacts, type FactsInputs} from '../../src/notify/facts.js'
import {openIncident, requireIncident, updateIncident, type IncidentPatch} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {LANGUAGES, PHRASES} from '../../src/notify/phrases.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {openItemText, renderArticle33Markdown, renderArticle34Markdown, renderProcessorNoticeMarkdown, renderRegisterMarkdown} from '../../src/notify/render-markdown.js'
import type {OpenItem} from '../../src/notify/statements.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// Every "to be completed: ..." a document shows, in a cell, a line or a form field, names an
// open item of that document: a reader who sees a gap finds it in the list of what is missing,
// with what records it. Checked over a leak case, a case with no leak, a case never scanned
// (what --allow-incomplete drafts from) and incidents with only the facts `incident open` needs,
// for every document, every authority's form and both languages.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const A2 = 'CANARY-a2a2a2a2a2a2a2a2a2a2'
const B1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'

const cases: TestCase[] = []
const dbOf = new Map<FactsInputs, TestCase>()
/** 40 words no other text holds: the same passage in two customers' prompts makes its source ambiguous. */
function passage(): string {
  let x = 12345
  const out: string[] = []
  for (let i = 0; i < 40; i++) {
    let w = ''
    for (let j = 0; j < 6; j++) w += String.fromCharCode(97 + ((x = (x * 1103515245 + 12345) % 2147483648) % 26))
    out.push(w)
  }
  return out.join(' ')
}

interface Extra {
  /** initech receives text both acme and globex had sent: provenance names no source */
  ambiguous?: boolean
  /** the initial notice to acme is recorded: its notice is a follow-up (Art. 33(4)) */
  noticeSent?: boolean
}

async function build(kind: 'leak' | 'no-leak' | 'never-scanned', role: 'controller' | 'processor', fields: IncidentPatch = {}, extra: Extra = {}): Promise<FactsInputs> {
  const c = makeCase()
  cases.push(c)
  await c.addCanaries([[A1, 'acme', 'acme-s1'], [A2, 'acme', 'acme-s2'], [B1, 'globex', 'globex-s1']])
  const leak = kind === 'leak'
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T10:05:00Z'), tenant_id: 'acme', session_id: 'acme-s1', decode_node: 'n1', prompt_tokens: 100, request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', decode_node: 'n1', prompt_tokens: 100, request_text: 'hi', response_text: leak ? `Sure ${A1} mail bob@example.com` : 'hello'},
    // the same customer's other session receives acme-s2's data
    {request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:15:00Z'), tenant_id: 'acme', session_id: 'acme-s3', decode_node: 'n1', prompt_tokens: 100, request_text: 'hi', response_text: leak ? `Here ${A2}` : 'hello'},
    ...(extra.ambiguous
      ? [
          {request_id: 'p1', ts_ms: Date.parse('2026-10-22T11:20:00Z'), tenant_id: 'acme', session_id: 'acme-s4', decode_node: 'n1', prompt_tokens: 100, request_text: `summarise ${passage()} please`, response_text: 'ok'},
          {request_id: 'p2', ts_ms: Date.parse('2026-10-22T11:21:00Z'), tenant_id: 'globex', session_id: 'globex-s2', decode_node: 'n1', prompt_tokens: 100, request_text: `read ${passage()} now`, response_text: 'ok'},
          {request_id: 'p3', ts_ms: Date.parse('2026-10-22T11:25:00Z'), tenant_id: 'initech', session_id: 'initech-s1', decode_node: 'n1', prompt_tokens: 100, request_text: 'hi', response_text: `here ${passage()} end`},
        ]
      : []),
  ])
  if (kind !== 'never-scanned') scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  const now = new Date('2026-10-23T10:00:00.000Z')
  openIncident(c.db, {title: 'Leak', role, awareAt: new Date('2026-10-23T08:00:00Z'), now})
  if (Object.keys(fields).length > 0) updateIncident(c.db, fields, now)
  if (extra.noticeSent) recordNotification(c.db, requireIncident(c.db), {phase: 'initial', at: new Date('2026-10-23T09:30:00Z'), reference: 'N-1', recipient: 'acme', now})
  const inputs = loadFactsInputs(c.db)
  dbOf.set(inputs, c)
  return inputs
}

const NOW = new Date('2026-10-23T12:00:00.000Z')


const FULL: IncidentPatch = {
  controller_name: 'Acme Ltd', controller_contact: 'legal@acme.example', dpo_name: 'J. Doe', dpo_contact: 'dpo@acme.example', lead_authority: 'CNIL', countries: 'FR',
  systems: 'gateway', measures_taken: 'cache off', measures_proposed: 'per-tenant cache', cause: 'stale KV pages', cause_category: 'internal-non-malicious', measures_before: 'TLS',
  cross_border: 'no', data_unintelligible: 'no', police_report: 'no', other_authorities: 'none', establishment_countries: 'FR', authorities_notified: 'none yet',
}

const documents: Array<{name: string; inputs: FactsInputs}> = []
beforeAll(async () => {
  for (const kind of ['leak', 'no-leak', 'never-scanned'] as const) {
    for (const role of ['controller', 'processor'] as const) {
      documents.push({name: `${kind} ${role}, minimal facts`, inputs: await build(kind, role)})
    }
  }
  documents.push({name: 'leak controller, many facts', inputs: await build('leak', 'controller', FULL)})
  documents.push({name: 'leak processor, many facts', inputs: await build('leak', 'processor', FULL)})
  documents.push({name: 'leak processor, a source not established, initial notice to acme sent', inputs: await build('leak', 'processor', {}, {ambiguous: true, noticeSent: true})})
  documents.push({name: 'leak controller, a source not established', inputs: await build('leak', 'controller', FULL, {ambiguous: true})})
}, 60_000)
afterAll(() => {
  for (const c of cases) c.close()
})

/** Each gap a Markdown document shows: the text after "to be completed: " up to the end of its cell or line. */
function gaps(md: string, lang: 'en' | 'fr'): string[] {
  const prefix = escapeMd(PHRASES[lang].toComplete(''))
  const out: string[] = []
  for (const line of md.split('\n')) {
    let at = line.indexOf(prefix)
    while (at >= 0) {
      const rest = line.slice(at + prefix.length)
      const end = rest.search(/ \| | \|$/)
      out.push((end >= 0 ? rest.slice(0, end) : rest).trim())
      at = line.indexOf(prefix, at + prefix.length)
    }
  }
  return out
}

function unmatched(md: string, lang: 'en' | 'fr', openItems: ReadonlyArray<{item: string}>): string[] {
  const named = openItems.map((o) => escapeMd(o.item))
  return gaps(md, lang).filter((g) => !named.some((item) => g.startsWith(item)))
}

interface Rendered {
  name: string
  language: 'en' | 'fr'
  md: string
  openItems: ReadonlyArray<OpenItem>
  /** the JSON form, as `--format json` writes it */
  json: string
  /** the PDF form, as `--format pdf` writes it */
  pdf: () => Promise<Buffer>
}

const pdfTitle = {title: 'DRAFT', createdAt: '2026-10-23T12:00:00.000Z'}

/** Every document of every case, every authority's form, in both languages. */
function renderAll(): Rendered[] {
  const out: Rendered[] = []
  for (const {name, inputs} of documents) {
    const facts = buildFacts(inputs, NOW)
    // A processor drafts the controller's documents only on its behalf (facts narrowed to it).
    const drafts: Array<[string, CaseFacts, string | undefined]> =
      facts.incident?.role === 'processor' ? facts.tenants.map((t) => [` for ${t.tenant_id}`, buildFacts(inputs, NOW, {tenant: t.tenant_id}), t.tenant_id]) : [['', facts, undefined]]
    for (const language of LANGUAGES) {
      for (const [who, f, onBehalfOf] of drafts) {
        for (const authority of AUTHORITIES) {
          const d = buildArticle33(f, {authority, language, onBehalfOf})
          out.push({name: `${name}${who}: article33 ${authority} ${language}`, language, md: renderArticle33Markdown(d), openItems: d.open_items, json: JSON.stringify(d, null, 2), pdf: () => renderArticle33Pdf(d)})
        }
        const letter = buildArticle34(f, {language, onBehalfOf})
        out.push({name: `${name}${who}: article34 ${language}`, language, md: renderArticle34Markdown(letter), openItems: letter.open_items, json: JSON.stringify(letter, null, 2), pdf: async () => (await renderReport('pdf', letter, () => renderArticle34Markdown(letter), pdfTitle)) as Buffer})
      }
      const register = buildRegisterEntry(facts, {language})
      out.push({name: `${name}: register ${language}`, language, md: renderRegisterMarkdown(register), openItems: register.open_items, json: JSON.stringify(register, null, 2), pdf: async () => (await renderReport('pdf', register, () => renderRegisterMarkdown(register), pdfTitle)) as Buffer})
      if (facts.incident?.role === 'processor') {
        for (const t of facts.tenants) {
          const notice = buildProcessorNotice(facts, t.tenant_id, {language})
          out.push({name: `${name}: processor notice ${t.tenant_id} ${language}`, language, md: renderProcessorNoticeMarkdown(notice), openItems: notice.open_items, json: JSON.stringify(notice, null, 2), pdf: async () => (await renderReport('pdf', notice, () => renderProcessorNoticeMarkdown(notice), pdfTitle)) as Buffer})
        }
      }
    }
  }
  return out
}

describe('every "to be completed" in a document names one of its open items', () => {
  it('covers a source not established and a follow-up notice', () => {
    const last = documents.find((d) => d.name.startsWith('leak processor, a source not established'))!
    const facts = buildFacts(last.inputs, NOW)
    expect(facts.scope?.exposure.source_not_named).toBe(1)
    expect(buildProcessorNotice(facts, 'acme').phase).toBe('follow-up')
    expect(buildProcessorNotice(facts, 'initech').you_received_other_data.source_not_named).toBe(1)
  })

  it('holds for every document, every authority form, both languages', () => {
    const rendered = renderAll()
    expect(documents.some(({inputs}) => buildFacts(inputs, NOW).tenants.length > 0)).toBe(true)
    const problems = rendered.flatMap((r) => unmatched(r.md, r.language, r.openItems).map((g) => `${r.name}: ${g}`))
    expect([...new Set(problems)]).toEqual([])
  })
})

// The same open items in every form a document takes: the Markdown lists each (in its section
// and in the closing list), the JSON carries each in open_items, the PDF (drawn from the
// Markdown) shows each, and the case page lists those of the draft it names.

/** Text as a reader gets it from a PDF: words, single spaces. */
const words = (text: string): string => text.replace(/\s+/g, ' ').trim()

describe('every open item is in every form of its document', () => {
  it('the Markdown shows each open item of the JSON form, and every gap it shows is one of them', () => {
    const problems: string[] = []
    for (const r of renderAll()) {
      const fromJson = (JSON.parse(r.json) as {open_items: OpenItem[]}).open_items
      expect(fromJson).toEqual(r.openItems)
      for (const o of fromJson) if (!r.md.includes(openItemText(o, r.language))) problems.push(`${r.name}: not in the Markdown: ${o.item.slice(0, 100)}`)
      for (const g of unmatched(r.md, r.language, fromJson)) problems.push(`${r.name}: gap not in the JSON: ${g}`)
    }
    expect([...new Set(problems)]).toEqual([])
  })

  it('the PDF shows each open item, in both languages', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'open-items-pdf-'))
    const problems: string[] = []
    // One authority's form per case and language: the PDF is drawn from the same Markdown for each.
    const sample = renderAll().filter((r) => !/article33 (ico|cnil|dpc) /.test(r.name))
    let i = 0
    for (const r of sample) {
      const file = path.join(dir, `${i++}.pdf`)
      fs.writeFileSync(file, await r.pdf())
      const text = words(execFileSync('pdftotext', [file, '-'], {encoding: 'utf8'}))
      for (const o of r.openItems) {
        const shown = words(pdfSafe(PHRASES[r.language].toComplete(o.item)))
        if (!text.includes(shown)) problems.push(`${r.name}: not in the PDF: ${o.item.slice(0, 100)}`)
      }
    }
    fs.rmSync(dir, {recursive: true, force: true})
    expect([...new Set(problems)]).toEqual([])
  }, 240_000)

  it('the case page lists each open item of the draft it names', () => {
    const problems: string[] = []
    for (const {name, inputs} of documents) {
      const tc = dbOf.get(inputs)!
      const data = gatherCaseReport(tc.db, {now: NOW, toolVersion: 'test', showMarker: (m) => m, markersShown: false})
      const html = renderCaseReportHtml(data).replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
      const facts = buildFacts(inputs, NOW)
      const items: OpenItem[] = facts.incident?.role === 'processor'
        ? [...buildRegisterEntry(facts).open_items, ...facts.tenants.flatMap((t) => buildProcessorNotice(facts, t.tenant_id, {language: 'en'}).open_items)]
        : buildArticle33(facts).open_items
      for (const o of items) if (!html.includes(o.item)) problems.push(`${name}: not on the case page: ${o.item.slice(0, 100)}`)
    }
    expect([...new Set(problems)]).toEqual([])
  })
})

/** The English phrase table's sentences (strings of some length; functions cannot be listed). */
function englishSentences(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.length >= 24 && !/^crosstalk /.test(value)) out.push(value)
  } else if (value && typeof value === 'object') for (const v of Object.values(value)) englishSentences(v, out)
  return out
}

describe('the French documents are French from end to end', () => {
  it('hold no sentence of the English phrase table and no English method of the scope', () => {
    const french = new Set(englishSentences(PHRASES.fr))
    const english = englishSentences(PHRASES.en).filter((s) => !french.has(s))
    for (const {inputs} of documents) {
      const s = buildFacts(inputs, NOW).scope
      if (s) english.push(s.data_subjects.method, s.records.method)
    }
    const problems: string[] = []
    for (const r of renderAll()) {
      if (r.language !== 'fr') continue
      for (const e of english) if (r.md.includes(escapeMd(e))) problems.push(`${r.name}: ${e.slice(0, 80)}`)
      // English in any sentence: its commonest words, outside commands and identifiers
      for (const line of r.md.split('\n')) {
        const prose = line.replace(/crosstalk [^);|]*/g, '').replace(/CANARY-\S*/g, '')
        if (/\b(the|was|were|which|whose|with|not known|response)\b/i.test(prose)) problems.push(`${r.name}: ${line.slice(0, 160)}`)
      }
    }
    expect([...new Set(problems)]).toEqual([])
  })
})
