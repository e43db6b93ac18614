import {createHash} from 'node:crypto'
import {Flags} from '@oclif/core'
import {UsageError} from '../errors.js'
import {buildFacts, loadFactsInputs, type CaseFacts, type GatherFactsOptions} from '../notify/facts.js'
import type {CaseDb} from '../store/open-case.js'
import type {FinalisedWithOpenItems} from '../notify/finalise.js'
import type {OpenItem} from '../notify/statements.js'
import {registeredTenantIds, tenantRegistered} from '../store/canaries.js'
import {tenantHasRecords, tenantIdsWithRecords} from '../store/records.js'
import {requireTenantInCase} from '../scope/tenant-view.js'
import {checkDetection} from './detection-flags.js'
import {guardOut} from './out-guard.js'
import {writeFileAtomic} from './write-file.js'
import {safeLine} from '../util/sanitize.js'

// Shared by the report commands: --format/--out, writing the file (0600 through the
// base command's umask: reports describe other people's data), and the result printed
// under --json when a file was written.

export const FORMATS = ['md', 'pdf', 'json'] as const
export type ReportFormat = (typeof FORMATS)[number] | 'csv' | 'html'

export const reportFlags = {
  format: Flags.string({description: 'Output format.', options: [...FORMATS], default: 'md'}),
  out: Flags.string({description: 'Write here instead of stdout (required for pdf). Never the case database or an original the case was ingested from; an existing file only when it is an unchanged report of the same kind this case wrote, else with --force.', helpValue: 'PATH'}),
  force: Flags.boolean({description: 'Replace an existing --out file that is not a report of this kind this case wrote (never the case or its originals).', default: false}),
  'include-excerpts': Flags.boolean({description: 'Include short excerpts of leaked text (redacted by default; recorded in the audit log).', default: false}),
}

/** Every document is a DRAFT until --final; every document has one language from end to end. */
export const draftFlags = {
  lang: Flags.string({description: 'Language of the document: en or fr (default en; the CNIL form implies fr). Every sentence, label and duration is translated.', options: ['en', 'fr']}),
  final: Flags.boolean({description: 'Mark the document final (ready to send) instead of DRAFT. Refused while it has open items, unless --accept-open-items.', default: false}),
  'accept-open-items': Flags.string({
    description: 'With --final: finalise although open items remain, accepted by NAME (who decides: recorded in the case\'s audit log with the time); the document says it was finalised with them open and that further information will follow.',
    helpValue: 'NAME',
  }),
}

/** --final and --accept-open-items as the builders take them (FinalOptions); an acceptance without --final, or without a name, is a usage error. */
export function finalOptions(flags: {final: boolean; 'accept-open-items'?: string}): {final: boolean; acceptOpenItemsBy?: string} {
  const by = flags['accept-open-items']
  if (by === undefined) return {final: flags.final}
  if (!flags.final) throw new UsageError('--accept-open-items goes with --final (a draft lists its open items anyway)')
  // A name recorded in the case and printed at the head of the document: one line of visible text.
  if (by.trim() === '' || /[\u0000-\u001f\u007f-\u009f]/.test(by)) throw new UsageError('--accept-open-items: give the name of the person accepting the open items (one line, no control characters)')
  return {final: true, acceptOpenItemsBy: by.trim()}
}

/** What the audit log records of a document finalised with open items: who accepted, when, and the items. */
export function acceptanceAudit(doc: {finalised_with_open_items: FinalisedWithOpenItems; open_items: readonly OpenItem[]}): {open_items_accepted?: {by: string; at: string; open_items: number; items: string[]}} {
  const f = doc.finalised_with_open_items
  return f === null ? {} : {open_items_accepted: {by: f.accepted_by, at: f.accepted_at, open_items: f.open_items, items: doc.open_items.map((o) => o.item)}}
}

/** What the console says of a report written to a file: every writer the same line, its size and hash. */
export function wroteLine(written: Pick<ReportWrittenResult, 'out' | 'bytes' | 'sha256'>): string {
  return `Wrote ${safeLine(written.out)} (${written.bytes} bytes, sha256 ${written.sha256})`
}

