import type {TimelineHour} from '../../scope/build-timeline.js'
import {esc, num, nums} from './escape.js'

// Hand-made SVG: two small charts need no library (the smallest charting libraries are
// tens of KB minified; these functions add a few KB of markup), print as sharply as text,
// and run with no script at all.

const HOUR = 3600_000
const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)
const DAY = 24 * HOUR

export interface TimelineChartInput {
  hours: TimelineHour[]
  /** false where nothing was searched (never scanned, or a scan over no log record): an empty chart then means unknown, not none */
  scanned: boolean
  /** why nothing is known where `scanned` is false, with what to run (default: the case has never been scanned (crosstalk scan)) */
  unscannedReason?: string
  bugWindow: {start: string; end: string} | null
  awareAt: string | null
  deadline: string | null
  /** the deadline mark's label (default '72 h deadline': Art. 33(1)'s); a processor's contractual period names itself */
  deadlineLabel?: string
  /** the KV pool size the at-risk test used; null: none given. Says why at-risk counts are unknown. */
  poolTokens?: number | null
  /** set where the marker counts are not known (no canary registry): what the hour tooltips say instead of a count */
  markersUnknown?: string
  /** set where the counts by verbatim text are not known (findings out of date): what the hour tooltips say instead of a count */
  textUnknown?: string
  /** records whose at-risk test is open (status or prompt size not recorded): the at-risk lane counts the others only */
  atRiskUndecided?: number | null
  /** set where no response's being at risk is known (no pool size, or no record gives status and prompt size): why */
  atRiskUnknown?: string
  /** set where the exposure is not known (markers in answers, no canary registry): why an empty chart is no finding of none */
  exposureUnknown?: string
}

/**
 * Contaminated responses per hour over at-risk responses per hour, on one UTC time axis,
 * with the bug window shaded and the awareness time and the notification deadline marked.
 */
