import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'

// Issue 18: the build bundles each command and worker script (scripts/bundle.mjs), so that a
// command loads one file of its own code. The modules inside a bundle find the repository's
// templates/ and native/ from import.meta.url, two folders up: that holds only where every bundle
// and chunk lies two folders below the repository. A bundle written at a nested command's own
// path (dist/commands/report/article33.js) would look for dist/templates/ and dist/native/.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const dist = join(root, 'dist')
const walk = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
const entries = [...walk(join(dist, 'commands')).filter((f) => f.endsWith('.js')), join(dist, 'cli', 'hooks', 'command-not-found.js'), join(dist, 'ingest', 'parse-worker.js'), join(dist, 'case', 'verify-worker.js')]

describe('the built commands and workers', () => {
  it('each hands over to a bundle of its own, and every bundle and chunk lies two folders below the repository', () => {
    const targets = new Set<string>()
    for (const entry of entries) {
      const text = readFileSync(entry, 'utf8')
      const from = [...text.matchAll(/(?:from|import) "([^"]+)"/g)].map((m) => resolve(dirname(entry), m[1]!))
      expect(from.length, relative(root, entry)).toBeGreaterThan(0)
      for (const f of from) {
        expect(existsSync(f), `${relative(root, entry)} -> ${relative(root, f)}`).toBe(true)
        expect(relative(dist, f).split(sep)[0]).toBe('bundles')
        targets.add(f)
      }
      // A command's class, the hook's function: the default export is handed on.
      if (!entry.includes(`${sep}ingest${sep}parse-worker`) && !entry.includes(`${sep}case${sep}verify-worker`)) expect(text).toContain('export {default}')
    }
    // One bundle per entry: no command loads another's code.
    expect(targets.size).toBe(entries.length)
    const built = [...walk(join(dist, 'bundles')), ...walk(join(dist, 'chunks'))].filter((f) => f.endsWith('.js'))
    expect(built.length).toBeGreaterThanOrEqual(entries.length)
    for (const f of built) {
      expect(relative(root, f).split(sep), relative(root, f)).toHaveLength(3)
      // What the modules inside resolve from import.meta.url: the repository's own folders.
      expect(fileURLToPath(new URL('../../templates/', pathToFileURL(f)))).toBe(join(root, 'templates') + sep)
      expect(fileURLToPath(new URL('../../native/crosstalk-native.node', pathToFileURL(f)))).toBe(join(root, 'native', 'crosstalk-native.node'))
    }
  })

  it('import the CLI framework from its one bundled copy, as bin/run.js and bin/dev.js do', () => {
    // oclif's handler tells an exit from a failure by instanceof: its config, the commands'
    // classes and its errors must come from one module instance.
    const oclif = join(dist, 'bundles', 'oclif-core.js')
    expect(existsSync(oclif)).toBe(true)
    const built = [...walk(join(dist, 'bundles')), ...walk(join(dist, 'chunks'))].filter((f) => f.endsWith('.js') && f !== oclif)
    for (const f of built) {
      const text = readFileSync(f, 'utf8')
      expect(text, relative(root, f)).not.toMatch(/from "@oclif\/core"|import\("@oclif\/core"\)/)
      const from = [...text.matchAll(/from "([^"]*oclif-core\.js)"/g)].map((m) => resolve(dirname(f), m[1]!))
      for (const target of from) expect(target, relative(root, f)).toBe(oclif)
      // Every command's class extends the framework's Command.
      if (relative(join(dist, 'bundles'), f).startsWith('commands-')) expect(from.length, relative(root, f)).toBeGreaterThan(0)
    }
    for (const bin of ['run.js', 'dev.js']) expect(readFileSync(join(root, 'bin', bin), 'utf8')).toContain("new URL('../dist/bundles/oclif-core.js', import.meta.url)")
  })

  it('the help command (its own plugin, with the framework from node_modules) answers as before', () => {
    const ok = spawnSync(join(root, 'bin', 'run.js'), ['help', 'triage'], {encoding: 'utf8'})
    expect(ok.status, ok.stderr).toBe(0)
    expect(ok.stdout).toMatch(/^USAGE\n {2}\$ crosstalk triage PATHS/m)
    const missing = spawnSync(join(root, 'bin', 'run.js'), ['help', 'no-such-command'], {encoding: 'utf8'})
    expect(missing.status).toBe(2)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
    expect(missing.stderr).toMatch(/no-such-command not found/)
    expect(missing.stderr).not.toMatch(/EEXIT|at .*\.js:\d+/)
  })

  it('commands load through their bundles', async () => {
    const triage = (await import(pathToFileURL(join(dist, 'commands', 'triage.js')).href)) as {default: {summary?: string}}
    expect(triage.default.summary).toMatch(/First hour of an incident/)
    const article33 = (await import(pathToFileURL(join(dist, 'commands', 'report', 'article33.js')).href)) as {default: {run?: unknown; description?: string}}
    expect(typeof article33.default.run).toBe('function')
    expect(article33.default.description).toMatch(/Article 33/)
  })
})
