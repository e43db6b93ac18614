import {Flags} from '@oclif/core'
import {UsageError} from '../errors.js'
import {FieldSpecError, parseMapFlag, type FieldMap} from '../extract/field-path.js'
import {checkFormatOptions, FormatOptionError, LOG_FORMATS, resolveFormatOptions, type LogFormat} from '../extract/formats/index.js'
import type {NativeField} from '../extract/parse-record.js'
import type {ParseSpec} from '../extract/parse-spec.js'
import {isZoneless, parseAssumeTz, ZoneError} from '../extract/timestamps-zone.js'
import {LOG_FILE_PATTERNS} from '../ingest/expand-paths.js'
import {ingestLogs, type FormatDecision, type IngestLogsOptions, type IngestLogsResult} from '../ingest/ingest-logs.js'
import {caseLogEvidence, fileBySha256, type LogEvidence} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {parseRecordTimestamp, TimestampError} from '../util/timestamps.js'
import {clearProgress, ingestProgressBar} from './progress.js'
import {quoted} from '../util/sanitize.js'

/** Flags shared by the commands that ingest logs (`ingest logs`, `triage`). */
export const logIngestFlags = {
  'log-format': Flags.option({
    description: 'how the lines are written: auto decides per file from its first readable lines (and says why); or one format for every file',
    options: ['auto', ...LOG_FORMATS] as const,
    default: 'auto' as const,
  })(),
  map: Flags.string({
    description: 'read FIELD from SPEC in each line (repeatable): a path (metadata.tenant, attributes["gen_ai.response.id"]), const:VALUE, regex:PATH:PATTERN, epoch_s:/epoch_ms:/epoch_ns:PATH',
    multiple: true,
    helpValue: 'FIELD=SPEC',
  }),
  'assume-tz': Flags.string({description: 'the zone of timestamps written without one (IANA name such as Europe/Berlin or UTC, or +02:00); without it they are refused', helpValue: 'ZONE'}),
  'assume-tz-ambiguous': Flags.option({
    description: 'with an --assume-tz zone that changes its clocks: a zone-less time in the hour repeated in autumn is the earlier or the later of its two instants (without it, such a line is refused)',
    options: ['earlier', 'later'] as const,
    dependsOn: ['assume-tz'],
  })(),
  'tenant-attribute': Flags.string({description: 'otel: the attribute holding the tenant, tried in order on the span, its parents and the resource (repeatable; default tenant.id; service.namespace, a group of services, is read only when given here)', multiple: true, helpValue: 'KEY'}),
  'custom-id-pattern': Flags.string({description: 'openai-batch: regular expression with named groups (?<tenant>...) and (?<session>...) matched against custom_id', helpValue: 'REGEX'}),
  'batch-ts': Flags.string({description: 'openai-batch: the time (ISO with zone) for lines that carry none: OpenAI error lines (e.g. the batch\'s completed_at), every Anthropic Message Batches result line (the batch\'s ended_at)', helpValue: 'ISO'}),
  source: Flags.string({description: 'log source label; request_id is unique within a source', default: 'default'}),
  'compress-evidence': Flags.boolean({description: 'store the original bytes deflated (smaller case, slower ingest)', default: false, exclusive: ['evidence']}),
  evidence: Flags.option({
    description:
      'copy: every byte of each log is kept in the case (the default for a new case). reference: the case keeps each file\'s SHA-256 and each record\'s offset, length and CRC-32, and reads the original where it lies, checked on every read (a far smaller case; an original edited since is refused where it is read and named by `verify`; one moved is followed with `crosstalk relocate`); a .gz file is copied all the same. Default: reference when the case already keeps a file so',
    options: ['copy', 'reference'] as const,
  })(),
}

/** The directory walk, as the help says it (and as expandLogPaths does it). */
export const WALKED_FILES = LOG_FILE_PATTERNS.join(', ')

export interface IngestFlagValues {
  'log-format': string
  map?: string[]
  'assume-tz'?: string
  'assume-tz-ambiguous'?: 'earlier' | 'later'
  'tenant-attribute'?: string[]
  'custom-id-pattern'?: string
  'batch-ts'?: string
}

export interface ParsedIngestFlags {
  logFormat: LogFormat | 'auto'
  parse: Omit<ParseSpec, 'format'>
}

/**
 * The format flags as a parse spec, every value checked before the case is opened: a --map that
 * does not parse, an unknown zone, a pattern without the named groups, a format that cannot work
 * without an option are usage errors (exit 2), never a run that stores nothing useful.
 */
