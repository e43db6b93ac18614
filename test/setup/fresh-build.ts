import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

// End-to-end tests run the CLI as installed (bin/run.js -> dist/). A dist/ older than src/
// would test stale code and pass: before they run, every src/**/*.ts must have a dist/**/*.js
// at least as new, or the project is built here.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(full)
    else if (entry.name.endsWith('.ts')) yield full
  }
}

export function staleBuild(): string | null {
  let newest = {path: '', mtimeMs: 0}
  for (const src of sources(join(ROOT, 'src'))) {
    const out = join(ROOT, 'dist', relative(join(ROOT, 'src'), src)).replace(/\.ts$/, '.js')
    const mtimeMs = statSync(src).mtimeMs
    if (!existsSync(out) || statSync(out).mtimeMs < mtimeMs) return relative(ROOT, src)
    if (mtimeMs > newest.mtimeMs) newest = {path: src, mtimeMs}
  }
  // A command's bundle (scripts/bundle.mjs) holds the modules it imports: `tsc -w` rewrites only
  // the changed module's own file and leaves the bundle, and the command's file handing over to
  // it, as they were. Each bundle must be as new as the newest source.
  const bundles = join(ROOT, 'dist', 'bundles')
  if (existsSync(bundles)) {
    for (const name of readdirSync(bundles)) {
      if (statSync(join(bundles, name)).mtimeMs < newest.mtimeMs) return relative(ROOT, newest.path)
    }
  }
  return existsSync(join(ROOT, 'oclif.manifest.json')) ? null : 'oclif.manifest.json'
}

export default function setup(): void {
  const stale = staleBuild()
  if (stale === null) return
  process.stderr.write(`dist/ is older than ${stale}: building before the end-to-end tests\n`)
  execFileSync('npm', ['run', 'build', '--silent'], {cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit']})
}
