import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, realpathSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {ROOT, tempDir} from '../helpers/cli.js'

// The README is run, not just read: after the way it gives to put crosstalk on PATH (npm link,
// here into a private prefix so the test touches nothing global), every `crosstalk ...` line it
// prints names a real command with real flags, and `crosstalk <command> --help` works through
// PATH. The demo's closing "Next" lines are run exactly as printed, with and without the link.

/** Bounds every child: a hung one fails its test instead of blocking the worker (vitest cannot stop a spawnSync). */
const CHILD = {encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL'} as const

/** PATH without any folder whose crosstalk is this checkout's (a machine where `npm link` was run). */
function pathWithoutLink(path: string): string {
  const own = realpathSync(join(ROOT, 'bin/run.js'))
  return path
    .split(delimiter)
    .filter((dir) => {
      const candidate = join(dir, 'crosstalk')
      try {
        return !existsSync(candidate) || realpathSync(candidate) !== own
      } catch {
        return true
      }
    })
    .join(delimiter)
}

interface ManifestCommand {
  flags: Record<string, {allowNo?: boolean; type: string}>
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
const IDS = Object.keys(manifest.commands).map((id) => id.split(':').join(' '))

/** Shell words of one line, quotes removed, a trailing # comment dropped. */
function words(line: string): string[] {
  const out: string[] = []
  const re = /"([^"]*)"|'([^']*)'|(#.*$)|(\S+)/g
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[3] !== undefined) break
    out.push(m[1] ?? m[2] ?? m[4]!)
  }
  return out
}

