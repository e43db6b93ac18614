// Bundles what `crosstalk` loads at start into few files, after `tsc` has written dist/: each
// command (dist/commands/**), the oclif hook and the two worker scripts become one module each
// in dist/bundles/ (a module one of them imports only when needed goes to dist/chunks/), and the
// file tsc wrote at the entry's path is replaced by two lines that hand over to its bundle. Node
// resolved, read and compiled about 100 separate modules of dist/ before a command's first line
// (120-160 ms of triage's start-up on a 2-core host, 27-39 ms bundled) and each parse worker 40
// of them (75-90 ms, 38-42 bundled), measured. Packages in node_modules stay where they are
// (imported as usual). Every other file in dist/ is left as tsc wrote it (the bench and tests
// import them one by one).
//
// Paths a module takes from import.meta.url keep working because every bundle lies two folders
// below the repository, as the modules it holds did (dist/bundles/x.js, dist/chunks/y.js): a
// bundle written at a nested command's own path (dist/commands/report/article33.js) found
// neither the templates nor the native addon. Where esbuild is missing (an install without dev
// dependencies), dist/ stays unbundled: the same code, slower to start; this says so and never
// fails the build.
import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const say = (text) => process.stderr.write(`bundle: ${text}\n`)
const BANNER = '// Written by scripts/bundle.mjs over what tsc wrote to dist/ (npm run build).'

let esbuild
try {
  esbuild = await import('esbuild')
} catch {
  say('esbuild not installed; dist/ is left unbundled (commands start more slowly)')
  process.exit(0)
}

const walk = (dir) => readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]))
const entryPoints = [
  ...walk(join(dist, 'commands')).filter((f) => f.endsWith('.js')),
  join(dist, 'cli', 'hooks', 'command-not-found.js'),
  join(dist, 'ingest', 'parse-worker.js'),
  join(dist, 'case', 'verify-worker.js'),
  join(dist, 'detect', 'provenance', 'helper-worker.js'),
  join(dist, 'detect', 'scan-worker.js'),
]
for (const f of entryPoints) {
  if (!existsSync(f)) throw new Error(`bundle: ${relative(root, f)} is missing: run tsc first`)
  // A bundle taken for tsc's output would be bundled again, around chunks about to be removed.
  if (readFileSync(f, 'utf8').startsWith(BANNER)) throw new Error(`bundle: ${relative(root, f)} is already a bundle: run tsc first`)
}
rmSync(join(dist, 'chunks'), {recursive: true, force: true})
rmSync(join(dist, 'bundles'), {recursive: true, force: true})
// The CLI framework is bundled too, once, into dist/bundles/oclif-core.js, and every command and
// the hook import that one copy (as do bin/run.js and bin/dev.js): oclif's Config, the command
// classes and its errors must come from one module instance (its error handler tells an exit
// from a failure by instanceof). Node read 120 files of @oclif/core and its dependencies at each
// start (88-125 ms to import on a 2-core host; bundled 40-50, measured). Its optional compilers
// for development under ts-node stay external (never loaded from dist/). Its CommonJS modules
// keep `require`, `__filename` and `__dirname` as they were in node_modules (oclif reads its
// own package.json through them).
const OCLIF_BUNDLE = join(dist, 'bundles', 'oclif-core.js')
// By name: `export *` of a CommonJS module leaves esbuild no names to export.
const oclifNames = Object.keys(await import('@oclif/core')).filter((k) => k !== 'default' && k !== 'module.exports')
await esbuild.build({
  stdin: {contents: `export {${oclifNames.join(', ')}} from '@oclif/core'`, resolveDir: root, sourcefile: 'oclif-core-entry.js'},
  outfile: OCLIF_BUNDLE,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['typescript', 'ts-node', 'tsx', 'pnpapi'],
  banner: {
    js: [
      BANNER,
      "import {createRequire as __bundleCreateRequire} from 'node:module'",
      "import {dirname as __bundleDirname} from 'node:path'",
      'const require = __bundleCreateRequire(import.meta.url)',
      "const __filename = require.resolve('@oclif/core')",
      'const __dirname = __bundleDirname(__filename)',
    ].join('\n'),
  },
  absWorkingDir: root,
  logLevel: 'warning',
})
/** Every bundle below imports the framework from its one bundled copy (a path relative to dist/bundles/ or dist/chunks/). */
const oclifFromBundle = {
  name: 'oclif-from-bundle',
  setup(build) {
    build.onResolve({filter: /^@oclif\/core$/}, () => ({path: '../bundles/oclif-core.js', external: true}))
  },
}
// One build per entry: a process runs one command, and code split between commands came out as
// 76 shared chunks, 43 of them imported by triage (62-78 ms against 27-39 for one file). Chunks
// are left only where an entry imports a module when it needs it (the PDF renderer).
for (const entry of entryPoints) {
  const name = relative(dist, entry).replace(/\.js$/, '').split(sep).join('-')
  const result = await esbuild.build({
    entryPoints: [{in: entry, out: `bundles/${name}`}],
    outdir: dist,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    plugins: [oclifFromBundle],
    banner: {js: BANNER},
    metafile: true,
    absWorkingDir: root,
    logLevel: 'warning',
  })
  // The entry's own path (where oclif, the hook's declaration and the pools look for it) now
  // hands over to its bundle.
  const bundle = join(dist, 'bundles', `${name}.js`)
  const exports = Object.entries(result.metafile.outputs).find(([out]) => join(root, out) === bundle)?.[1].exports ?? []
  const from = JSON.stringify(relative(dirname(entry), bundle).split(sep).join('/').replace(/^(?!\.)/, './'))
  writeFileSync(entry, `${BANNER}\n${exports.length === 0 ? `import ${from}` : `export * from ${from}`}\n${exports.includes('default') ? `export {default} from ${from}\n` : ''}`)
}
