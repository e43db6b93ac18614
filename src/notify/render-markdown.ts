import type {Article33Result} from './article33.js'
import type {Article34Result} from './article34.js'
import {AUTHORITY_NAMES} from './authorities.js'
import {noLeakAnswer} from './authority-forms.js'
import {escapeMd, escapeMdLinkingMail} from './escape.js'
import type {FinalisedWithOpenItems} from './finalise.js'
import {PHRASES, rangeText, type Language} from './phrases.js'
import {exposureKnown} from '../scope/unscanned.js'
import type {Phrases} from './phrases-en.js'
import {followsInPhases, type ProcessorNoticeResult} from './processor-notice.js'
import type {RegisterEntryResult} from './register.js'
import type {OpenItem} from './statements.js'
import {gapText, localRef, openItemLine, restateGaps, withoutCommands, type OpenItemMode} from './reader-text.js'
import {AWARE_BEFORE_DETECTION, AWARE_BEFORE_START, DETECTED_BEFORE_START, INVESTIGATION_BEFORE_DETECTION} from './timeline-order.js'
import {WINDOW_END_CONTRADICTED, WINDOW_START_CONTRADICTED} from './recorded-vs-logs.js'
import {loadTemplate, renderTemplate, type View, type ViewValue} from './template.js'
import {compte, count} from '../util/plural.js'

// Markdown is rendered from the editable templates, one per document and language
// (templates/<name>.md and <name>.fr.md). Every value is escaped here, once, before it
// reaches a template (templates themselves are trusted text); a missing value reads as the
// language's "to be completed" rather than leaving a hole, and every open item is rendered
// in its section as "to be completed: ...".

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

const AUTHORITY_NAMES_FR: Record<string, string> = {
  edpb: 'Autorité de contrôle (modèle commun du CEPD, projet v1.0)',
  ico: "Information Commissioner's Office (Royaume-Uni)",
  cnil: "Commission nationale de l'informatique et des libertés (CNIL)",
  dpc: 'Data Protection Commission (Irlande)',
}

/** An open item's line, escaped: a draft's "to be completed: X (Art. 33(3)(d); crosstalk incident set --measures-taken ...)", a final document's "not yet known: X; it will be provided ..." (reader-text.ts). */
export function openItemText(o: OpenItem, lang: Language, mode: OpenItemMode = 'draft'): string {
  return escapeMd(openItemLine(o, lang, mode))
}

export {localRef}

/** One list per section: its open items, rendered as "to be completed: ..." (a final document: "not yet known: ..."). */
function openBySection(items: readonly OpenItem[], lang: Language, mode: OpenItemMode): View {
  const out: Record<string, string[]> = {}
  for (const o of items) (out[`open_${o.section}`] ??= []).push(openItemText(o, lang, mode))
  return out as unknown as View
}

/** The recorded parts of a value, escaped and joined; null when none is recorded. */
function joinPresent(parts: ReadonlyArray<string | null>): string | null {
  const present = parts.filter((p): p is string => p !== null && p.trim() !== '')
  return present.length > 0 ? present.map(escapeMd).join(', ') : null
}

function templateName(base: string, lang: Language): string {
  return lang === 'fr' ? `${base}.fr.md` : `${base}.md`
}