/** `--json` of a report command that wrote a file. */
export interface ReportWrittenResult {
  report: string
  format: ReportFormat
  out: string
  sha256: string
  bytes: number
}

/**
 * Writes a report to --out, refused first (exit 2) where --out is the case, one of its originals,
 * or an existing file that is not an unchanged report of this kind this case wrote (unless --force).
 */
export function writeReport(report: string, format: ReportFormat, out: string, content: string | Buffer, guard: {db: CaseDb; force?: boolean}): ReportWrittenResult {
  guardOut(guard.db, out, {report, force: guard.force})
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  // Temporary files an interrupted write left beside it are removed and named on stderr (their names hold a tenant id: hostile text).
  writeFileAtomic(out, bytes, {onStale: (message) => process.stderr.write(`${safeLine(message)}\n`)})
  return {report, format, out, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length}
}

/**
 * Without --out, --json prints the document as JSON: a --format other than json given beside it
 * contradicts it, and is refused naming both rather than ignored. A --format left at its default
 * is not a choice; with --out, --json describes the file written in any format.
 */
export function refuseFormatBesideJson(format: string, formatGiven: boolean, out: string | undefined, json: boolean): void {
  if (json && out === undefined && formatGiven && format !== 'json') {
    throw new UsageError(`--format ${format} and --json contradict: without --out, --json prints the document as JSON (give --format json, or drop --json)`)
  }
}

export function requireOutForPdf(format: string, out: string | undefined): void {
  if (format === 'pdf' && !out) throw new UsageError('--format pdf needs --out PATH (a PDF is not written to a terminal)')
}

/** Renders a report object to the requested format (PDF through the generic Markdown reader). */
export async function renderReport(format: string, report: object, markdown: () => string, pdf: {title: string; createdAt: string}): Promise<string | Buffer> {
  if (format === 'json') return JSON.stringify(report, null, 2) + '\n'
  if (format === 'pdf') {
    const {renderMarkdownPdf} = await import('./render-pdf.js')
    const language = (report as {language?: unknown}).language === 'fr' ? 'fr' : 'en'
    // The PDF's title block replaces the Markdown's head, where a document finalised with open items says so: said in the title block instead.
    const finalised = (report as {finalised_with_open_items?: {text: string} | null}).finalised_with_open_items?.text
    return renderMarkdownPdf(markdown(), {title: pdf.title, subtitle: finalised, createdAt: pdf.createdAt, skipUntil: /^(##|\|)/, language})
  }
  return markdown()
}

/**
 * The facts a report is built from, refused (exit 1, naming `crosstalk scan`) when detection
 * has not covered everything ingested, unless `allowIncomplete`; then `warn` gets one line
 * and the report itself carries the gap (its `detection` key).
 */
export function reportFacts(
  db: CaseDb, what: string, allowIncomplete: boolean, options: GatherFactsOptions & {tenant?: string; side?: 'both' | 'leaked'; addressee?: string}, warn: (line: string) => void,
): CaseFacts {
  const inputs = loadFactsInputs(db, options)
  const warning = checkDetection(inputs.scope.detection, what, allowIncomplete)
  if (warning) warn(warning)
  // A draft for a controller the case does not hold would say it was checked and found unaffected.
  if (options.tenant !== undefined) requireTenantInCase(inputs.scope, options.tenant, {has: (t) => tenantHasRecords(db, t), ids: () => tenantIdsWithRecords(db)}, `${what}: --on-behalf-of-controller: `)
  // A notice's addressee may have sent nothing logged yet be registered (its data may have reached others); a typo is neither.
  if (options.addressee !== undefined) requireTenantInCase(inputs.scope, options.addressee, {has: (t) => tenantHasRecords(db, t) || tenantRegistered(db, t), ids: () => [...tenantIdsWithRecords(db), ...registeredTenantIds(db)]}, `${what}: --tenant: `)
  return buildFacts(inputs, options.now, {tenant: options.tenant, side: options.side})
}