/** Every crosstalk command line of the README: lines of its code blocks, and inline code. */
function readmeCommands(): string[][] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const lines: string[] = []
  let inBlock = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inBlock = !inBlock
    else if (inBlock) lines.push(line.trim())
  }
  for (const m of text.matchAll(/`(crosstalk [^`]+)`/g)) lines.push(m[1]!)
  return lines
    .map(words)
    // placeholders (`crosstalk COMMAND --help`, `crosstalk ...`) are not commands
    .filter((w) => w[0] === 'crosstalk' && !/^([A-Z]+|\.\.\.)$/.test(w[1] ?? ''))
}

/** The command id a command line starts with (the longest that matches), and the rest. */
function parse(argv: string[]): {id: string | undefined; rest: string[]} {
  const after = argv.slice(1)
  const id = IDS.filter((c) => c.split(' ').every((w, i) => after[i] === w)).sort((a, b) => b.length - a.length)[0]
  return {id, rest: id ? after.slice(id.split(' ').length) : after}
}

describe('the README, as printed', () => {
  const lines = readmeCommands()
  let env: NodeJS.ProcessEnv
  let linked: string

  beforeAll(() => {
    // The quick start's install step, into a prefix of our own (no global state changed).
    const prefix = tempDir('npm-prefix-')
    const link = spawnSync('npm', ['link', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {cwd: ROOT, env: {...process.env, npm_config_prefix: prefix}, ...CHILD})
    expect(link.status, link.stderr).toBe(0)
    linked = join(prefix, 'bin')
    env = {...process.env, PATH: `${linked}${delimiter}${process.env.PATH}`, NO_COLOR: '1', CROSSTALK_DB: ''}
  }, 60_000)

  it('has a two-command quick start and says how crosstalk gets on PATH (npm link)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const quick = readme.split('## Quick start')[1]!.split('```sh\n')[1]!.split('```')[0]!.trim().split('\n')
    expect(quick.map((l) => l.split('#')[0]!.trim())).toEqual(['npm ci && npm run demo', 'npm test'])
    expect(readme.split('## Quick start')[1]!.split('##')[0]).toMatch(/run `npm link` once/)
    expect(existsSync(join(linked, 'crosstalk'))).toBe(true)
    expect(realpathSync(join(linked, 'crosstalk'))).toBe(realpathSync(join(ROOT, 'bin/run.js')))
  })

  it('prints only real commands with real flags', () => {
    expect(lines.length).toBeGreaterThan(15)
    const problems: string[] = []
    for (const argv of lines) {
      const {id, rest} = parse(argv)
      if (!id) {
        problems.push(`no such command: ${argv.join(' ')}`)
        continue
      }
      const flags = manifest.commands[id.split(' ').join(':')]!.flags
      for (const token of rest.filter((w) => w.startsWith('--'))) {
        const name = token.slice(2).split('=')[0]!
        const known = name in flags || (name.startsWith('no-') && flags[name.slice(3)]?.allowNo === true)
        if (!known) problems.push(`${id}: no flag ${token} (in: ${argv.join(' ')})`)
      }
    }
    expect(problems).toEqual([])
  })

  it('every command it names runs through PATH (crosstalk <command> --help exits 0)', () => {
    const ids = [...new Set(lines.map((argv) => parse(argv).id!))]
    expect(ids).toEqual(expect.arrayContaining(['triage', 'scope', 'report case', 'ingest logs']))
    for (const id of ids) {
      const r = spawnSync('crosstalk', [...id.split(' '), '--help'], {env, ...CHILD})
      expect(r.status, `crosstalk ${id} --help: ${r.stderr}`).toBe(0)
      expect(r.stdout).toContain(`$ crosstalk ${id}`)
    }
  })

  it('its processor block runs as printed, each line exiting 0 (its own case first: a fresh case holds nothing to notify)', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const after = text.split('\n# as processor')[1]!.split('\n').slice(1)
    const block = after.slice(0, after.findIndex((l) => !l.includes('--db provider.db'))).map(words)
    expect(block.map((w) => w.slice(1, 3).join(' '))).toEqual(['triage ./gateway-logs/', 'incident open', 'report processor-notice', 'report article33'])
    const dir = tempDir()
    const bin = join(ROOT, 'bin/run.js')
    const gen = spawnSync(process.execPath, [bin, 'generate', '--out', join(dir, 'inc'), '--records', '600'], {cwd: dir, env, ...CHILD})
    expect(gen.status, gen.stderr).toBe(0)
    // The README's paths and its example tenant (acme), as this generated case has them.
    const asHere = (w: string, tenant: string) => (w === './gateway-logs/' ? join(dir, 'inc/logs') : w === 'canaries.csv' ? join(dir, 'inc/canaries.csv') : w === 'acme' ? tenant : w)
    let tenant = 'acme'
    for (const argv of block) {
      const r = spawnSync(process.execPath, [bin, ...argv.slice(1).map((w) => asHere(w, tenant))], {cwd: dir, env, ...CHILD})
      expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(0)
      if (argv[1] === 'triage') {
        const scope = spawnSync(process.execPath, [bin, 'scope', '--json', '--db', 'provider.db'], {cwd: dir, env, ...CHILD})
        tenant = (JSON.parse(scope.stdout) as {exposure: {flows: Array<{source_tenant: string}>}}).exposure.flows[0]!.source_tenant
      }
    }
  })

  it.each([
    ['with crosstalk on PATH', true],
    ['from a bare checkout', false],
  ])('the demo ends with Next commands that run as printed, %s', (_, onPath) => {
    const runEnv = onPath ? env : {...env, PATH: pathWithoutLink(process.env.PATH ?? '')}
    const demo = spawnSync(process.execPath, [join(ROOT, 'bin/run.js'), 'demo', '--records', '600', '--out', join(tempDir(), 'demo')], {cwd: ROOT, env: runEnv, ...CHILD})
    expect(demo.status, demo.stderr).toBe(0)
    const next = demo.stdout.split('Next, on this case:\n')[1]!.trim().split('\n').map((l) => l.trim())
    expect(next.length).toBe(4)
    for (const line of next) {
      expect(line.startsWith(onPath ? 'crosstalk ' : './bin/run.js '), `${line} (PATH=${runEnv.PATH})`).toBe(true)
      const r = spawnSync('sh', ['-c', line], {cwd: ROOT, env: runEnv, ...CHILD})
      expect(r.status, `${line}: ${r.stderr}`).toBe(0)
    }
  })
})
