import {accessSync, closeSync, constants, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {InputError} from '../errors.js'

// PATHS may be files, directories (walked for log files) or globs the shell did not expand
// (quoted, or from a script). Node 20 has no fs.glob, so `*`, `?` and `**` are matched here.
// A directory walk reads the names LOG_FILE_PATTERNS lists (the commands' help prints the same
// list) and, since rotated logs come under many names (Python's app.log.2026-11-01_13, a
// converter's traces.txt, no extension at all), any other regular file whose first bytes are a
// log's: gzip, or a first non-blank line that opens a JSON object or array (sniffContent). A file
// named on the command line is read whatever its name.
// Symbolic links are followed (Kubernetes' /var/log/containers/*.log are all links): a
// directory reached twice by its real path is walked once, a file reached twice is read once.
// Every entry the walk or a glob reaches and does not read is returned with why: one that may
// hold a log (a broken link, a link loop, a FIFO, a log compressed in a way crosstalk does not
// read, UTF-16 text, an entry it may not read, so whose first bytes are not known), whatever its
// name, is `unread`, and a gate must not pass over it; a regular file whose name and first bytes
// are not a log's (a README, .DS_Store, a checksum list) is skipped with a warning and fails no gate.

/** What a directory walk takes, as the help says it. */
export const LOG_FILE_PATTERNS = [
  '*.jsonl', '*.ndjson', '*.json', '*.log', 'each of these .gz',
  'and their rotated names (.1, .2.gz, -YYYYMMDD, -YYYY-MM-DD, .YYYY-MM-DD, .YYYY-MM-DD_HH, each .gz too)',
  'and any other file whose first bytes are gzip or a first line opening a JSON object or array',
] as const
/**
 * A log's name, rotated or not, plain or gzip: the rotation suffix is digits after a dot, dash or
 * underscore, in groups (logrotate's .N, -YYYYMMDD[HH] and dateformat -%Y-%m-%d; Python's
 * TimedRotatingFileHandler's .YYYY-MM-DD[_HH[-MM[-SS]]]).
 */
const LOG_BASE = String.raw`\.(jsonl|ndjson|json|log)(?:[._-]\d+)*`
const LOG_FILE = new RegExp(`${LOG_BASE}(\\.gz)?$`, 'i')
/** A log's name under a compression crosstalk does not read: never taken for "not a log". */
const LOG_OTHER_COMPRESSION = new RegExp(`${LOG_BASE}\\.(zst|zstd|xz|lzma|bz2|lz4|lz|br|z|zip|7z|sz)$`, 'i')

/** The reason given for a walked name that is not a log's (no gate fails on it); its first bytes say why after it. */
export const NOT_A_LOG_NAME = 'not a log file name'

/** How many first bytes of a file whose name is not a log's are read to tell whether it holds one. */
const SNIFF_BYTES = 64 * 1024
/** Compressed streams crosstalk does not read, by their magic bytes: a log may be inside. */
const OTHER_COMPRESSION_MAGIC: ReadonlyArray<[string, readonly number[]]> = [
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]], ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]], ['bzip2', [0x42, 0x5a, 0x68]],
  ['lz4', [0x04, 0x22, 0x4d, 0x18]], ['zip', [0x50, 0x4b, 0x03, 0x04]], ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
]

/** An entry a directory walk or a glob reached and did not read. */
export interface SkippedEntry {
  path: string
  reason: string
  /** true: it may hold a log that was not read, so a gate (--fail-on-leak) does not pass; false: its name is not a log's */
  unread: boolean
}

export interface ExpandedPaths {
  paths: string[]
  skipped: SkippedEntry[]
}

/**
 * Why a path given by name could not be examined, in the words the walk uses for the same
 * entry: a link that loops or points nowhere is not "no such file".
 */
function notStatted(input: string, code: string): InputError {
  if (code === 'ELOOP') return new InputError(`${input}: symbolic link loop`, 'E_NOT_FOUND')
  let link = false
  try {
    link = lstatSync(input).isSymbolicLink()
  } catch {
    // Nothing at the path itself.
  }
  if (code === 'ENOENT' && link) return new InputError(`${input}: broken symbolic link (its target does not exist)`, 'E_NOT_FOUND')
  if (code === 'ENOENT' || code === 'ENOTDIR') return new InputError(`${input}: no such file or directory`, 'E_NOT_FOUND')
  // The contract's code for a path that cannot be examined stays E_NOT_FOUND; the message says the cause.
  return new InputError(`${input}: could not be examined (${code || 'unknown error'})`, 'E_NOT_FOUND')
}