export function parseIngestFlags(flags: IngestFlagValues): ParsedIngestFlags {
  const parse: Omit<ParseSpec, 'format'> = {}
  try {
    const map: Partial<Record<NativeField, string>> = {}
    const fieldMap: FieldMap = {}
    for (const spec of flags.map ?? []) {
      const [field, parsedSpec] = parseMapFlag(spec)
      map[field] = spec.slice(spec.indexOf('=') + 1)
      fieldMap[field] = parsedSpec
    }
    if (Object.keys(map).length > 0) parse.map = map
    if (flags['assume-tz'] !== undefined) {
      parseAssumeTz(flags['assume-tz'])
      parse.assume_tz = flags['assume-tz'].trim()
    }
    if (flags['assume-tz-ambiguous'] !== undefined) {
      if (flags['assume-tz'] === undefined) throw new UsageError('--assume-tz-ambiguous: give the zone with --assume-tz')
      parse.assume_tz_ambiguous = flags['assume-tz-ambiguous']
    }
    if (flags['tenant-attribute']?.length) {
      if (flags['tenant-attribute'].some((k) => k.trim() === '')) throw new UsageError('--tenant-attribute: empty attribute key')
      parse.tenant_attributes = flags['tenant-attribute']
    }
    if (flags['custom-id-pattern'] !== undefined) parse.custom_id_pattern = flags['custom-id-pattern']
    if (flags['batch-ts'] !== undefined) {
      const text = flags['batch-ts'].trim()
      if (isZoneless(text)) throw new UsageError(`--batch-ts ${quoted(text)}: has no time zone; add Z or an offset such as +02:00`)
      // The time every line without its own takes: a record's time, so within 2000-2100 like any.
      parseRecordTimestamp(text)
      parse.batch_ts = text
    }
    const options = resolveFormatOptions({customIdPattern: parse.custom_id_pattern, tenantAttributes: parse.tenant_attributes})
    const logFormat = flags['log-format'] as LogFormat | 'auto'
    if (logFormat !== 'auto') checkFormatOptions(logFormat, {...options, map: fieldMap})
    return {logFormat, parse}
  } catch (error) {
    if (error instanceof FieldSpecError || error instanceof FormatOptionError || error instanceof ZoneError) throw new UsageError(error.message)
    if (error instanceof TimestampError) throw new UsageError(`--batch-ts: ${error.message}`)
    throw error
  }
}

/** How each file is read, as one line for stderr. */
export function describeDecision(d: FormatDecision): string {
  return d.format === null ? `${d.path}: log format not decided: ${d.reason}` : `${d.path}: read as ${d.format} (${d.reason})`
}

/** --evidence as given, else how the case already keeps its logs, else a copy. */
export function evidenceFor(db: CaseDb, given: LogEvidence | undefined): LogEvidence {
  return given ?? caseLogEvidence(db)?.evidence ?? 'copy'
}

/** `ingestLogs` with the shared flags, and a progress bar on stderr unless --json. */
export async function ingestLogsCommand(
  db: CaseDb, paths: string[], parsed: ParsedIngestFlags, flags: {source: string; 'compress-evidence': boolean; evidence?: LogEvidence}, json: boolean,
  extra: Partial<IngestLogsOptions> = {},
): Promise<IngestLogsResult> {
  const progress = json ? undefined : ingestProgressBar()
  try {
    return await ingestLogs(db, {
      paths, logFormat: parsed.logFormat, parse: parsed.parse, source: flags.source, now: () => new Date(), onProgress: progress,
      evidenceCodec: flags['compress-evidence'] ? 'deflate' : 'raw', evidence: evidenceFor(db, flags.evidence), ...extra,
    })
  } finally {
    if (progress) clearProgress()
  }
}

/** What the audit log keeps of an ingest: per file, how it was read and what came of it. */
export function ingestAuditSummary(result: IngestLogsResult, db: CaseDb): Record<string, unknown> {
  return {
    files: result.per_file.map((f) => ({
      path: f.path, sha256: f.sha256, status: f.status, log_format: f.log_format, format_reason: f.format_reason, records: f.records,
      bad_lines: f.bad_lines, no_request_text: f.no_request_text, no_response_text: f.no_response_text, unread: f.unread,
      ...(f.content_sha256 === undefined ? {} : {content_sha256: f.content_sha256, content_size: f.content_size}),
      ...(f.refused ? {refused: f.refused.reason} : {}),
      // Also of a file already present: this ingest may have changed how it is kept (copied into the case what was kept by reference).
      ...(f.status === 'refused' ? {} : storedFacts(db, f.sha256)),
    })),
    records: result.records, duplicates: result.duplicates, bad_lines: result.bad_lines, refused_files: result.refused_files,
    // Entries a walk reached and could not read (the command exited 1 on them).
    ...(result.skipped_entries.some((s) => s.unread) ? {not_read: result.skipped_entries.filter((s) => s.unread).map(({path, reason}) => ({path, reason}))} : {}),
    interrupted: result.interrupted,
    // The sources the case keeps open (each named again while open) and those settled here, replayed by verify.
    unread_sources: {
      recorded: result.unread_sources.recorded.map((s) => ({id: s.id, path: s.path, source_sha256: s.sha256, reason: s.reason})),
      settled: result.unread_sources.settled.map((s) => s.id),
    },
  }
}

/**
 * What the case stored of a file its ingest finished, as stored: verify compares each with the
 * case (case/verify-file-facts.ts), and follows `relocate`'s entries from the place recorded here.
 */
function storedFacts(db: CaseDb, sha256: string): Record<string, unknown> {
  const row = fileBySha256(db, sha256)
  if (!row || row.kind !== 'log' || row.state !== 'complete') return {}
  return {
    abs_path: row.abs_path, compression: row.compression, source: row.source, parse_spec: row.parse_spec, lines_held: row.lines_held,
    notes: row.notes, started_at: row.started_at, completed_at: row.completed_at,
  }
}

/** The flags an ingest was run with, for the audit log. */
export function ingestAuditArgs(paths: readonly string[], parsed: ParsedIngestFlags, source: string, evidence: LogEvidence): Record<string, unknown> {
  return {paths, log_format: parsed.logFormat, ...parsed.parse, source, evidence}
}