export function timelineSvg(input: TimelineChartInput): {svg: string; notes: string[]} {
  const notes: string[] = []
  // A scan over no log record ran and searched nothing: said so, never "never scanned".
  const unscanned = input.unscannedReason ?? 'the case has never been scanned (crosstalk scan)'
  const hours = input.hours.map((h) => ({...h, t: Date.parse(h.hour)}))
  const undecided = input.atRiskUndecided ?? 0
  const undecidedNote = `${nums(undecided, 'record')} whose status or prompt size is not recorded may have been at risk (not known) and ${undecided === 1 ? 'is' : 'are'} not charted.`
  if (hours.length === 0) {
    if (!input.scanned) return {svg: '', notes: [`${upperFirst(unscanned)}: nothing to chart yet.`]}
    if (input.exposureUnknown !== undefined) return {svg: '', notes: [`No response repeating another session's text and no at-risk response counted: nothing to chart; ${input.exposureUnknown}.`]}
    if (input.atRiskUnknown !== undefined) return {svg: '', notes: [`No response carrying another session's data: nothing to chart; whether any response was at risk is not known: ${input.atRiskUnknown}.`]}
    return {svg: '', notes: [undecided > 0 ? `No response carrying another session's data, and no at-risk response among the records that could be tested: nothing to chart. ${undecidedNote}` : "No response carrying another session's data and no at-risk response in this case: nothing to chart."]}
  }
  if (undecided > 0 && hours.some((h) => h.at_risk_responses !== null)) notes.push(`At-risk responses are charted among the records that could be tested; ${undecidedNote}`)
  let lo = hours[0]!.t
  let hi = hours.at(-1)!.t + HOUR
  if (input.bugWindow) (lo = Math.min(lo, Date.parse(input.bugWindow.start))), (hi = Math.max(hi, Date.parse(input.bugWindow.end)))
  // Awareness usually comes after the leak; the axis stretches to show it when it is close.
  const marks: Array<{at: number; label: string; cls: string}> = []
  for (const [iso, label, cls] of [[input.awareAt, 'aware', 'aware'], [input.deadline, input.deadlineLabel ?? '72 h deadline', 'deadline']] as const) {
    if (!iso) continue
    const at = Date.parse(iso)
    if (at >= lo - 7 * DAY && at <= hi + 7 * DAY) {
      marks.push({at, label, cls})
      lo = Math.min(lo, at)
      hi = Math.max(hi, at)
    } else notes.push(`The ${label === 'aware' ? 'awareness time' : label} (${iso.slice(0, 16).replace('T', ' ')} UTC) is more than a week from the incident and is not on the chart.`)
  }
  lo = Math.floor(lo / HOUR) * HOUR
  hi = Math.ceil(hi / HOUR) * HOUR + HOUR
  const W = 1120
  const left = 52
  const right = 12
  const plotW = W - left - right
  const top1 = 36
  const h1 = 130
  const top2 = top1 + h1 + 44
  const h2 = 70
  const H = top2 + h2 + 34
  const x = (t: number): number => left + ((t - lo) / (hi - lo)) * plotW
  const barW = Math.max(1, (plotW * HOUR) / (hi - lo) - 1)
  // A response carries another session's data by its marker or by its text alone: stacked, the marker's below.
  const maxC = Math.max(1, ...hours.map((h) => h.contaminated_responses + h.text_only_responses))
  const risk = hours.some((h) => h.at_risk_responses !== null)
  const maxR = Math.max(1, ...hours.map((h) => h.at_risk_responses ?? 0))
  // An hour's marker and text counts are 0 in the data where nothing established them: said in words instead.
  const markersUnknown = input.scanned ? input.markersUnknown : `not known (${unscanned})`
  const out: string[] = []
  out.push(`<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Responses carrying another session's data (marker, or verbatim text only) and at-risk responses per hour (UTC)">`)
  if (input.bugWindow) {
    const a = x(Date.parse(input.bugWindow.start))
    const b = x(Date.parse(input.bugWindow.end))
    out.push(`<rect class="window" x="${f(a)}" y="${top1 - 8}" width="${f(Math.max(1, b - a))}" height="${top2 + h2 - top1 + 8}"><title>bug window ${esc(input.bugWindow.start)} .. ${esc(input.bugWindow.end)}</title></rect>`)
    out.push(`<text class="label" x="${f(b - 3)}" y="${top1 - 12}" text-anchor="end">bug window</text>`)
  }
  // day ticks (UTC midnight), at most ~12 labelled; 6-hour lines while the span is short
  const step = Math.max(1, Math.ceil((hi - lo) / DAY / 12)) * DAY
  if (hi - lo <= 5 * DAY) {
    for (let t = Math.ceil(lo / (6 * HOUR)) * 6 * HOUR; t <= hi; t += 6 * HOUR) {
      if (t % DAY === 0) continue
      out.push(`<line class="grid" x1="${f(x(t))}" x2="${f(x(t))}" y1="${top1}" y2="${top2 + h2}"/>`)
      out.push(`<text class="tick" x="${f(x(t))}" y="${top2 + h2 + 14}" text-anchor="middle">${new Date(t).getUTCHours()}h</text>`)
    }
  }
  for (let d = Math.ceil(lo / DAY) * DAY; d <= hi; d += step) {
    out.push(`<line class="grid day" x1="${f(x(d))}" x2="${f(x(d))}" y1="${top1}" y2="${top2 + h2}"/>`)
    out.push(`<text class="tick day" x="${f(x(d))}" y="${top2 + h2 + 14}" text-anchor="middle">${dayLabel(d)}</text>`)
  }
  out.push(`<line class="axis" x1="${left}" x2="${W - right}" y1="${top1 + h1}" y2="${top1 + h1}"/>`)
  out.push(`<text class="tick" x="${left - 6}" y="${top1 + 4}" text-anchor="end">${num(maxC)}</text><text class="tick" x="${left - 6}" y="${top1 + h1}" text-anchor="end">0</text>`)
  out.push(`<text class="label" x="${left}" y="${top1 - 12}">responses carrying another session's data per hour: with its marker (dark), by verbatim text only (light)</text>`)
  for (const h of hours) {
    const tip = `<title>${esc(h.hour.slice(0, 13).replace('T', ' '))}:00 UTC: ${markersUnknown === undefined ? `${nums(h.contaminated_responses, 'response')} with another session's marker (${nums(h.sightings, 'sighting')})` : `responses with another session's marker ${esc(markersUnknown)}`}, ${input.scanned && input.textUnknown === undefined ? nums(h.text_only_responses, 'response') : 'responses'} by verbatim text only${input.scanned ? (input.textUnknown === undefined ? '' : ` ${esc(input.textUnknown)}`) : ` not known (${esc(unscanned)})`}${h.at_risk_responses === null ? '' : `, ${nums(h.at_risk_responses, 'response', 'responses')} at risk`}</title>`
    const bm = (h.contaminated_responses / maxC) * h1
    if (h.contaminated_responses > 0) out.push(`<rect class="bar-leak" x="${f(x(h.t))}" y="${f(top1 + h1 - bm)}" width="${f(barW)}" height="${f(bm)}">${tip}</rect>`)
    if (h.text_only_responses > 0) {
      const bt = (h.text_only_responses / maxC) * h1
      out.push(`<rect class="bar-text" x="${f(x(h.t))}" y="${f(top1 + h1 - bm - bt)}" width="${f(barW)}" height="${f(bt)}">${tip}</rect>`)
    }
    if (risk && (h.at_risk_responses ?? 0) > 0) {
      const bh = ((h.at_risk_responses ?? 0) / maxR) * h2
      out.push(`<rect class="bar-risk" x="${f(x(h.t))}" y="${f(top2 + h2 - bh)}" width="${f(barW)}" height="${f(bh)}">${tip}</rect>`)
    }
  }
  out.push(`<line class="axis" x1="${left}" x2="${W - right}" y1="${top2 + h2}" y2="${top2 + h2}"/>`)
  if (risk) {
    out.push(`<text class="tick" x="${left - 6}" y="${top2 + 4}" text-anchor="end">${num(maxR)}</text><text class="tick" x="${left - 6}" y="${top2 + h2}" text-anchor="end">0</text>`)
    out.push(`<text class="label" x="${left}" y="${top2 - 12}">at-risk responses per hour (status 200, prompt at or over the KV pool)</text>`)
  } else {
    const why = input.poolTokens === null || input.poolTokens === undefined ? 'unknown without a KV pool size (crosstalk scan --pool-tokens N)' : 'unknown: no record gives both its HTTP status and its prompt size'
    out.push(`<text class="label" x="${left}" y="${top2 + h2 / 2}">at-risk responses: ${why}</text>`)
  }
  for (const m of marks) {
    out.push(`<line class="mark-${m.cls}" x1="${f(x(m.at))}" x2="${f(x(m.at))}" y1="${top1 - 8}" y2="${top2 + h2}"><title>${esc(m.label)}: ${esc(new Date(m.at).toISOString())}</title></line>`)
    out.push(`<text class="label mark-text-${m.cls}" x="${f(x(m.at) - 3)}" y="${top1 + 10}" text-anchor="end">${esc(m.label)}</text>`)
  }
  out.push('</svg>')
  return {svg: out.join(''), notes}
}

