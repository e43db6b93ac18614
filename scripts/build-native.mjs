// Builds the native extractor of the quick verdict's pass (native/, Rust through napi-rs) into
// native/crosstalk-native.node, where cargo is installed; run by `npm run build` (and so by
// `npm ci`). Without cargo, or when the build fails, crosstalk runs the same pass in TypeScript
// (same answers, slower) and this says so; it never fails the install. CROSSTALK_NATIVE_BUILD=0
// skips it. An addon this build did not make is removed: one built from older sources could
// disagree with the TypeScript rules it stands in for. Cargo rebuilds only what changed: with
// nothing changed this takes a fraction of a second.
import {spawnSync} from 'node:child_process'
import {copyFileSync, renameSync, rmSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const crate = join(root, 'native')
const out = join(crate, 'crosstalk-native.node')
const say = (text) => process.stderr.write(`build-native: ${text}\n`)

if (process.env.CROSSTALK_NATIVE_BUILD === '0') {
  say('skipped (CROSSTALK_NATIVE_BUILD=0); the verdict pass runs in TypeScript')
  rmSync(out, {force: true})
  process.exit(0)
}
if (spawnSync('cargo', ['--version'], {stdio: 'ignore'}).status !== 0) {
  say('cargo not found; the verdict pass runs in TypeScript')
  rmSync(out, {force: true})
  process.exit(0)
}
const build = spawnSync('cargo', ['build', '--release', '--locked', '--quiet', '--manifest-path', join(crate, 'Cargo.toml')], {stdio: 'inherit'})
if (build.status !== 0) {
  say(`cargo build failed (exit ${build.status ?? build.signal}); the verdict pass runs in TypeScript`)
  rmSync(out, {force: true})
  process.exit(0)
}
const lib = {darwin: 'libcrosstalk_native.dylib', win32: 'crosstalk_native.dll'}[process.platform] ?? 'libcrosstalk_native.so'
// Copied under another name and renamed over the addon: a process that has the old one loaded keeps its mapping.
copyFileSync(join(crate, 'target', 'release', lib), `${out}.tmp`)
renameSync(`${out}.tmp`, out)
