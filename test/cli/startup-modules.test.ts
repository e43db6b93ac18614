import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {expect, it} from 'vitest'

// What `triage` loads before its verdict is start-up on the verdict's path: zod (about 45 ms)
// is needed only to word a registry entry the plain check refuses, and the libraries of the
// drafts (date-fns, pdfkit) never. Run against the built command, as the installed CLI runs.
const ROOT = join(import.meta.dirname, '..', '..')

/** The packages under node_modules that importing a built module loads, by ESM import or CommonJS require, and every URL it resolves. */
function packagesLoadedBy(module: string): {packages: string[]; urls: string[]} {
  const hook = `export async function resolve(s, c, n) { const r = await n(s, c); globalThis.port?.postMessage(r.url); return r }
export function initialize({port}) { globalThis.port = port }`
  const script = `
    import {register} from 'node:module'
    import {MessageChannel} from 'node:worker_threads'
    import {createRequire} from 'node:module'
    const urls = new Set()
    const {port1, port2} = new MessageChannel()
    port1.on('message', (u) => urls.add(u))
    port1.unref()
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), {data: {port: port2}, transferList: [port2]})
    await import(${JSON.stringify(join(ROOT, 'dist', module))})
    await new Promise((r) => setTimeout(r, 50))
    const cjs = Object.keys(createRequire(import.meta.url).cache)
    const names = [...urls, ...cjs].map((u) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(decodeURIComponent(u))?.[1]).filter(Boolean)
    console.log(JSON.stringify({packages: [...new Set(names)].sort(), urls: [...urls]}))`
  // As bin/run.js starts it: without oclif's check of the Node version (semver, oclif's package.json).
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {cwd: ROOT, encoding: 'utf8', env: {...process.env, OCLIF_DISABLE_ENGINE_WARNING: '1'}})
  expect(out.status, out.stderr).toBe(0)
  return JSON.parse(out.stdout) as {packages: string[]; urls: string[]}
}

it('triage\'s command loads no library its verdict does not use', () => {
  const {packages: loaded, urls} = packagesLoadedBy('commands/triage.js')
  // The hook sees what is loaded: the CLI framework is, from the one copy bundled into dist/
  // (scripts/bundle.mjs) where the build wrote it, and then never also from node_modules.
  const bundled = pathToFileURL(join(ROOT, 'dist', 'bundles', 'oclif-core.js')).href
  if (existsSync(fileURLToPath(bundled))) {
    expect(urls).toContain(bundled)
    expect(loaded).not.toContain('@oclif/core')
  } else expect(loaded).toContain('@oclif/core')
  for (const lazy of ['zod', 'date-fns', 'pdfkit', 'semver']) expect(loaded).not.toContain(lazy)
})

it('the commands bin/run.js starts without NODE_EXTRA_CA_CERTS load no TLS or HTTP client', () => {
  // The launcher drops that bundle of certificates for these commands (node parses it as it
  // starts); a TLS connection made by one of them would then not trust the certificates it names.
  const launcher = readFileSync(join(ROOT, 'bin', 'run.js'), 'utf8').split('\n')[1]!
  const offline = /case \$\{1-\} in ([a-z|]+)\) unset NODE_EXTRA_CA_CERTS/.exec(launcher)?.[1]?.split('|')
  expect(offline).toEqual(['triage', 'ingest', 'scan', 'scope', 'verify'])
  const modules = ['triage', 'ingest/logs', 'ingest/canaries', 'ingest/findings', 'scan', 'scope', 'verify']
  expect(new Set(modules.map((m) => m.split('/')[0]))).toEqual(new Set(offline))
  for (const module of modules) {
    const {urls} = packagesLoadedBy(`commands/${module}.js`)
    expect(urls.length, module).toBeGreaterThan(0)
    expect(urls.filter((u) => /^node:(https?|http2|tls)$/.test(u)), module).toEqual([])
  }
  // The check sees them where they are loaded: probe's client is built on node:http and node:https.
  expect(packagesLoadedBy('commands/probe.js').urls).toEqual(expect.arrayContaining(['node:https', 'node:http']))
})
