import {Command, Flags, Interfaces, toConfiguredId} from '@oclif/core'
import {Chalk, supportsColorStderr} from 'chalk'
import {accessSync, constants, existsSync, rmSync} from 'node:fs'
import {CliError, InputError, IntegrityError} from '../errors.js'
import {appendAudit, auditEntryStored, listAudit} from '../store/audit.js'
import {listFiles} from '../store/files.js'
import {liveIngestClaimant, openCase, type CaseDb} from '../store/open-case.js'
import {boundHeapGrowth} from '../util/gc.js'
import {escapeJsonText, safeLine, safeText, quoted} from '../util/sanitize.js'
import {answerAfterStored} from './interrupt.js'
import {clearProgress} from './progress.js'
import {editDistance} from './suggest.js'

/** The smallest CROSSTALK_HEAP_MB bin/run.js passes on to node (its launcher line skips smaller values). */
export const MIN_HEAP_MB = 256

// oclif's FlagOutput / ArgOutput (not exported from its index).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ParsedValues = {[name: string]: any}

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>

/**
 * Every crosstalk command: --json (exactly one JSON document on stdout), errors mapped to
 * the contract's exit codes as one line on stderr, colour only on a TTY without NO_COLOR.
 */
export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    verbose: Flags.boolean({description: 'Print stack traces for errors.', helpGroup: 'GLOBAL'}),
  }

  /** Colour for stderr only; stdout stays plain so it can be piped. */
  protected readonly paint = new Chalk({
    level: process.env.NO_COLOR !== undefined || !process.stderr.isTTY ? 0 : supportsColorStderr ? supportsColorStderr.level : 0,
  })

  private openDbs: CaseDb[] = []
  /** Run as each case is closed (whether this command's audit entry was committed, for a signal after the close). */
  private onClose = new Map<CaseDb, () => void>()
  /** Case files this command created: removed again if it fails before recording anything in them. */
  private createdCases: string[] = []

  /**
   * Set by a command whose start is what the user waits for (`triage`, until its verdict pass
   * is over): it bounds V8's heap growth itself (util/gc.ts boundHeapGrowth).
   */
  static boundsHeapLater = false

  public override async init(): Promise<void> {
    // Files we write (reports, exports) can hold personal data: owner-only by default.
    process.umask(0o077)
    if (!(this.constructor as typeof BaseCommand).boundsHeapLater) boundHeapGrowth()
    await super.init()
  }

  /** Every command parses first: the environment is checked right after, before anything runs. */
  protected override async parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const parsed = await super.parse(options, argv)
    // Read by bin/run.js's launcher line, which leaves a bad value to be refused here.
    const heap = process.env.CROSSTALK_HEAP_MB
    if (heap !== undefined && heap !== '' && !/^[1-9]\d*$/.test(heap)) {
      throw new InputError(`CROSSTALK_HEAP_MB must be a whole number of MB (got ${quoted(heap)})`, 'E_BAD_ENV')
    }
    // Below this V8 cannot hold the CLI itself and aborts with a native stack trace (exit 133).
    if (heap !== undefined && heap !== '' && Number(heap) < MIN_HEAP_MB) {
      throw new InputError(`CROSSTALK_HEAP_MB must be at least ${MIN_HEAP_MB} (MB; got ${quoted(heap)})`, 'E_BAD_ENV')
    }
    return parsed
  }

  /**
   * `readsOnly`: the command changes nothing in the case (a report to stdout, a listing), so a
   * case this user may read but not write is opened read-only rather than refused; one it may
   * write is opened as usual (migrated once, an interrupted ingest's indexes rebuilt).
   */
  protected openCase(path: string, options: {create?: boolean; readonly?: boolean; readsOnly?: boolean} = {}): CaseDb {
    const existed = existsSync(path)
    const {readsOnly, ...rest} = options
    const readonly = rest.readonly ?? (readsOnly === true && existed && !writable(path))
    // Said on stderr before work that can take minutes, so the command is not taken for hung.
    const db = openCase(path, {...rest, readonly, onSlowStart: (message) => this.note(safeLine(message)), onWarning: (message) => this.note(safeLine(message))})
    if (!existed) this.createdCases.push(path)
    this.openDbs.push(db)
    return db
  }

  /** Records this command in the case's hash-chained audit log. */
  protected audit(db: CaseDb, args: Record<string, unknown>, summary: unknown, now = new Date()): void {
    const entry = appendAudit(db, {at: now, command: this.id ?? this.constructor.name, args: {argv: this.argv, ...args}, version: this.config.version, summary})
    // A signal from here to the end still ends the command, saying first that its work is stored.
    const shown = this.id ? `${this.config.bin} ${toConfiguredId(this.id, this.config)}` : 'the command'
    const casePath = db.name
    let closedStored = false
    this.onClose.set(db, () => (closedStored = auditEntryStored(db, entry)))
    answerAfterStored(
      () => (db.open ? auditEntryStored(db, entry) : closedStored),
      (sig) => safeLine(`${sig} received after ${shown} stored its work in ${casePath} (audit log entry ${entry.seq}); stopped before it finished (what it stored stands: see crosstalk status)`),
    )
  }

  /**
   * The one JSON document on stdout: plain (colour is for stderr), with the characters
   * JSON.stringify leaves raw (C1 controls, bidi and invisible marks) escaped.
   */
  public override logJson(json: unknown): void {
    process.stdout.write(`${escapeJsonText(JSON.stringify(json, null, 2))}\n`)
  }

  /** Progress and notices: stderr, never stdout. */
  protected note(message: string): void {
    process.stderr.write(`${message}\n`)
  }

  protected override async catch(caught: Error & {oclif?: {exit?: number}; code?: unknown}): Promise<void> {
    const cases = this.openDbs.filter((db) => !db.readonly).map((db) => db.name)
    const error: Error & {oclif?: {exit?: number}; code?: unknown} =
      diskFullError(caught, cases) ?? caseWriteError(caught, cases) ?? missingTableError(caught, this.openDbs.map((db) => db.name), this.id === 'verify') ?? caught
    const exit = error instanceof CliError ? error.exit : (error.oclif?.exit ?? 1)
    const code = error instanceof CliError ? error.code : exit === 2 ? 'E_USAGE' : typeof error.code === 'string' ? error.code : 'E_FAILED'
    // One line, always: oclif's own parse errors span several ("Parsing --x\n\tExpected ...").
    // Messages quote paths and log bytes (a JSON error's snippet of a line): controls are made visible, never sent to the terminal.
    // Ours are one line already: a newline in them comes from a value (a file name) and is shown as \n,
    // never turned into a space; each value is escaped here once, so messages carry values raw.
    const raw = error instanceof CliError ? error.message : tidyParseMessage((error.message || String(error)).split('\n').map((l) => l.trim()).filter(Boolean).join(' '))
    const message = safeLine(suggestFlag(raw, this.ctor.flags ?? {}, this.ctor.baseFlags ?? {})) || 'failed'
    process.exitCode = exit
    // A progress line left unfinished by the failure is wiped first (a no-op unless stderr is a terminal).
    clearProgress()
    // The contract's error object, extended (never changed) with details where a command gives them.
    const details = error instanceof CliError && error.details !== undefined ? {details: error.details} : {}
    if (this.jsonEnabled()) process.stdout.write(escapeJsonText(JSON.stringify({error: {message, code, ...details}})) + '\n')
    const verbose = this.argv.includes('--verbose') || debugRequested(process.env.DEBUG)
    process.stderr.write(`${this.paint.red('Error:')} ${message}\n`)
    // The stack's first line is the message, with the values it quotes (a file name holding ESC ]0;
    // retitled the terminal and ESC [2J cleared it): shown as the message is, its lines kept.
    if (verbose && error.stack) process.stderr.write(`${safeText(error.stack)}\n`)
    // oclif's ids are colon-separated ("ingest:logs"); users type them with spaces.
    if (exit === 2 && !this.jsonEnabled()) process.stderr.write(`See: ${this.config.bin} ${this.id ? toConfiguredId(this.id, this.config) : ''} --help\n`)
  }

  protected override async finally(error: Error | undefined): Promise<unknown> {
    const failed = error !== undefined || (process.exitCode !== undefined && process.exitCode !== 0 && process.exitCode !== 3)
    const untouched = new Set<string>()
    for (const db of this.openDbs.splice(0)) {
      if (!db.open) continue
      // A case this command created and left holding nothing (a typo in a path, say) is not left behind;
      // never while another live process holds the case's ingest claim: two commands creating one
      // case at once each found it new, and the one refused as the second writer removed the file
      // the other was storing into (its work then went to a deleted file: lost).
      if (failed && this.createdCases.includes(db.name) && !db.readonly && listAudit(db).length === 0 && listFiles(db).length === 0 && liveIngestClaimant(db) === null) untouched.add(db.name)
      this.onClose.get(db)?.()
      // A statement the failure left open (an iterator over a table that was missing) keeps the connection busy, and
      // close then threw "This database connection is busy executing a query", a second line under the error:
      // the process ends and SQLite lets go of the file with it.
      try {
        db.close()
      } catch {}
    }
    for (const path of untouched) for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, {force: true})
    return super.finally(error)
  }
}

