import type {Article33Result} from './article33.js'
import {AUTHORITY_NAMES} from './authority-forms.js'
import {escapeMd} from './escape.js'
import {formatRange} from './phrases.js'
import {loadTemplate, renderTemplate, type View, type ViewValue} from './template.js'

// Markdown is rendered from the editable templates. Every value is escaped here, once,
// before it reaches a template (templates themselves are trusted text); a missing value
// reads "not yet known" rather than leaving a hole.

export function escapeView(value: unknown): ViewValue {
  if (value === null || value === undefined) return null
  if (typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'string') return escapeMd(value)
  if (Array.isArray(value)) return value.map((v) => escapeView(v)) as View[]
  if (typeof value === 'object') {
    const out: View = {}
    for (const [k, v] of Object.entries(value)) out[k] = escapeView(v)
    return out
  }
  return escapeMd(String(value))
}

const STATUS_EN: Record<string, string> = {open: 'open', due_soon: 'DUE SOON', overdue: 'OVERDUE', notified: 'notified'}
const STATUS_FR: Record<string, string> = {open: 'en cours', due_soon: 'ÉCHÉANCE PROCHE', overdue: 'DÉLAI DÉPASSÉ', notified: 'notifié'}

export function article33View(d: Article33Result): View {
  const fr = d.language === 'fr'
  const missing = missingText(d.language)
  const view = escapeView(d) as View
  const r = (x: {low: number; high: number | null} | null): string => formatRange(x, d.language, missing)
  const draftWord = d.final ? (fr ? 'FINAL' : 'FINAL') : fr ? 'PROJET' : 'DRAFT'
  return {
    ...view,
    heading: draftWord,
    status_line: d.clock
      ? fr
        ? `${draftWord}. Échéance des 72 heures : ${d.clock.deadline} (${STATUS_FR[d.clock.status]}, ${escapeMd(d.clock.remaining_text)}).`
        : `${draftWord}. 72-hour deadline ${d.clock.deadline} (${STATUS_EN[d.clock.status]}, ${escapeMd(d.clock.remaining_text)}).`
      : fr
        ? `${draftWord}. Aucun incident ouvert : échéance inconnue.`
        : `${draftWord}. No incident opened: deadline unknown.`,
    authority_name: escapeMd(AUTHORITY_NAMES[d.authority]),
    phase: d.phase,
    clock_status_text: d.clock ? (fr ? STATUS_FR : STATUS_EN)[d.clock.status] : missing,
    role: d.role ?? missing,
    nature_types: d.nature.types.join(', '),
    has_nodes: d.nature.nodes.length > 0,
    data_subject_categories: d.data_subjects.categories.map(escapeMd).join('; '),
    subjects_range: r(d.data_subjects.approximate),
    subjects_method: d.data_subjects.approximate ? escapeMd(d.data_subjects.approximate.method) : missing,
    records_range: r(d.records.approximate),
    records_method: d.records.approximate ? escapeMd(d.records.approximate.method) : missing,
    form_heading: `${escapeMd(AUTHORITY_NAMES[d.authority])}: form fields`,
    has_notifications: d.notifications.length > 0,
    has_excerpts: (d.excerpts ?? []).length > 0,
  }
}

export function renderArticle33Markdown(d: Article33Result): string {
  return renderTemplate(loadTemplate(d.language === 'fr' ? 'article33.fr.md' : 'article33.md'), article33View(d), missingText(d.language))
}

export function missingText(language: 'en' | 'fr'): string {
  return language === 'fr' ? '_non connu_' : '_not yet known_'
}

/** Article 34, processor notices and register entries: the object, escaped, into its template. */
export function renderReportMarkdown(template: string, report: object, extra: View = {}): string {
  return renderTemplate(loadTemplate(template), {...(escapeView(report) as View), ...extra}, missingText('en'))
}

export function renderProcessorNoticeMarkdown(n: import('./processor-notice.js').ProcessorNoticeResult): string {
  const view = escapeView(n) as View
  const out = view.your_data_reached_others as View
  const inn = view.you_received_other_data as View
  out.sessions_text = (out.sessions as string[]).join(', ') || 'none'
  out.markers_text = (out.markers_truncated as string[]).join(', ') || 'none'
  inn.sessions_text = (inn.sessions as string[]).join(', ') || 'none'
  out.has_detail = (out.other_customers_detail as View[]).length > 0
  inn.has_detail = (inn.other_customers_detail as View[]).length > 0
  return renderTemplate(loadTemplate('processor-notice.md'), view, missingText('en'))
}
