import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import * as fontkit from 'fontkit'
import PDFDocument from 'pdfkit'
import type {Article33Result} from '../notify/article33.js'
import {unescapeMd} from '../notify/escape.js'
import {PHRASES} from '../notify/phrases.js'
import {renderArticle33Markdown} from '../notify/render-markdown.js'
import {compte, count} from '../util/plural.js'

// PDF at the edge: the same Markdown the templates produce (so a DPO's wording reaches the
// PDF too), drawn with pdfkit by a small reader that knows headings, paragraphs, bullets,
// tables and **bold**, plus a title block, the clock status, figures drawn where the
// template says <!-- figure:NAME -->, page numbers, and the evidence annex on its own page.
// Values arrive Markdown-escaped and are unescaped only when drawn, so a leaked "|" or "#"
// is text here too, never structure.

type Doc = InstanceType<typeof PDFDocument>

export interface PdfOptions {
  title: string
  subtitle?: string
  /** the coloured status box under the title */
  status?: {label: string; lines: string[]; tone: 'ok' | 'warn' | 'bad' | 'info'}
  figures?: Record<string, (doc: Doc) => void>
  /** ISO time stamped into the PDF metadata (keeps output reproducible) */
  createdAt: string
  /** Markdown lines before this prefix are skipped (the title block replaces them) */
  skipUntil?: RegExp
  /** the document's language, for the page footer */
  language?: 'en' | 'fr'
}

const MARGIN = 50
const TONE: Record<string, string> = {ok: '#1b7f3b', warn: '#b36b00', bad: '#b00020', info: '#1f4e79'}
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ')

// The standard PDF fonts (Helvetica, Courier) speak WinAnsi alone: a Polish, Czech, Greek or
// Cyrillic name drew as "?", and three customers named in Greek read as the same "tn-?????".
// Open Sans (SIL OFL, from @expo-google-fonts/open-sans) is embedded instead, subset by pdfkit to
// the glyphs used: Latin with its extensions, Greek, Cyrillic and Vietnamese. A character it has
// no glyph for (CJK, emoji) is written as <U+XXXX>, never as "?", and the document says how many.
interface BodyFonts {
  regular: Buffer
  bold: Buffer
  has: (codePoint: number) => boolean
}
let bodyFonts: BodyFonts | null | undefined

/** The embedded fonts, or null where the package is missing (the standard fonts and WinAnsi then). */
function fonts(): BodyFonts | null {
  if (bodyFonts !== undefined) return bodyFonts
  try {
    const require = createRequire(import.meta.url)
    const regular = readFileSync(require.resolve('@expo-google-fonts/open-sans/400Regular/OpenSans_400Regular.ttf'))
    const bold = readFileSync(require.resolve('@expo-google-fonts/open-sans/700Bold/OpenSans_700Bold.ttf'))
    const r = fontkit.create(regular)
    const b = fontkit.create(bold)
    bodyFonts = {regular, bold, has: (cp) => r.hasGlyphForCodePoint(cp) && b.hasGlyphForCodePoint(cp)}
  } catch {
    bodyFonts = null
  }
  return bodyFonts
}

const REGULAR = 'Body'
const BOLD = 'Body-Bold'

/** Characters written as <U+XXXX> in the document being drawn (said once at its end). */
let shownAsCodePoints = 0

/** Whether the document's fonts draw `ch` (a code point of one or two units). */
function drawable(ch: string, code: number): boolean {
  const f = fonts()
  if (f) return f.has(code)
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(ch)
}

/**
 * Text as the PDF's fonts can draw it: control characters as \xNN, a character no embedded font
 * has as <U+XXXX> (counted for the note at the document's end). A "<" of the text itself that is
 * followed by "U+" is written <U+003C> too (and counted): the text `tn-<U+4E2D>` and the text
 * `tn-中` drawn without a glyph for 中 printed alike, two tenants as one in the regulator's PDF.
 * So every <U+XXXX> in the PDF stands for one character, and a "<" drawn as itself never
 * begins one.
 */
