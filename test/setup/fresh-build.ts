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
  for (const src of sources(join(ROOT, 'src'))) {
    const out = join(ROOT, 'dist', relative(join(ROOT, 'src'), src)).replace(/\.ts$/, '.js')
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs) return relative(ROOT, src)
  }
  return existsSync(join(ROOT, 'oclif.manifest.json')) ? null : 'oclif.manifest.json'
}

export default function setup(): void {
  const stale = staleBuild()
  if (stale === null) return
  process.stderr.write(`dist/ is older than ${stale}: building before the end-to-end tests\n`)
  execFileSync('npm', ['run', 'build', '--silent'], {cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit']})
}