/** Tenants ordered by how much they leaked and received, the heaviest first. */
export function rankTenants(matrix: {tenants: string[]; responses: number[][]}): number[] {
  const weight = matrix.tenants.map((_, i) => matrix.responses[i]!.reduce((a, v) => a + v, 0) + matrix.responses.reduce((a, row) => a + row[i]!, 0))
  return matrix.tenants.map((_, i) => i).sort((a, b) => weight[b]! - weight[a]! || (matrix.tenants[a]! < matrix.tenants[b]! ? -1 : 1))
}

/**
 * The flows as a heat map over the `top` tenants with the most flow (rows: the tenant whose
 * data leaked, columns: the tenant that received it); colour on a square-root scale so a
 * single response still shows beside a hundred.
 */
export function heatmapSvg(matrix: {tenants: string[]; responses: number[][]}, top = 30): {svg: string; shown: number} {
  const order = rankTenants(matrix).slice(0, top)
  const n = order.length
  if (n === 0) return {svg: '', shown: 0}
  const cell = Math.max(10, Math.min(28, Math.floor(600 / n)))
  const labelW = 190
  const labelH = 150
  // room on the right for the last column labels (rotated) and the colour scale
  const W = labelW + n * cell + 150
  const H = Math.max(labelH + n * cell + 8, labelH + 130)
  const max = Math.max(1, ...order.flatMap((i) => order.map((j) => matrix.responses[i]![j]!)))
  const name = (i: number): string => esc(clipName(matrix.tenants[i]!, 26))
  const out = [`<svg class="chart heatmap" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="Tenant-to-tenant flows">`]
  order.forEach((i, r) => {
    out.push(`<text class="tick" x="${labelW - 6}" y="${f(labelH + r * cell + cell * 0.7)}" text-anchor="end">${name(i)}</text>`)
    out.push(`<text class="tick" transform="translate(${f(labelW + r * cell + cell * 0.7)},${labelH - 6}) rotate(-60)">${name(i)}</text>`)
  })
  order.forEach((i, r) =>
    order.forEach((j, c) => {
      const v = matrix.responses[i]![j]!
      const tip = `<title>${esc(matrix.tenants[i])} → ${esc(matrix.tenants[j])}: ${num(v)} response${v === 1 ? '' : 's'}${i === j ? ' (same tenant, other session)' : ''}</title>`
      out.push(`<rect class="${v === 0 ? 'cell-0' : 'cell'}" x="${labelW + c * cell}" y="${labelH + r * cell}" width="${cell - 1}" height="${cell - 1}"${v === 0 ? '' : ` fill="${shade(v / max)}"`}>${tip}</rect>`)
    }),
  )
  // colour scale
  const lx = labelW + n * cell + 24
  const steps = [...new Set([1, Math.round(max / 8), Math.round(max / 4), Math.round(max / 2), max])].filter((v) => v >= 1).sort((a, b) => a - b)
  steps.forEach((v, k) => {
    out.push(`<rect x="${lx}" y="${labelH + k * 18}" width="14" height="14" fill="${shade(v / max)}"/>`)
    out.push(`<text class="tick" x="${lx + 20}" y="${labelH + k * 18 + 11}">${num(v)}${k === steps.length - 1 ? (v === 1 ? ' response' : ' responses') : ''}</text>`)
  })
  out.push('</svg>')
  return {svg: out.join(''), shown: n}
}

/** Light to dark red on a square-root scale. */
export function shade(fraction: number): string {
  const t = Math.sqrt(Math.min(1, Math.max(0, fraction)))
  const from = [0xfc, 0xd5, 0xce]
  const to = [0x7f, 0x00, 0x0d]
  return `#${from.map((a, k) => Math.round(a + (to[k]! - a) * t).toString(16).padStart(2, '0')).join('')}`
}

/** Tenant ids often share a long prefix and differ at the end: keep both ends, cut the middle. */
function clipName(text: string, max: number): string {
  const chars = [...text]
  if (chars.length <= max) return text
  const head = Math.min(8, Math.floor((max - 1) / 3))
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (max - 1 - head)).join('')}`
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const dayLabel = (t: number): string => `${MONTHS[new Date(t).getUTCMonth()]} ${new Date(t).getUTCDate()}`

const f = (v: number): string => (Math.round(v * 10) / 10).toString()