export function pdfSafe(text: string): string {
  let out = ''
  let at = 0
  for (const ch of text) {
    const code = ch.codePointAt(0)!
    const next = at + ch.length
    if (ch === '\n') out += ch
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += `\\x${code.toString(16).padStart(2, '0')}`
    else if (ch === '<' && text.startsWith('U+', next)) {
      shownAsCodePoints++
      out += '<U+003C>'
    } else if (drawable(ch, code)) out += ch
    else if (ch === '→') out += '->'
    else {
      shownAsCodePoints++
      out += `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`
    }
    at = next
  }
  return out
}

const clean = (s: string): string => pdfSafe(unescapeMd(s.replace(/\*\*/g, '').replace(/(^|[^\\])_([^_]+)_/g, '$1$2')))

export function renderMarkdownPdf(markdown: string, options: PdfOptions): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: {top: MARGIN, bottom: MARGIN + 10, left: MARGIN, right: MARGIN},
    bufferPages: true,
    info: {Title: pdfSafe(options.title), Author: 'crosstalk', Creator: 'crosstalk', CreationDate: new Date(options.createdAt)},
  })
  const f = fonts()
  doc.registerFont(REGULAR, f ? f.regular : 'Helvetica')
  doc.registerFont(BOLD, f ? f.bold : 'Helvetica-Bold')
  shownAsCodePoints = 0
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })

  drawTitleBlock(doc, options)
  let lines = markdown.split(/\r?\n/)
  if (options.skipUntil) {
    const at = lines.findIndex((l) => options.skipUntil!.test(l))
    if (at > 0) lines = lines.slice(at)
  }
  drawMarkdown(doc, lines, options.figures ?? {})
  if (shownAsCodePoints > 0) {
    const n = shownAsCodePoints
    const fr = options.language === 'fr'
    doc.moveDown(0.5).font(REGULAR).fontSize(8).fillColor('#666666')
    doc.text(
      fr
        ? `${compte(n, 'caractère', 'caractères')} que les polices de ce PDF ne savent pas dessiner ${n === 1 ? 'est écrit' : 'sont écrits'} <U+XXXX> (leur point de code Unicode ; un « < » du texte suivi de « U+ » est écrit <U+003C>) ; la version Markdown les donne tels quels.`
        : `${count(n, 'character', 'characters')} the fonts of this PDF cannot draw ${n === 1 ? 'is' : 'are'} written <U+XXXX> (the Unicode code point; a "<" of the text followed by "U+" is written <U+003C>); the Markdown version gives ${n === 1 ? 'it' : 'them'} as written.`,
      MARGIN, doc.y, {width: contentWidth(doc)},
    )
  }

  // Page numbers last, when the page count is known.
  const range = doc.bufferedPageRange()
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i)
    const bottom = doc.page.margins.bottom
    doc.page.margins.bottom = 0
    doc.font(REGULAR).fontSize(8).fillColor('#666666')
    doc.text(`${pdfSafe(options.title).slice(0, 80)}`, MARGIN, doc.page.height - 35, {width: doc.page.width - 2 * MARGIN, align: 'left', lineBreak: false})
    doc.text(options.language === 'fr' ? `Page ${i + 1} sur ${range.count}` : `Page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - 35, {width: doc.page.width - 2 * MARGIN, align: 'right', lineBreak: false})
    doc.page.margins.bottom = bottom
  }
  doc.end()
  return done
}

function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right
}

function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage()
}

function drawTitleBlock(doc: Doc, options: PdfOptions): void {
  doc.rect(0, 0, doc.page.width, 8).fill('#1f4e79')
  doc.fillColor('#000000').font(BOLD).fontSize(18).text(pdfSafe(options.title), MARGIN, MARGIN)
  if (options.subtitle) doc.moveDown(0.2).font(REGULAR).fontSize(11).fillColor('#333333').text(pdfSafe(options.subtitle))
  doc.moveDown(0.6)
  if (options.status) {
    const s = options.status
    const y = doc.y
    const h = 22 + s.lines.length * 14
    const color = TONE[s.tone] ?? TONE.info!
    doc.rect(MARGIN, y, contentWidth(doc), h).lineWidth(1.5).strokeColor(color).stroke()
    doc.rect(MARGIN, y, 6, h).fill(color)
    doc.fillColor(color).font(BOLD).fontSize(12).text(pdfSafe(s.label), MARGIN + 14, y + 6)
    doc.fillColor('#000000').font(REGULAR).fontSize(10)
    for (const line of s.lines) doc.text(pdfSafe(line), MARGIN + 14)
    doc.y = y + h + 10
    doc.x = MARGIN
  }
}

function drawMarkdown(doc: Doc, lines: string[], figures: Record<string, (doc: Doc) => void>): void {
  let i = 0
  let paragraph: string[] = []
  let afterList = false
  const endList = (): void => {
    if (afterList) doc.moveDown(0.4)
    afterList = false
  }
  const flush = (): void => {
    if (paragraph.length === 0) return
    endList()
    drawRich(doc, paragraph.join(' '), {})
    doc.moveDown(0.5)
    paragraph = []
  }
  while (i < lines.length) {
    const line = lines[i]!
    const figure = /^<!--\s*figure:(\w+)\s*-->$/.exec(line.trim())
    if (figure) {
      flush()
      endList()
      figures[figure[1]!]?.(doc)
      i++
    } else if (/^#{1,3} /.test(line)) {
      flush()
      afterList = false
      const level = line.indexOf(' ')
      const text = line.slice(level + 1)
      // The annex starts a page only when the current one has no room for its heading and a
      // few rows: a forced break after a spilled list left pages holding one bullet.
      ensureSpace(doc, /^Annex|^Annexe/.test(text) ? 140 : 60)
      doc.moveDown(level === 1 ? 0.3 : 0.6)
      doc.font(BOLD).fontSize(level === 1 ? 16 : level === 2 ? 13 : 11).fillColor(level <= 2 ? '#1f4e79' : '#000000')
      doc.text(clean(text), MARGIN, doc.y, {width: contentWidth(doc)})
      doc.fillColor('#000000').moveDown(0.3)
      i++
    } else if (/^\s*\|/.test(line)) {
      flush()
      endList()
      const rows: string[][] = []
      while (i < lines.length && /^\s*\|/.test(lines[i]!)) {
        const cells = splitRow(lines[i]!)
        if (!cells.every((c) => /^:?-{3,}:?$/.test(c.trim()))) rows.push(cells)
        i++
      }
      drawTable(doc, rows)
    } else if (/^\s*- /.test(line)) {
      flush()
      ensureSpace(doc, 14)
      const y = doc.y
      doc.font(REGULAR).fontSize(10).text('•', MARGIN + 6, y)
      doc.y = y
      drawRich(doc, line.replace(/^\s*- /, ''), {x: MARGIN + 18})
      doc.moveDown(0.15)
      afterList = true
      i++
    } else if (line.trim() === '') {
      flush()
      i++
    } else {
      paragraph.push(line.trim())
      i++
    }
  }
  flush()
}

/** Splits a Markdown table row on unescaped pipes. */
export function splitRow(line: string): string[] {
  const body = line.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '')
  const cells: string[] = []
  let cur = ''
  for (let k = 0; k < body.length; k++) {
    const ch = body[k]!
    if (ch === '\\' && k + 1 < body.length) {
      cur += ch + body[k + 1]
      k++
    } else if (ch === '|') {
      cells.push(cur.trim())
      cur = ''
    } else cur += ch
  }
  cells.push(cur.trim())
  return cells
}

/** A paragraph with **bold** runs (split on unescaped double asterisks). */
function drawRich(doc: Doc, text: string, opts: {x?: number}): void {
  const x = opts.x ?? MARGIN
  const width = doc.page.width - doc.page.margins.right - x
  // Empty runs are dropped: pdfkit never ends a line on an empty continued text.
  const parts = text
    .split(/(?<!\\)\*\*/)
    .map((part, k) => ({bold: k % 2 === 1, text: clean(part)}))
    .filter((p) => p.text.length > 0)
  doc.fontSize(10).fillColor('#000000')
  ensureSpace(doc, 14)
  const y = doc.y
  parts.forEach((part, k) => {
    const last = k === parts.length - 1
    doc.font(part.bold ? BOLD : REGULAR)
    if (k === 0) doc.text(part.text, x, y, {width, continued: !last})
    else doc.text(part.text, {continued: !last})
  })
}

function drawTable(doc: Doc, rows: string[][]): void {
  if (rows.length === 0) return
  const cols = Math.max(...rows.map((r) => r.length))
  const width = contentWidth(doc)
  const texts = rows.map((r) => Array.from({length: cols}, (_, c) => clean(r[c] ?? '')))
  const header = rows.length > 1 && rows[0]!.some((c) => c.trim() !== '')
  // The largest type at which every word and number fits its column whole.
  const {widths, size} = fitTable(doc, texts, width, header)
  const hashSize = Math.min(HASH_SIZE, size)
  const fontOf = (t: string, bold: boolean): [string, number] => (HASH.test(t) ? ['Courier', hashSize] : [bold ? BOLD : REGULAR, size])
  const cellHeight = (t: string, c: number, bold: boolean): number => {
    const [font, sz] = fontOf(t, bold)
    return doc.font(font).fontSize(sz).heightOfString(t || ' ', {width: widths[c]! - 6})
  }
  texts.forEach((row, r) => {
    const bold = header && r === 0
    const h = Math.max(...row.map((t, c) => cellHeight(t, c, bold))) + 6
    // Keep a header with at least its first row.
    ensureSpace(doc, bold ? h + 24 : h)
    const y = doc.y
    let x = MARGIN
    if (bold) doc.rect(MARGIN, y, width, h).fill('#e8eef5')
    else if (r % 2 === 0) doc.rect(MARGIN, y, width, h).fill('#f7f7f7')
    doc.fillColor('#000000')
    row.forEach((t, c) => {
      const [font, sz] = fontOf(t, bold)
      doc.font(font).fontSize(sz).text(t, x + 3, y + 3, {width: widths[c]! - 6})
      x += widths[c]!
    })
    doc.moveTo(MARGIN, y + h).lineTo(MARGIN + width, y + h).lineWidth(0.3).strokeColor('#cccccc').stroke()
    doc.y = y + h
  })
  doc.x = MARGIN
  doc.moveDown(0.6)
}

const HASH = /^[0-9a-f]{64}$/
const HASH_SIZE = 6.5
const TABLE_SIZES = [8.5, 8, 7.5, 7, 6.5, 6, 5.5]
/** Words longer than this may still break (free text such as a long URL); numbers and labels never do. */
const UNBREAKABLE = 28

/**
 * Column widths and type size for a table: every column at least as wide as its longest word
 * (numbers and header words included: "137506" or "Enregistrements" never break), a SHA-256 on
 * one line, the rest shared in proportion to content. When that does not fit the page, the
 * type gets smaller until it does.
 */
export function fitTable(doc: Doc, texts: string[][], width: number, header: boolean): {widths: number[]; size: number} {
  for (const size of TABLE_SIZES) {
    const widths = columnWidths(doc, texts, width, header, size)
    if (widths) return {widths, size}
  }
  return {widths: columnWidths(doc, texts, width, header, TABLE_SIZES.at(-1)!, true)!, size: TABLE_SIZES.at(-1)!}
}

/** Widths at this type size, or null when the columns' whole words do not fit (unless forced). */
export function columnWidths(doc: Doc, texts: string[][], width: number, header: boolean, size = 8.5, force = false): number[] | null {
  const cols = texts[0]?.length ?? 0
  const hashSize = Math.min(HASH_SIZE, size)
  const min = Array.from({length: cols}, (_, c) =>
    Math.max(
      ...texts.map((r, k) => {
        const t = r[c]!
        if (HASH.test(t)) return doc.font('Courier').fontSize(hashSize).widthOfString(t) + 8
        doc.font(header && k === 0 ? BOLD : REGULAR).fontSize(size)
        const words = t.split(/\s+/).filter((w) => w.length <= UNBREAKABLE)
        return Math.max(14, ...words.map((w) => doc.widthOfString(w) + 8))
      }),
    ),
  )
  const minTotal = min.reduce((a, b) => a + b, 0)
  if (minTotal > width && !force) return null
  const weight = Array.from({length: cols}, (_, c) => Math.min(60, Math.max(11, ...texts.map((r) => r[c]!.length))))
  const total = weight.reduce((a, b) => a + b, 0)
  const desired = weight.map((w) => (w / total) * width)
  const widths = desired.map((d, c) => Math.max(d, min[c]!))
  const over = widths.reduce((a, b) => a + b, 0) - width
  if (over > 0) {
    // take the excess from the columns that have room above their minimum, in proportion
    const room = widths.map((w, c) => Math.max(0, w - min[c]!))
    const roomTotal = room.reduce((a, b) => a + b, 0)
    const f = roomTotal > 0 ? Math.min(1, over / roomTotal) : 0
    room.forEach((r, c) => (widths[c] = widths[c]! - r * f))
  }
  if (force) {
    const sum = widths.reduce((a, b) => a + b, 0)
    if (sum > width) widths.forEach((w, c) => (widths[c] = (w / sum) * width))
  }
  return widths
}

/**
 * Bars per hour; empty hours between first and last are drawn as gaps, not skipped. `text`
 * (responses by verbatim text only) is stacked on `responses` in a lighter shade.
 */
export function drawHourlyChart(doc: Doc, byHour: Array<{hour: string; responses: number; text?: number}>, title: string, fr = false): void {
  const chartH = 150
  ensureSpace(doc, chartH + 60)
  doc.font(BOLD).fontSize(10).fillColor('#000000').text(pdfSafe(title), MARGIN, doc.y)
  const top = doc.y + 6
  const width = contentWidth(doc)
  if (byHour.length === 0) {
    doc.font(REGULAR).text(fr ? 'Aucune réponse contaminée.' : 'No contaminated responses.', MARGIN, top)
    doc.moveDown(1)
    return
  }
  const start = Date.parse(byHour[0]!.hour)
  const end = Date.parse(byHour.at(-1)!.hour)
  const hours = Math.round((end - start) / 3600_000) + 1
  const step = Math.max(1, Math.ceil(hours / 96))
  const buckets = Array.from({length: Math.ceil(hours / step)}, () => 0)
  const light = Array.from({length: buckets.length}, () => 0)
  for (const b of byHour) {
    const k = Math.floor(Math.round((Date.parse(b.hour) - start) / 3600_000) / step)
    buckets[k]! += b.responses
    light[k]! += b.text ?? 0
  }
  const max = Math.max(...buckets.map((n, k) => n + light[k]!), 1)
  const axisX = MARGIN + 30
  const plotW = width - 30
  const barW = plotW / buckets.length
  doc.lineWidth(0.5).strokeColor('#000000').moveTo(axisX, top).lineTo(axisX, top + chartH).lineTo(axisX + plotW, top + chartH).stroke()
  doc.font(REGULAR).fontSize(7).fillColor('#333333')
  doc.text(String(max), MARGIN, top - 3, {width: 26, align: 'right'})
  doc.text('0', MARGIN, top + chartH - 4, {width: 26, align: 'right'})
  buckets.forEach((n, k) => {
    const h = (n / max) * (chartH - 4)
    if (n > 0) doc.rect(axisX + k * barW + barW * 0.1, top + chartH - h, Math.max(barW * 0.8, 0.8), h).fill('#b00020')
    const t = light[k]!
    if (t > 0) {
      const ht = (t / max) * (chartH - 4)
      doc.rect(axisX + k * barW + barW * 0.1, top + chartH - h - ht, Math.max(barW * 0.8, 0.8), ht).fill('#e8a0aa')
    }
  })
  const labels = Math.min(buckets.length, 8)
  doc.fillColor('#333333')
  for (let k = 0; k < labels; k++) {
    const idx = Math.floor((k * buckets.length) / labels)
    const t = new Date(start + idx * step * 3600_000).toISOString()
    doc.text(`${t.slice(5, 10)} ${t.slice(11, 16)}`, axisX + idx * barW, top + chartH + 3, {width: 60, lineBreak: false})
  }
  doc.fillColor('#000000')
  doc.y = top + chartH + 20
  doc.x = MARGIN
  const total = byHour.reduce((a, b) => a + b.responses, 0)
  const text = byHour.reduce((a, b) => a + (b.text ?? 0), 0)
  const stacked = byHour.some((b) => b.text !== undefined)
  const caption = fr
    ? `Heures UTC ; ${step > 1 ? `chaque barre couvre ${step} heures` : 'chaque barre couvre une heure'}. ${stacked ? `Foncé : ${compte(total, 'réponse')} avec un marqueur ; clair : ${compte(text, 'réponse')} par texte reproduit seulement` : `Total ${compte(total, 'réponse')}`}, maximum ${max}.`
    : `Hours in UTC${step > 1 ? `; each bar is ${step} hours` : '; each bar is one hour'}. ${stacked ? `Dark: ${count(total, 'response')} with a marker; light: ${count(text, 'response')} by verbatim text only` : `Total ${count(total, 'response')}`}, peak ${max}.`
  doc.font(REGULAR).fontSize(8).text(caption, MARGIN)
  doc.moveDown(0.8)
}

/** Source tenant (rows) x recipient tenant (columns), shaded by number of responses. */
export function drawFlowMatrix(doc: Doc, flows: Array<{source_tenant: string; recipient_tenant: string; responses: number}>, title: string, fr = false): void {
  const volume = new Map<string, number>()
  for (const f of flows) {
    volume.set(f.source_tenant, (volume.get(f.source_tenant) ?? 0) + f.responses)
    volume.set(f.recipient_tenant, (volume.get(f.recipient_tenant) ?? 0) + f.responses)
  }
  const MAXN = 14
  const tenants = [...volume.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAXN).map(([t]) => t).sort()
  const n = tenants.length
  const cell = Math.min(24, (contentWidth(doc) - 60) / Math.max(n, 1))
  ensureSpace(doc, 40 + (n + 1) * cell + n * 11)
  doc.font(BOLD).fontSize(10).fillColor('#000000').text(pdfSafe(title), MARGIN, doc.y)
  if (n === 0) {
    doc.font(REGULAR).text(fr ? 'Aucun flux.' : 'No flows.')
    return
  }
  const top = doc.y + 6
  const left = MARGIN + 40
  const count = new Map(flows.map((f) => [`${f.source_tenant}\u0000${f.recipient_tenant}`, f.responses]))
  const max = Math.max(...flows.map((f) => f.responses), 1)
  doc.font(REGULAR).fontSize(7)
  tenants.forEach((t, c) => doc.fillColor('#333333').text(`T${c + 1}`, left + c * cell, top, {width: cell, align: 'center'}))
  tenants.forEach((src, r) => {
    const y = top + 12 + r * cell
    doc.fillColor('#333333').text(`T${r + 1}`, MARGIN, y + cell / 2 - 4, {width: 36, align: 'right'})
    tenants.forEach((dst, c) => {
      const v = count.get(`${src}\u0000${dst}`) ?? 0
      const x = left + c * cell
      const shade = v === 0 ? '#ffffff' : mix(v / max)
      doc.rect(x, y, cell, cell).fillAndStroke(shade, '#999999')
      if (v > 0) doc.fillColor(v / max > 0.5 ? '#ffffff' : '#000000').text(String(v), x, y + cell / 2 - 4, {width: cell, align: 'center'})
    })
  })
  doc.y = top + 16 + n * cell
  doc.x = MARGIN
  doc
    .fillColor('#000000')
    .fontSize(8)
    .text(
      fr
        ? 'Lignes : client source (dont les données ont fuité). Colonnes : client destinataire. Diagonale : un autre utilisateur du même client.'
        : 'Rows: source customer (whose data leaked). Columns: receiving customer. Diagonal: another user of the same customer.',
      MARGIN,
    )
  tenants.forEach((t, k) => doc.text(`T${k + 1} = ${pdfSafe(t)}`, MARGIN + 10))
  if (volume.size > MAXN) doc.text(fr ? `(+${volume.size - MAXN} autres clients non représentés ; voir le tableau des flux)` : `(+${volume.size - MAXN} more customers not drawn; see the flow table)`, MARGIN + 10)
  doc.moveDown(0.8)
}

function mix(f: number): string {
  // white -> dark red
  const c = (a: number, b: number): string => Math.round(a + (b - a) * Math.min(1, 0.25 + 0.75 * f)).toString(16).padStart(2, '0')
  return `#${c(255, 0xb0)}${c(255, 0x00)}${c(255, 0x20)}`
}

