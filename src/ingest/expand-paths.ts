import {readdirSync, statSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {InputError} from '../errors.js'

// PATHS may be files, directories (walked for log files) or globs the shell did not expand
// (quoted, or from a script). Node 20 has no fs.glob, so `*`, `?` and `**` are matched here.
// A directory is walked for exactly the names LOG_FILE_PATTERNS lists (the commands' help
// prints the same list); a file named on the command line is read whatever its name.

/** What a directory walk takes, as the help says it. */
export const LOG_FILE_PATTERNS = ['*.jsonl', '*.ndjson', '*.json', '*.log', 'and each of these .gz'] as const
const LOG_FILE = /\.(jsonl|ndjson|json|log)(\.gz)?$/i

export function expandPaths(inputs: readonly string[]): string[] {
  const out: string[] = []
  for (const input of inputs) {
    if (/[*?]/.test(input)) {
      const matches = expandGlob(input)
      if (matches.length === 0) throw new InputError(`${input}: no file matches this pattern`, 'E_NO_MATCH')
      out.push(...matches)
      continue
    }
    let stat
    try {
      stat = statSync(input)
    } catch {
      throw new InputError(`${input}: no such file or directory`, 'E_NOT_FOUND')
    }
    if (stat.isDirectory()) {
      const found = walk(input).filter((p) => LOG_FILE.test(p))
      if (found.length === 0) throw new InputError(`${input}: directory holds no log files (${LOG_FILE_PATTERNS.join(', ')})`, 'E_NO_MATCH')
      out.push(...found)
    } else if (!stat.isFile()) {
      // Checked before anything is stored: a FIFO would block, /dev/zero never ends.
      throw new InputError(`${input}: not a regular file (a FIFO, device or socket); crosstalk keeps the exact bytes of evidence files, so copy the log into a file first`, 'E_NOT_A_FILE')
    } else out.push(input)
  }
  // The same file named twice (a directory and a file inside it) is read once.
  const seen = new Set<string>()
  return out.filter((p) => {
    const key = resolve(p)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function walk(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, {withFileTypes: true}).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...walk(full))
    else if (entry.isFile()) out.push(full)
  }
  return out
}

function expandGlob(pattern: string): string[] {
  // Start from the longest leading part without wildcards.
  const parts = pattern.split('/')
  const firstWild = parts.findIndex((p) => /[*?]/.test(p))
  const root = parts.slice(0, firstWild).join('/') || (pattern.startsWith('/') ? '/' : '.')
  const re = globToRegExp(pattern.startsWith('./') ? pattern.slice(2) : pattern)
  let candidates: string[]
  try {
    candidates = walk(root)
  } catch {
    return []
  }
  return candidates.filter((p) => re.test(p))
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