/** The files to read (each once) and the entries reached but not read, or an error naming the first input that cannot be read at all. */
export function expandLogPaths(inputs: readonly string[]): ExpandedPaths {
  const out: string[] = []
  const skipped: SkippedEntry[] = []
  for (const input of inputs) {
    // Per input: a directory named twice is walked for each (its files are read once all the same).
    const walked = new Set<string>()
    if (/[*?]/.test(input)) {
      const {files, problems} = expandGlob(input, walked)
      if (files.length === 0 && problems.length === 0) throw new InputError(`${input}: no file matches this pattern`, 'E_NO_MATCH')
      out.push(...files)
      skipped.push(...problems)
      continue
    }
    let stat
    try {
      stat = statSync(input)
    } catch (error) {
      throw notStatted(input, (error as NodeJS.ErrnoException).code ?? '')
    }
    if (stat.isDirectory()) {
      const entries: WalkEntry[] = []
      walk(input, walked, entries)
      const found: string[] = []
      const here: SkippedEntry[] = []
      for (const e of entries) {
        const logName = isLogName(e) || unsupportedCompression(e) !== null
        if (e.problem === null && logName) found.push(e.path)
        else if (e.problem === null) {
          const content = sniffContent(e.path)
          if (content.kind === 'log') found.push(e.path)
          else if (content.kind === 'unread') here.push({path: e.path, reason: content.why, unread: true})
          else here.push({path: e.path, reason: `${NOT_A_LOG_NAME}, ${content.why}`, unread: false})
        } else {
          // An entry the walk could not examine (a link it could not follow, a FIFO, a device, one
          // it may not read) may hold a log whatever its name: a gate does not pass over it.
          here.push({path: e.path, reason: e.problem, unread: true})
        }
      }
      if (found.length === 0 && !here.some((s) => s.unread)) {
        throw new InputError(`${input}: directory holds no log files (${LOG_FILE_PATTERNS.join(', ')})`, 'E_NO_MATCH')
      }
      out.push(...found)
      skipped.push(...here)
    } else if (!stat.isFile()) {
      // Checked before anything is stored: a FIFO would block, /dev/zero never ends.
      throw new InputError(`${input}: not a regular file (a FIFO, device or socket); crosstalk keeps the exact bytes of evidence files, so copy the log into a file first`, 'E_NOT_A_FILE')
    } else out.push(input)
  }
  // The same file named twice (a directory and a file inside it, a link and its target) is read once.
  // Where a link and the file it leads to are both reached, the file's own path is kept.
  const seen = new Map<string, number>()
  const paths: string[] = []
  for (const p of out) {
    const key = realPath(p)
    const at = seen.get(key)
    if (at === undefined) {
      seen.set(key, paths.length)
      paths.push(p)
    } else if (resolve(p) === key && resolve(paths[at]!) !== key) paths[at] = p
  }
  if (paths.length === 0 && skipped.some((s) => s.unread)) {
    // The entries go with the error: the case remembers them all the same (unread-sources.ts).
    throw Object.assign(new InputError(`no log file could be read: ${unreadEntriesMessage(skipped)}`, 'E_NOTHING_READ'), {skipped})
  }
  return {paths, skipped}
}

/** One phrase naming the entries a walk could not read (the first few), or null where there are none. */
export function unreadEntriesMessage(skipped: readonly SkippedEntry[]): string | null {
  const unread = skipped.filter((s) => s.unread)
  if (unread.length === 0) return null
  const named = unread.slice(0, 5).map((s) => `${s.path} (${s.reason})`)
  return `${unread.length} entr${unread.length === 1 ? 'y' : 'ies'} not read: ${named.join('; ')}${unread.length > 5 ? `; and ${unread.length - 5} more` : ''}`
}

/** A walked entry: a file to read (problem null), or why it cannot be. */
interface WalkEntry {
  path: string
  /** where a link leads (its name counts as the entry's), or null */
  target: string | null
  problem: string | null
  /** a directory that could not be listed: any name under it may be a log */
  directory: boolean
  /** a regular file that may not be read: its first bytes, so whether it is a log, are not known */
  contentUnknown?: boolean
}

/** What a file's first bytes say: a log's (read it), not a log's (skipped, with why), or not known (unread: a gate does not pass). */
type ContentVerdict = {kind: 'log'} | {kind: 'not_log'; why: string} | {kind: 'unread'; why: string}

/**
 * Whether a walked file whose name is not a log's holds one, by its first bytes: gzip, or a first
 * non-blank line (after a UTF-8 byte-order mark) that opens a JSON object or array, is read as a
 * log (a JSON array is then refused as not JSON Lines, and stays open: a gate does not pass over
 * it). A stream compressed another way may hold a log and is unread. Anything else (text whose
 * first line is not JSON, binary, an empty file) is not a log.
 */
