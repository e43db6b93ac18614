import {accessSync, constants, readdirSync, realpathSync, statSync} from 'node:fs'
import {delimiter, isAbsolute, join, relative, resolve, sep} from 'node:path'

// Commands we print for the user to run next must work as printed. `crosstalk` does only
// when this installation is on PATH (npm link, a global install); from a bare checkout the
// way in is the path of bin/run.js.

/** How the user can run this crosstalk from `cwd`: "crosstalk", or a path to bin/run.js. */
export function invocation(root: string, bin: string, options: {path?: string; cwd?: string} = {}): string {
  const runJs = join(root, 'bin', 'run.js')
  if (onPath(bin, runJs, options.path ?? process.env.PATH ?? '')) return bin
  const cwd = options.cwd ?? process.cwd()
  const rel = relative(cwd, runJs)
  const printable = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? `.${sep}${rel}` : runJs
  return shellQuote(printable)
}

/** True when `name` on PATH resolves to this file (the first hit wins, as in a shell). */
function onPath(name: string, target: string, path: string): boolean {
  let real: string
  try {
    real = realpathSync(target)
  } catch {
    return false
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue
    const candidate = resolve(dir, name)
    try {
      if (!statSync(candidate).isFile()) continue
      accessSync(candidate, constants.X_OK)
    } catch {
      continue
    }
    try {
      return realpathSync(candidate) === real
    } catch {
      return false
    }
  }
  return false
}

export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

/** Bytes under a folder (files only, links not followed). */
export function folderBytes(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) total += folderBytes(full)
    else if (entry.isFile()) total += statSync(full).size
  }
  return total
}