export function article33View(d: Article33Result): View {
  const P = PHRASES[d.language]
  const fr = d.language === 'fr'
  const view = escapeView(d) as View
  const word = d.final ? P.final : P.draft
  const nature = view.nature as View
  // First and last are of responses with a marker: a node that served verbatim text only has none, said so (never a gap).
  // With no canary registry a node's marker columns are not known (scope --json: null), never 0 or "none".
  const noRegistry = d.scope !== null && d.scope.registry_files === 0
  const markerUnknown = fr ? 'marqueur non connu : aucun registre' : 'marker not known: no registry'
  const noMarker = noRegistry ? markerUnknown : fr ? 'aucune avec un marqueur' : 'none with a marker'
  nature.nodes = d.nature.nodes.map(
    (n) =>
      escapeView({
        ...n,
        node: n.node === '(unknown)' ? P.unknownNode : n.node,
        first_seen: n.first_seen ?? noMarker,
        last_seen: n.last_seen ?? noMarker,
        ...(noRegistry ? {responses: markerUnknown, cross_tenant_responses: markerUnknown, cross_session_responses: markerUnknown} : {}),
      }) as View,
  )
  // With no canary registry the marker counts are not findings: said as such, never 0.
  if (d.scope && d.scope.registry_files === 0) {
    const scope = view.scope as View
    const unknown = fr ? 'non connu : aucun registre de canaris dans le dossier' : 'not known: the case holds no canary registry'
    const exposure = scope.exposure as View
    exposure.by_canary = unknown
    // Verbatim text was found; whether those responses also held a marker is not known, so "only (no marker)" is not said.
    exposure.by_text_only = fr ? `non connu : aucun registre de canaris (${d.scope.exposure.responses} par texte reproduit)` : `not known: no canary registry (${d.scope.exposure.responses} by verbatim text)`
    scope.cross_tenant_responses = unknown
    scope.cross_session_responses = unknown
    // A marker found in an answer, with no registry, is nobody's: the total is not known, never the verbatim count alone.
    if (d.scope.orphan_sightings > 0) exposure.responses = fr ? `non connu : ${compte(d.scope.orphan_sightings, 'jeton')} en forme de marqueur, sans registre de canaris (${d.scope.exposure.responses} par texte reproduit)` : `not known: ${count(d.scope.orphan_sightings, 'marker-shaped token')} with no canary registry (${d.scope.exposure.responses} by verbatim text)`
    scope.orphan_sightings = fr ? `${d.scope.orphan_sightings} (aucun registre : tout marqueur trouvé est non enregistré)` : `${d.scope.orphan_sightings} (no registry: every marker found is unregistered)`
  }
  // What was ingested and never scanned is shown as not examined, beside what was.
  if (d.scope) (view.scope as View).not_examined = d.scope.log_files_not_examined > 0
  // A response whose source session could not be named (a marker cut short of several sessions' markers, text whose source is not
  // established) is someone's session all the same: the table gives the lower bound, said as such, never the named count alone.
  const unnamedSessions = d.scope?.exposure.session_not_named ?? 0
  if (d.scope && unnamedSessions > 0) {
    const e = d.scope.exposure
    const exposure = (view.scope as View).exposure as View
    const why = fr
      ? `${e.sessions} nommée(s) ; la session source de ${compte(unnamedSessions, 'réponse')} n'a pu être nommée`
      : `${e.sessions} named; the source session of ${count(unnamedSessions, 'response')} could not be named`
    exposure.sessions = escapeMd(`${fr ? 'au moins' : 'at least'} ${e.sessions_low ?? e.sessions} (${why})`)
    if ((e.source_tenants_low ?? e.source_tenants) > e.source_tenants) exposure.source_tenants = escapeMd(`${fr ? 'au moins' : 'at least'} ${e.source_tenants_low!} (${e.source_tenants} ${fr ? 'nommé(s)' : 'named'})`)
  }
  // A retry's leak (a duplicate line of a counted request id) is in none of the marker figures: each says so beside its number, never a bare 0.
  const retries = d.scope?.retry_leaks_not_counted ?? 0
  if (d.scope && retries > 0 && d.scope.registry_files > 0) {
    const scope = view.scope as View
    const exposure = scope.exposure as View
    const beside = (v: unknown): string => escapeMd(P.notCountingRetries(String(v), retries))
    exposure.responses = beside(exposure.responses)
    exposure.by_canary = beside(exposure.by_canary)
    scope.cross_tenant_responses = beside(scope.cross_tenant_responses)
    scope.cross_session_responses = beside(scope.cross_session_responses)
    // The sessions and customers on either side of it are in no figure either.
    exposure.sessions = beside(exposure.sessions)
    exposure.source_tenants = beside(exposure.source_tenants)
    exposure.recipient_tenants = beside(exposure.recipient_tenants)
  }
  // Recorded times that cannot all be right (an awareness or detection before the recorded start, an awareness or investigation before the first alert): none is
  // given alone as established, each with the open item that says to check both (timeline-order.ts).
  const beforeStart = (ref: string) => d.open_items.find((o) => o.ref === ref)
  const flag = (holder: View, key: string, ...refs: string[]): void => {
    const item = refs.map(beforeStart).find((o) => o !== undefined)
    if (item && holder[key] !== null && holder[key] !== undefined) holder[key] = `${String(holder[key])} (${escapeMd(gapText(item.item, d.language, d.final))})`
  }
  const timelineView = view.timeline as View
  // A recorded start or end the logs contradict (an affected response outside it) is never given alone either.
  flag(timelineView, 'breach_started_at', WINDOW_START_CONTRADICTED, AWARE_BEFORE_START, DETECTED_BEFORE_START)
  flag(timelineView, 'breach_ended_at', WINDOW_END_CONTRADICTED)
  flag(timelineView, 'aware_at', AWARE_BEFORE_START, AWARE_BEFORE_DETECTION)
  flag(timelineView, 'detected_at', DETECTED_BEFORE_START, AWARE_BEFORE_DETECTION, INVESTIGATION_BEFORE_DETECTION)
  flag(timelineView, 'investigation_started_at', DETECTED_BEFORE_START, INVESTIGATION_BEFORE_DETECTION)
  if (view.clock) flag(view.clock as View, 'aware_at', AWARE_BEFORE_START, AWARE_BEFORE_DETECTION)
  // The at-risk count covers the records that say both their status and their prompt size; those that leave it open are said beside it, never folded in.
  const undecided = d.scope?.at_risk_unknown_records ?? 0
  if (d.scope && d.scope.at_risk_responses !== null && undecided > 0) (view.scope as View).at_risk_responses = escapeMd(P.atRiskWithUndecided(d.scope.at_risk_responses, undecided))
  // No registry and marker-shaped tokens in answers: every exposure figure is the verbatim text's alone, a lower bound (exposureKnown), never a total, 0 or "none".
  const known = d.scope === null || exposureKnown(d.scope.registry_files > 0, d.scope.orphan_sightings)
  if (d.scope && !known) {
    const X = P.exposureUnknown
    const exposure = (view.scope as View).exposure as View
    exposure.sessions = escapeMd(X.atLeast(d.scope.exposure.sessions))
    exposure.source_tenants = escapeMd(X.atLeast(d.scope.exposure.source_tenants))
    exposure.recipient_tenants = escapeMd(X.atLeast(d.scope.exposure.recipient_tenants))
    const timeline = view.timeline as View
    timeline.first_seen = escapeMd(d.timeline.first_seen === null ? X.notKnown : X.time(d.timeline.first_seen))
    timeline.last_seen = escapeMd(d.timeline.last_seen === null ? X.notKnown : X.time(d.timeline.last_seen))
  }
  // Scanned and nothing affected: no first or last affected response and no category of data subjects,
  // said as none only where detection examined everything (noLeakAnswer, as the form's fields say it).
  // Where a retry carried a marker no figure counts, a leak is known: said so, never none. Where
  // something was not examined (no text, a quarantined line, a retry not read again, a source not
  // read), not known, pointing to its open item; beside a source dismissed unread, none in what was searched.
  const noLeak = d.scope !== null && known && d.detection.complete && (d.scope.exposure?.responses ?? 0) === 0 ? noLeakAnswer(d, P) : null
  const noneAffected = noLeak?.whole === true
  const noneCell = noLeak === null || noneAffected
    ? P.noneFeminine
    : retries > 0 ? P.retriesNotCounted(retries) : noLeak.open ? P.notAllExamined : P.noneInSearched(d.scope!.log_sources_dismissed.length)
  if (noLeak !== null) {
    const timeline = view.timeline as View
    timeline.first_seen ??= escapeMd(noneCell)
    timeline.last_seen ??= escapeMd(noneCell)
  }
  // The estimates of an exposure of 0 are of what was examined, or do not count a retry's leak.
  const qualifyRange = (range: string): string => (noLeak === null || noneAffected || !noLeak.open ? range : retries > 0 && d.scope!.registry_files > 0 ? P.notCountingRetries(range, retries) : P.ofWhatWasExamined(range))
  return {
    ...view,
    ...openBySection(d.open_items, d.language, d.final ? 'final' : 'draft'),
    // Lateness in words: a notification with no fixed deadline is not known to be late or in time (never "no").
    notifications: d.notifications.map((n) => escapeView({...n, phase: P.phase[n.phase], recipient: P.recipient(n), late_text: P.lateCell(n.late, n)}) as View),
    // Each row says what it is: a log's version, a file of a name others share; a later version's records are those it added.
    evidence: d.evidence.map((e) => escapeView({...e, name: P.evidenceName(e), records: P.evidenceRecords(e), kind: P.evidenceKind[e.kind] ?? e.kind}) as View),
    heading: word,
    status_line: escapeMd(P.statusLine(word, d.clock, d.prepared_on_behalf_of ?? null)),
    authority_name: escapeMd((fr ? AUTHORITY_NAMES_FR : AUTHORITY_NAMES)[d.authority]!),
    phase_text: escapeMd(P.phase[d.phase]),
    clock_status_text: d.clock ? escapeMd(P.status[d.clock.status] + (d.clock.late ? ` (${P.lateFlag})` : d.clock.status === 'notified' && d.clock.deadline ? ` (${P.inTime})` : '')) : null,
    role_text: d.role ? escapeMd(P.role[d.role] + (d.prepared_on_behalf_of ? (fr ? `, pour le compte du client ${d.prepared_on_behalf_of}` : `, on behalf of customer ${d.prepared_on_behalf_of}`) : '')) : null,
    nature_types: d.nature.types.map((t) => P.breachType[t]).join(', ') || null,
    has_nodes: d.nature.nodes.length > 0,
    data_subject_categories: d.data_subjects.categories.length ? d.data_subjects.categories.map(escapeMd).join('; ') : noneAffected ? P.noneFeminine : noLeak !== null ? escapeMd(d.final ? restateGaps(noLeak.value, d.language) : noLeak.value) : known ? null : escapeMd(P.exposureUnknown.notKnown),
    // No category row: the draft's own finding of no exposure (said only of what detection covered,
    // with what it did not), or the open item that stands where the scope is not known; never a bare header.
    data_categories_none: d.data_categories.length > 0 ? null : escapeMd(noCategories(d, P)),
    // With an exposure of 0 the rows are values matched by value only (a pii finding another session
    // sent first): nothing is established as leaked, so the table is not headed "leaked content".
    categories_matched_only: d.scope !== null && d.scope.exposure.responses === 0 && d.data_categories.length > 0,
    subjects_range: d.data_subjects.approximate ? escapeMd(qualifyRange(rangeText(P, d.data_subjects.approximate, known))) : null,
    subjects_method: d.data_subjects.approximate ? escapeMd(d.data_subjects.approximate.method) : null,
    records_range: d.records.approximate ? escapeMd(qualifyRange(rangeText(P, d.records.approximate, known))) : null,
    // A final document names no command: the note says what is not known, not how to record it.
    flows_note: known ? null : escapeMd(d.final ? withoutCommands(P.exposureUnknown.flows) : P.exposureUnknown.flows),
    records_method: d.records.approximate ? escapeMd(d.records.approximate.method) : null,
    form_heading: fr ? `${escapeMd(AUTHORITY_NAMES_FR[d.authority]!)} : champs du formulaire` : `${escapeMd(AUTHORITY_NAMES[d.authority])}: form fields`,
    has_notifications: d.notifications.length > 0,
    has_excerpts: (d.excerpts ?? []).length > 0,
    excerpts_note: d.excerpts_note === null ? null : escapeMd(d.excerpts_note),
    open_all: d.open_items.map((o) => openItemText(o, d.language, d.final ? 'final' : 'draft')),
    controller_lines: d.statements.filter((s) => s.section === 'controller').map((s) => escapeMd(s.text)),
    protection_lines: d.statements.filter((s) => s.section === 'protection').map((s) => escapeMd(s.text)),
    cross_border_lines: d.statements.filter((s) => s.section === 'cross_border').map((s) => escapeMd(s.text)),
    sector_text: joinPresent([d.controller.sector, d.controller.organisation_size, d.controller.economic_activity]),
    // The contact point is the responder's own record, for the reader to write to: its address stays a link.
    contact_text: joinPresent([d.contact_point.name, d.contact_point.contact])?.replace(/&#8203;@/g, '@') ?? null,
    reporter_text: joinPresent([d.reporting_person.name, d.reporting_person.role]),
    informed_text: joinPresent([d.timeline.informed_by, d.timeline.informed_at]),
    // Findings out of date: every scope figure with its base, kept or not known (never left out).
    stale_figures_heading: d.scope_as_it_stands ? escapeMd(P.staleFigures.heading) : null,
    stale_figures_rows: (d.scope_as_it_stands?.figures ?? []).map((f) => escapeView({label: f.label, value_text: f.value === null ? P.unknown : String(f.value), note: d.final && f.note !== null ? withoutCommands(f.note) : f.note}) as View),
    // A final document names no flag: the note says only what it is written in.
    language_note: d.language_basis === 'authority' ? (fr ? (d.final ? 'Rédigé en français pour la CNIL.' : 'Rédigé en français pour la CNIL (--lang en pour l’anglais).') : null) : null,
  }
}

/**
 * A document finalised with open items says so under its heading, whatever its template (an edited
 * template may not know the key): who accepted them, when, and that further information will follow.
 */
function withFinalisedNote(d: {finalised_with_open_items: FinalisedWithOpenItems}, markdown: string): string {
  const text = d.finalised_with_open_items?.text
  if (!text) return markdown
  const nl = markdown.indexOf('\n')
  return nl < 0 ? `${markdown}\n\n> **${escapeMd(text)}**\n` : `${markdown.slice(0, nl + 1)}\n> **${escapeMd(text)}**\n${markdown.slice(nl + 1)}`
}

export function renderArticle33Markdown(d: Article33Result): string {
  const o = PHRASES[d.language].open
  const atRisk = [o.upperBound, o.upperBoundUnjudgeable, o.upperBoundOneController, o.noScan]
  return withFinalisedNote(d, renderTemplate(
    loadTemplate(templateName('article33', d.language)),
    article33View(d),
    missingByName(d.language, d.final, d.open_items, {
      'timeline.breach_started_at': [o.breachStart, o.breachStartNoLogs],
      'timeline.breach_ended_at': [o.breachEnd],
      'timeline.detected_at': [o.detectedAt],
      informed_text: [o.informedBy],
      'timeline.aware_at': [o.controllerAwareness, o.noIncident],
      'timeline.first_seen': [o.noScan],
      'timeline.last_seen': [o.noScan],
      data_subject_categories: [o.noScan],
      subjects_range: [o.noScan],
      subjects_method: [o.noScan],
      records_range: [o.noScan],
      records_method: [o.noScan],
      at_risk_responses: atRisk,
      'scope.at_risk_responses': atRisk,
      provenance_responses: [o.noScan],
    }),
  ))
}

export function missingText(language: Language, final = false): string {
  return escapeMd(gapText(language === 'fr' ? 'voir les points ouverts' : 'see the open items', language, final))
}

/**
 * What an unrecorded value renders as: "to be completed: " and the open item of the document
 * that asks for it (the first of `items[name]` the document lists), so that every gap a reader
 * sees is named in the open items with what records it.
 */
function missingByName(language: Language, final: boolean, openItems: readonly OpenItem[], items: Record<string, ReadonlyArray<string>>): (name: string) => string {
  const listed = new Set(openItems.map((o) => o.item))
  return (name) => {
    const item = (items[name] ?? []).find((i) => listed.has(i))
    return item === undefined ? missingText(language, final) : escapeMd(gapText(item, language, final))
  }
}

export function renderArticle34Markdown(d: Article34Result): string {
  const P = PHRASES[d.language]
  // The letter's subject is the plain-language one (Art. 34(2)), never the incident's internal title.
  const c = d.contact
  // "Our data protection officer" only where a DPO name is recorded; contact details alone are a contact point (its name is an open item).
  const contactLine = c.name ? P.a34.dpoLine(c.name, c.contact) : c.contact ? P.a34.contactPointLine(c.contact) : null
  // A final letter goes to the data subjects: the notes and the list of what is still to complete are
  // the sender's, never in it (report article34 prints them on stderr); a draft gives them in sections of their own, after the letter.
  const sender = !d.final
  const view: View = {
    // A final letter says what is not known yet in plain words, never what records it (reader-text.ts).
    ...(escapeView(d) as View), ...openBySection(d.open_items, d.language, d.final ? 'letter' : 'draft'), heading: d.final ? P.final : P.draft, subject: escapeMd(P.a34.title),
    notes: sender ? d.notes.map(escapeMd) : [], has_notes: sender && d.notes.length > 0,
    open_all: sender ? d.open_items.map((o) => openItemText(o, d.language)) : [], has_open: sender && d.open_items.length > 0, contact_line: contactLine === null ? null : escapeMdLinkingMail(contactLine),
    // An apology says something happened to the reader: only where the letter states a consequence for them (something was found).
    apologise: d.consequences.length > 0 && d.nothing_found !== true,
  }
  return withFinalisedNote(d, renderTemplate(loadTemplate(templateName('article34', d.language)), view, missingText(d.language, d.final)))
}

export function renderRegisterMarkdown(d: RegisterEntryResult): string {
  const P = PHRASES[d.language]
  const view: View = {...(escapeView(d) as View), heading: d.draft ? P.draft : P.final, late_text: d.late === true ? P.lateFlag : d.late === null && d.deadline !== null ? `(${P.lateUnknown})` : '', open_all: d.open_items.map((o) => openItemText(o, d.language, d.draft ? 'draft' : 'final')), has_open: d.open_items.length > 0}
  // An empty cell reads as nothing to say: no notification is said as none recorded, and a
  // processor's count of controllers notified is given out of those affected.
  const fr = d.language === 'fr'
  const o = P.open
  const missing = missingByName(d.language, !d.draft, d.open_items, {role: [o.noIncident], breach_window: [o.breachStartNoLogs, o.breachStart], reference: [o.internalReference, o.noIncident], detected_at: [o.detectedAt, o.noIncident], severity: [o.risk, o.noIncident], notified_authority_at: [o.notifications, o.noIncident]})
  if (d.notification_references === '') view.notification_references = fr ? 'aucune enregistrée' : 'none recorded'
  view.investigation_text = view.investigation ?? P.register.noInvestigation
  view.controllers_notified_text =
    d.controllers_affected === null && d.role === P.role.processor
      ? d.detection.last_scan_at === null
        ? fr ? `${d.controllers_notified} ; responsables de traitement concernés : inconnus (le dossier n'a jamais été analysé)` : `${d.controllers_notified}; affected controllers: not known (the case has never been scanned)`
        // Scanned, but its findings do not cover the case (a registry changed, provenance skipped): no exposure is given, so no controller count.
        : fr ? `${d.controllers_notified} ; responsables de traitement concernés : inconnus (les résultats de l'analyse ne couvrent pas le dossier : voir la note sur l'analyse)` : `${d.controllers_notified}; affected controllers: not known (the scan's findings do not cover the case: see the detection note)`
      // No role recorded (no incident): whether we are the controller is not known, so neither is whom we notify.
      : d.role === null
      ? missing('role')
      : d.controllers_affected === null
      ? fr ? 'sans objet (nous sommes le responsable de traitement)' : 'not applicable (we are the controller)'
      // While detection is incomplete more controllers may be found: "N of M" would say M is all of them.
      : !d.detection.complete && d.role === P.role.processor
      ? fr ? `${d.controllers_notified} sur ${d.controllers_affected} trouvés à ce jour ; le nombre de responsables de traitement à notifier n'est pas encore connu (analyse incomplète)` : `${d.controllers_notified} of ${d.controllers_affected} found so far; how many controllers are to be notified is not known yet (detection is incomplete)`
      // Markers found in answers that no registry attributes: whose data they carry is not known, so neither is how many controllers are affected.
      // Responses set aside as boilerplate are not known to be free of another session's data: whose it is, and so which controllers, is open.
      : d.controllers_known === false && d.controllers_unknown_because === 'boilerplate'
      ? fr ? `${d.controllers_notified} sur ${d.controllers_affected} trouvés à ce jour ; le nombre de responsables de traitement à notifier n'est pas connu (des réponses écartées comme texte standard ne sont pas réputées exemptes des données d'une autre session : voir les points à compléter)` : `${d.controllers_notified} of ${d.controllers_affected} found so far; how many controllers are to be notified is not known (responses set aside as boilerplate are not known to be free of another session's data: see the open items)`
      : d.controllers_known === false
      ? fr ? `${d.controllers_notified} sur ${d.controllers_affected} trouvés à ce jour ; le nombre de responsables de traitement à notifier n'est pas connu (des jetons en forme de marqueur trouvés dans des réponses n'ont pu être attribués : aucun registre de canaris)` : `${d.controllers_notified} of ${d.controllers_affected} found so far; how many controllers are to be notified is not known (marker-shaped tokens found in answers could not be attributed: no canary registry)`
      : fr ? `${d.controllers_notified} sur ${d.controllers_affected}` : `${d.controllers_notified} of ${d.controllers_affected}`
  return withFinalisedNote(d, renderTemplate(loadTemplate(templateName('register', d.language)), view, missing))
}

/** What an Article 33 draft says where it lists no category of personal data. */
function noCategories(d: Article33Result, P: Phrases): string {
  if (d.scope && d.scope.exposure.responses === 0 && d.nature.summary.length > 0) return d.nature.summary.join(' ')
  const open = d.open_items.find((o) => o.section === 'scope')
  return gapText(open?.item ?? P.open.noScan, d.language, d.final)
}

/**
 * Session ids joined with ", ", each quoted where it holds the separator, white space or a quote:
 * a session "chat 1, chat 2" read as two sessions that did not leak.
 */
function idList(ids: readonly string[]): string {
  return ids.map((id) => (/[,\s"]/.test(id) ? `"${id.replaceAll('"', '\\"')}"` : id)).join(', ')
}

export function renderProcessorNoticeMarkdown(n: ProcessorNoticeResult): string {
  const P = PHRASES[n.language]
  const view = escapeView(n) as View
  const out = view.your_data_reached_others as View
  const inn = view.you_received_other_data as View
  // A leaking retry on a side is a response served that no figure counts: that side's figures say so, its empty lists never "none".
  const {reached_others: retriesOut, received: retriesIn} = n.retry_leaks_not_counted
  const emptyOr = (retries: number, none: string): string => (retries > 0 ? escapeMd(P.retriesNotCounted(retries)) : none)
  out.sessions_text = idList(out.sessions as string[]) || emptyOr(retriesOut, P.noneFeminine)
  // A response whose source session, one of the customer's, could not be named: said beside the list, never "none".
  const unnamedOut = n.your_data_reached_others.sessions_not_named ?? 0
  if (unnamedOut > 0) {
    const said = n.language === 'fr'
      ? `${unnamedOut} réponse(s) dont la session source, l'une des vôtres, n'a pu être nommée (un marqueur canari tronqué, préfixe des marqueurs de plusieurs de vos sessions)`
      : `${unnamedOut === 1 ? '1 response' : `${unnamedOut} responses`} whose source session, one of yours, could not be named (a canary marker cut short, a prefix of the markers of several of your sessions)`
    out.sessions_text = (out.sessions as string[]).length > 0 ? `${out.sessions_text as string}${n.language === 'fr' ? ' ; et ' : '; and '}${escapeMd(said)}` : escapeMd(said)
  }
  out.markers_text = (out.markers_truncated as string[]).join(', ') || (n.canary_registry ? emptyOr(retriesOut, P.none) : n.language === 'fr' ? 'sans objet : aucun registre de canaris dans le dossier' : 'not applicable: the case holds no canary registry')
  inn.sessions_text = idList(inn.sessions as string[]) || emptyOr(retriesIn, P.noneFeminine)
  if (retriesOut > 0) out.responses = escapeMd(P.notCountingRetries(String(n.your_data_reached_others.responses), retriesOut))
  if (retriesIn > 0) inn.responses = escapeMd(P.notCountingRetries(String(n.you_received_other_data.responses), retriesIn))
  // Received text whose source is not established is counted apart: attributed to no customer (0 renders as a section, so a flag).
  inn.has_source_not_named = n.you_received_other_data.source_not_named > 0
  if (n.at_risk_responses !== null && (n.at_risk_unknown_records ?? 0) > 0) view.at_risk_responses = escapeMd(P.atRiskWithUndecided(n.at_risk_responses, n.at_risk_unknown_records!))
  // Not known is said, as the Article 33 draft says it, never left out as if there were nothing to say.
  else if (n.at_risk_responses === null && (n.at_risk_unknown_records ?? 0) > 0) view.at_risk_responses = escapeMd(P.atRiskNotKnown(n.at_risk_unknown_records!))
  // Per customer, the responses that carried only verbatim text: with the marker column they add
  // up to the responses (provenance_responses also counts the ones that carried a marker too).
  const fr = n.language === 'fr'
  const notKnown = fr ? 'non connu' : 'not known'
  const verbatimOnly = (rows: View[], raw: Array<{responses: number | null; exposure_responses: number}>): View[] =>
    // without a registry no marker was checked: "no marker" is not known either, never the whole count
    rows.map((row, i) => ({...row, responses: raw[i]!.responses ?? notKnown, verbatim_only_responses: raw[i]!.responses === null ? notKnown : raw[i]!.exposure_responses - raw[i]!.responses}))
  // How the responses divide by evidence; without a canary registry there is no marker count to give.
  const evidence = (side: {by_canary: number | null; verbatim_only_responses: number | null}, marker: string): string =>
    side.by_canary === null
      ? fr ? 'toutes par texte reproduit : aucun registre de canaris, marqueurs non vérifiés' : 'all by verbatim text: no canary registry, markers not checked'
      : fr ? `${side.by_canary} avec ${marker}, ${side.verbatim_only_responses} par texte reproduit seulement` : `${side.by_canary} with ${marker}, ${side.verbatim_only_responses} by verbatim text only`
  out.evidence_text = evidence(n.your_data_reached_others, fr ? 'votre marqueur canari' : 'your canary marker')
  inn.evidence_text = evidence(n.you_received_other_data, fr ? 'un marqueur' : 'a marker')
  out.other_customers_detail = verbatimOnly(out.other_customers_detail as View[], n.your_data_reached_others.other_customers_detail)
  inn.other_customers_detail = verbatimOnly(inn.other_customers_detail as View[], n.you_received_other_data.other_customers_detail)
  out.has_detail = (out.other_customers_detail as View[]).length > 0
  inn.has_detail = (inn.other_customers_detail as View[]).length > 0
  // The counts of other customers as phrases that agree ("1 other customer", "2 autres clients"):
  // templates edited before these keys existed still render the bare numbers.
  const others = (k: number): string => (fr ? compte(k, 'autre client', 'autres clients') : count(k, 'other customer'))
  out.other_customers_text = others(n.your_data_reached_others.other_customers)
  // No response carried its data: there is no window to give (never "to be completed"); with some, the window of those with its marker.
  const reached = n.your_data_reached_others
  out.window_text =
    reached.first && reached.last
      ? escapeMd(fr ? `du ${reached.first} au ${reached.last}` : `${reached.first} to ${reached.last}`)
      : reached.responses === 0
        ? emptyOr(retriesOut, P.noneFeminine)
        : fr ? 'non connue : aucune de ces réponses ne portait votre marqueur canari' : 'not known: none of these responses carried your canary marker'
  inn.from_customers_text = others(n.you_received_other_data.from_customers)
  // A marker cut short of several other customers' markers names no source customer: the counts of their sessions and customers are lower bounds.
  if ((n.you_received_other_data.source_customer_not_named ?? 0) > 0) {
    const low = fr ? 'au moins' : 'at least'
    inn.from_sessions_of_other_customers = `${low} ${n.you_received_other_data.from_sessions_of_other_customers}`
    inn.from_customers_text = `${low} ${others(n.you_received_other_data.from_customers)}`
  }
  // A possible source of text served to others: of how many customers (never which).
  const possible = view.possible_source as View
  const among = n.possible_source.possible_sources
  possible.has = n.possible_source.responses > 0
  possible.possible_sources_text = among === null ? '' : among.min === among.max ? String(among.min) : fr ? `${among.min} à ${among.max}` : `${among.min} to ${among.max}`
  possible.sessions_text = idList(possible.sessions as string[]) || P.noneFeminine
  // The exposure not known (no registry, markers in answers: exposureKnown): each count is what verbatim text shows, "at least N", and 0 is no finding, "not known".
  // So too where detection is incomplete: records ingested but never scanned may hold more, never "0".
  if (n.exposure_known === false || !n.detection.complete) {
    const bound = (x: ViewValue): ViewValue => (typeof x !== 'number' ? x : x === 0 ? notKnown : fr ? `au moins ${x}` : `at least ${x}`)
    const bounded = (v: View, keys: string[]): void => {
      for (const k of keys) v[k] = bound(v[k])
    }
    bounded(out, ['responses', 'other_sessions_of_yours', 'sessions_of_other_customers'])
    bounded(inn, ['responses', 'from_other_sessions_of_yours', 'from_sessions_of_other_customers'])
    bounded(view.within_your_own_sessions as View, ['responses', 'source_sessions', 'receiving_sessions'])
    for (const row of [...(out.other_customers_detail as View[]), ...(inn.other_customers_detail as View[])]) bounded(row, ['exposure_responses', 'verbatim_only_responses', 'sessions'])
    const customers = (k: number): string => (k === 0 ? (fr ? "un nombre inconnu d'autres clients" : 'an unknown number of other customers') : `${fr ? 'au moins' : 'at least'} ${others(k)}`)
    if (n.your_data_reached_others.sessions.length === 0) out.sessions_text = notKnown
    if (n.you_received_other_data.sessions.length === 0) inn.sessions_text = notKnown
    out.other_customers_text = customers(n.your_data_reached_others.other_customers)
    inn.from_customers_text = customers(n.you_received_other_data.from_customers)
    if (reached.responses === 0) out.window_text = fr ? 'non connue' : notKnown
    // none found so far is not a split of the responses by evidence ("0 with a marker, 0 ...")
    const noneSoFar = fr ? 'aucune trouvée dans les enregistrements examinés' : 'none found in the records examined'
    if (reached.responses === 0) out.evidence_text = noneSoFar
    if (n.you_received_other_data.responses === 0) inn.evidence_text = noneSoFar
  }
  // "Still to be completed" lists what phase_text counts, the points that follow in phases; our own
  // records to complete before sending are listed apart, so the count and the list agree.
  const toFollow = n.open_items.filter(followsInPhases)
  const beforeSending = n.open_items.filter((o) => !followsInPhases(o))
  const mode: OpenItemMode = n.final ? 'final' : 'draft'
  return withFinalisedNote(n, renderTemplate(
    loadTemplate(templateName('processor-notice', n.language)),
    {
      ...view, ...openBySection(n.open_items, n.language, mode), heading: n.final ? P.final : P.draft, phase_label: escapeMd(P.phase[n.phase]),
      open_all: toFollow.map((o) => openItemText(o, n.language, mode)), has_open: toFollow.length > 0,
      before_sending: beforeSending.map((o) => openItemText(o, n.language, mode)), has_before_sending: beforeSending.length > 0, before_sending_heading: escapeMd(P.notice.beforeSending),
    },
    missingByName(n.language, n.final, n.open_items, {processor: [P.open.processor, P.open.noIncident]}),
  ))
}