export function renderArticle33Pdf(d: Article33Result): Promise<Buffer> {
  const fr = d.language === 'fr'
  const P = PHRASES[d.language]
  const c = d.clock
  const tone = !c ? 'info' : c.late || c.status === 'overdue' ? 'bad' : c.status === 'due_soon' ? 'warn' : c.status === 'notified' ? 'ok' : 'info'
  const statusLabel = c
    ? `${P.status[c.status]}${c.late ? ` (${P.lateFlag})` : c.status === 'notified' && c.deadline ? ` (${P.inTime})` : ''}`
    : fr ? 'Aucun incident ouvert' : 'No incident opened'
  const lines = c
    ? [
        `${fr ? 'Prise de connaissance' : 'Aware at'}: ${c.aware_at}`,
        `${fr ? 'Échéance' : 'Deadline'}: ${c.deadline ?? P.clockBasis['art33(2)-without-undue-delay']}`,
        `${fr ? 'Restant' : 'Remaining'}: ${c.remaining_text}`,
      ]
    : []
  if (d.delay_reason) lines.push(`${fr ? 'Motifs du retard' : 'Reasons for delay'}: ${d.delay_reason}`)
  return renderMarkdownPdf(renderArticle33Markdown(d), {
    title: `${d.final ? P.final : P.draft} - ${fr ? 'Notification art. 33 RGPD' : 'GDPR Article 33 notification'}`,
    // Finalised with open items: said in the title block, which replaces the Markdown's head.
    subtitle: `${d.title} | ${d.authority.toUpperCase()} | ${P.phase[d.phase]}${d.finalised_with_open_items ? `\n${d.finalised_with_open_items.text}` : ''}`,
    status: {label: statusLabel, lines, tone},
    createdAt: d.generated_at,
    language: d.language,
    skipUntil: /^\| \| \|$/,
    figures: {
      // Both kinds of evidence, as the console and the case page draw them: marker-only bars showed hours of verbatim-only leaks as empty.
      timeline: (doc) => drawHourlyChart(doc, (d.scope?.by_hour ?? []).map((h) => ({hour: h.hour, responses: h.responses, text: h.text_only_responses})), fr ? "Réponses contenant des données d'une autre session, par heure (UTC)" : "Responses carrying another session's data per hour (UTC)", fr),
      flows: (doc) => drawFlowMatrix(doc, d.scope?.exposure.flows ?? [], fr ? 'Flux entre clients (réponses)' : 'Tenant-to-tenant flows (responses)', fr),
    },
  })
}