function sniffContent(path: string): ContentVerdict {
  let head: Buffer
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      const buf = Buffer.alloc(SNIFF_BYTES)
      head = buf.subarray(0, readSync(fd, buf, 0, SNIFF_BYTES, 0))
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    return {kind: 'unread', why: `could not be read (${code(error)}), so whether it holds a log is not known`}
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return {kind: 'log'}
  for (const [name, magic] of OTHER_COMPRESSION_MAGIC) {
    if (head.length >= magic.length && magic.every((b, i) => head[i] === b)) {
      return {kind: 'unread', why: `compressed as ${name} (by its first bytes), which crosstalk does not read (decompress it, or gzip it)`}
    }
  }
  let at = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0
  while (at < head.length && (head[at] === 0x20 || head[at] === 0x09 || head[at] === 0x0a || head[at] === 0x0d)) at++
  if (at === head.length) return {kind: 'not_log', why: head.length === 0 ? 'and empty' : `and nothing but white space in its first ${head.length} bytes`}
  if (head[at] === 0x7b || head[at] === 0x5b) return {kind: 'log'}
  // UTF-16 text (a byte-order mark, or a JSON opening with a NUL byte beside it): a log may be
  // written so, and crosstalk reads UTF-8 only.
  const bom16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)
  if (bom16 || (head[at] === 0 && (head[at + 1] === 0x7b || head[at + 1] === 0x5b))) {
    return {kind: 'unread', why: 'UTF-16 text (by its first bytes), which crosstalk does not read: a log may be written so (convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8)'}
  }
  // NUL bytes first (a file preallocated, or zeroed where it was cut and written again): what
  // follows them decides.
  let text = at
  while (text < head.length && head[text] === 0) text++
  if (text > at) {
    while (text < head.length && (head[text] === 0x20 || head[text] === 0x09 || head[text] === 0x0a || head[text] === 0x0d)) text++
    if (text === head.length) return {kind: 'unread', why: `${head.length} NUL bytes at its start and nothing else in them, so whether a log follows is not known`}
    if (head[text] === 0x7b || head[text] === 0x5b) return {kind: 'log'}
  }
  if (head.includes(0)) return {kind: 'not_log', why: 'and binary (not gzip, not JSON)'}
  return {kind: 'not_log', why: 'and its first line is not JSON (not a JSON Lines log)'}
}

function isLogName(e: WalkEntry): boolean {
  return LOG_FILE.test(basename(e.path)) || (e.target !== null && LOG_FILE.test(basename(e.target)))
}

function unsupportedCompression(e: WalkEntry): string | null {
  const m = LOG_OTHER_COMPRESSION.exec(basename(e.path)) ?? (e.target === null ? null : LOG_OTHER_COMPRESSION.exec(basename(e.target)))
  return m ? `compressed as .${m[m.length - 1]!.toLowerCase()}, which crosstalk does not read (decompress it, or gzip it)` : null
}

function walk(dir: string, walked: Set<string>, out: WalkEntry[]): void {
  const real = realPath(dir)
  if (walked.has(real)) return
  walked.add(real)
  let names
  try {
    names = readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name.localeCompare(b.name))
  } catch (error) {
    out.push({path: dir, target: null, problem: `directory could not be listed (${code(error)})`, directory: true})
    return
  }
  for (const entry of names) {
    const full = join(dir, entry.name)
    let stat: Stats
    let target: string | null = null
    if (entry.isSymbolicLink()) {
      try {
        stat = statSync(full)
        target = realpathSync(full)
      } catch (error) {
        const c = code(error)
        out.push({path: full, target: null, problem: c === 'ELOOP' ? 'symbolic link loop' : c === 'ENOENT' ? 'broken symbolic link (its target does not exist)' : `symbolic link could not be followed (${c})`, directory: false})
        continue
      }
    } else {
      try {
        stat = lstatSync(full)
      } catch (error) {
        out.push({path: full, target: null, problem: `could not be read (${code(error)})`, directory: false})
        continue
      }
    }
    if (stat.isDirectory()) {
      walk(full, walked, out)
      continue
    }
    const e: WalkEntry = {path: full, target, problem: null, directory: false}
    if (!stat.isFile()) e.problem = 'not a regular file (a FIFO, device or socket)'
    else {
      e.problem = unsupportedCompression(e)
      if (e.problem === null) {
        try {
          accessSync(full, constants.R_OK)
        } catch (error) {
          e.problem = `could not be read (${code(error)})`
          e.contentUnknown = true
        }
      }
    }
    out.push(e)
  }
}

function expandGlob(pattern: string, walked: Set<string>): {files: string[]; problems: SkippedEntry[]} {
  // Start from the longest leading part without wildcards.
  const parts = pattern.split('/')
  const firstWild = parts.findIndex((p) => /[*?]/.test(p))
  const root = parts.slice(0, firstWild).join('/') || (pattern.startsWith('/') ? '/' : '.')
  const re = globToRegExp(pattern.startsWith('./') ? pattern.slice(2) : pattern)
  try {
    if (!statSync(root).isDirectory()) return {files: [], problems: []}
  } catch {
    return {files: [], problems: []}
  }
  const entries: WalkEntry[] = []
  walk(root, walked, entries)
  const files: string[] = []
  const problems: SkippedEntry[] = []
  for (const e of entries) {
    // A directory that could not be listed may hold matches.
    if (e.directory) problems.push({path: e.path, reason: e.problem!, unread: true})
    else if (!re.test(e.path)) continue
    // A name the pattern matched is read whatever it is, as a file named on the command line.
    else if (e.problem === null || e.problem.startsWith('compressed as')) files.push(e.path)
    else problems.push({path: e.path, reason: e.problem, unread: true})
  }
  return {files, problems}
}

function realPath(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message
}

function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*'
        i++
        if (glob[i + 1] === '/') i++
      } else re += '[^/]*'
    } else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^(\\./)?${re}$`)
}