/** Whether this user may write the file (root may write any). */
/**
 * Whether the DEBUG environment variable asks for the stack of an error: set to anything but
 * nothing, 0, false, no or off (DEBUG=0 showed the stack, as Boolean("0") is true).
 */
export function debugRequested(value: string | undefined): boolean {
  return value !== undefined && !/^\s*(?:0|false|no|off)?\s*$/i.test(value)
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * SQLite's bare "database or disk is full" (SQLITE_FULL, or ENOSPC from a file write), wherever a
 * command met it outside the places that say more (ingest names the log file): one line naming
 * the case, the cause and what was kept. SQLite rolls back the transaction it could not write,
 * so what was committed before it stays in the case. Null: not a full disk.
 */
export function diskFullError(error: Error & {code?: unknown}, cases: readonly string[]): InputError | null {
  // scan's thread carries SQLite's error over as a CliError with SQLite's code: still SQLite's bare words.
  if (error instanceof CliError && !rawSqliteError(error)) return null
  const code = typeof error.code === 'string' ? error.code : ''
  if (code !== 'SQLITE_FULL' && code !== 'ENOSPC' && !/database or disk is full|no space left on device/i.test(error.message ?? '')) return null
  const where = cases.length === 0 ? 'the disk is full' : `${cases.join(', ')}: the disk holding the case is full`
  return new InputError(
    `${where} (${code || 'disk full'}: ${error.message}); the step being written was rolled back and everything committed before it is kept: free space, then run the same command again`,
    'E_DISK_FULL',
  )
}

/**
 * SQLite's bare words for a case another process holds ("database is locked", SQLITE_BUSY: it
 * waited its busy timeout) or one whose file could not be written ("disk I/O error",
 * SQLITE_IOERR_*: a failing disk, a quota, a file size limit), wherever a command met them outside
 * the places that say more: one line naming the case, the cause and what to do. Null: neither.
 */
export function caseWriteError(error: Error & {code?: unknown}, cases: readonly string[]): InputError | null {
  if (!rawSqliteError(error)) return null
  const code = typeof error.code === 'string' ? error.code : ''
  const where = cases.length === 0 ? 'the case' : cases.join(', ')
  if (code.startsWith('SQLITE_BUSY')) {
    return new InputError(`${where}: the case is locked by another process (${code}: ${error.message}); try again when it has finished`, 'E_BUSY')
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new InputError(
      `${where}: writing the case failed (${code}: ${error.message}); the step being written was rolled back and everything committed before it is kept: check the disk (space, quota, the file size limit), then run the same command again`,
      'E_CASE_WRITE',
    )
  }
  return null
}

/** An SQLite error as SQLite worded it: thrown here, or carried from a worker thread with its code (scan's). */
function rawSqliteError(error: Error & {code?: unknown}): boolean {
  // The house's own errors carry E_ codes; a CliError with an SQLite code is SQLite's, carried over.
  return typeof error.code === 'string' && error.code.startsWith('SQLITE_')
}

/**
 * SQLite's "no such table: X" from a case that lacks a table of its schema (every case has every
 * table of its schema: the file was damaged or altered): one line naming the case and the fix.
 */
export function missingTableError(error: Error & {code?: unknown}, cases: readonly string[], inVerify = false): IntegrityError | null {
  const m = /^no such table: ([\w.]+)/.exec(error.message ?? '')
  if (!m || !rawSqliteError(error)) return null
  const where = cases.length === 0 ? 'the case' : cases.join(', ')
  // verify itself never sends the user back to verify.
  const next = inVerify ? '' : 'crosstalk verify says what else is wrong; '
  return new IntegrityError(`${where}: the case has no table ${m[1]}, which every case of its schema holds: the file was damaged or altered; ${next}restore the case from a copy, or ingest the original logs into a new case`, 'E_DAMAGED_CASE')
}

/**
 * oclif's "Nonexistent flag: --clas" with the command's closest flag offered ("did you mean
 * --class?"), as a mistyped command gets one: at most one edit in three characters.
 */
export function suggestFlag(message: string, ...flagSets: Array<Record<string, unknown>>): string {
  const m = /^Nonexistent flags?: (--[\w-]+)/.exec(message)
  if (!m) return message
  const typed = m[1]!.slice(2)
  let best: {name: string; distance: number} | null = null
  for (const name of [...flagSets.flatMap((f) => Object.keys(f)), 'json'].sort()) {
    if ((flagSets.find((f) => name in f)?.[name] as {hidden?: boolean} | undefined)?.hidden) continue
    const distance = editDistance(typed, name)
    if (distance > Math.max(1, Math.floor(name.length / 3))) continue
    if (!best || distance < best.distance) best = {name, distance}
  }
  return best ? `${message}; did you mean --${best.name}?` : message
}

/**
 * oclif's parse errors in the house's one-line form: its framing ("The following errors occurred:",
 * "See more help with --help", which our own "See: ... --help" line replaces) dropped, flags named
 * as they are typed ("--reason", not "reason"), several missing flags in one clause.
 */
export function tidyParseMessage(message: string): string {
  let m = message.replace(/^The following errors? occurred:\s*/i, '').replace(/\s*See more help with --help\.?$/i, '')
  const missing = [...m.matchAll(/Missing required flag ([\w-]+)/g)].map((x) => `--${x[1]}`)
  if (missing.length > 0) m = m.replace(/(\s*Missing required flag [\w-]+)+/, ` missing required flag${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`).trim()
  m = m.replace(/^Parsing (--[\w-]+) Expected/, '$1: expected')
  // oclif's note on flags that take several values follows the argument's description on the same
  // line once joined: said apart, in the house's words, so that the description stays whole.
  let after = ''
  const note = /\s+Note: (--[\w-]+(?:, --[\w-]+)*) allows? multiple values\..*$/.exec(m)
  if (note) {
    m = m.slice(0, note.index)
    const flags = note[1]!.split(', ')
    after = `; give them before ${flags.join(' and ')} (${flags.length === 1 ? 'it takes' : 'they take'} several values), or after --`
  }
  m = m.replace(/^Missing 1 required arg: ([\w-]+)\s+(.+)$/, (_all, name: string, what: string) => `missing required argument ${name.toUpperCase()} (${what.trim()})`)
  return m + after
}

export const dbFlag = Flags.string({
  description: 'Case database (one SQLite file, created 0600).',
  env: 'CROSSTALK_DB',
  default: './crosstalk.db',
  helpValue: 'PATH',
})
