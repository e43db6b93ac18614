#!/bin/sh
':' //; h=${CROSSTALK_HEAP_MB:-}; case $h in ''|*[!0-9]*|0*|?|??|1??|2[0-4]?|25[0-5]) h=;; *) h=--max-old-space-size=$h;; esac; case ${1-} in triage|ingest|scan|scope|verify) unset NODE_EXTRA_CA_CERTS;; esac; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-131072} exec node --max-semi-space-size=4 $h "$0" "$@"
// The line above is for sh (the shebang); to JavaScript it is a string and a comment. It
// runs node in place of the shell (same process) with settings for bounded memory:
// commands that stream a whole case make short-lived garbage, and V8's default semi-space
// (16 MB, three of them) is much of what separates their peak from the data they hold;
// 4 MB cost triage's verdict nothing measurable, 2 MB about 0.25 s of 2.1 at 200k records
// (alternating runs: the registry's and the pass's garbage promoted early and collected by
// full collections). glibc's per-thread malloc arenas (one per parse worker)
// hold on to freed buffers, and so does its adaptive mmap threshold, which after the first
// large free serves every later buffer of that size from the heap (a fixed 128 KiB threshold
// gives large buffers back to the system when freed: 15-20 MB lower peaks, measured).
// How far V8's heaps grow between full collections is bounded by the command itself
// (src/util/gc.ts boundHeapGrowth), at its start or, for triage, once its verdict is out.
// CROSSTALK_HEAP_MB sets V8's heap limit for an unusual workload (e.g. lines of hundreds of
// MB; V8's own limit otherwise, which depends on the machine's memory); a
// value that is not a whole number, or under 256 (V8 aborts with a native stack when its
// heap cannot hold even the CLI's start-up), is passed over here and refused by the command
// itself (src/cli/base-command.ts), so that the error follows the contract (one line, JSON
// under --json).
// NODE_EXTRA_CA_CERTS: node reads and parses that bundle of certificates as it starts, before
// any code runs (30 ms of a 50 ms start with the 200 KB bundle of Debian's ca-certificates,
// measured), for the TLS connections a command may make. The commands named in the case above
// make none (the data pipeline: test/e2e/launcher.test.ts holds them to it); every other
// command, probe and replay among them, starts with it as given.
// Values already in the environment win. Any POSIX sh will do (env -S is missing from
// BusyBox). `node bin/run.js` runs without these settings; they change nothing but memory.
// The framework from its bundle in dist/ where `npm run build` wrote one (the commands import
// that same copy; scripts/bundle.mjs), else from node_modules. oclif's own check of the Node
// version (against its floor, Node 18, below this CLI's: package.json engines) is skipped: it
// loads semver and builds its regular expressions on every start (about 20 ms).
import {existsSync} from 'node:fs'
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
// A reader that went away (`| head`, `2>&1 | true`, a log shipper that exited) makes every later
// write to its pipe fail with EPIPE, which Node raises as an uncaught error: the process then
// exited 1 whatever the command decided, so a gate's 3 and a usage error's 2 read as 1. Nothing
// more can be said on a closed pipe; the command goes on and exits with its own code.
// Any other failed write (ENOSPC on a full disk, EIO, EFBIG) was rethrown here and escaped as
// Node's uncaught-exception stack: the contract's one-line error instead (stderr, unless stderr
// itself is what failed), and a command that would have ended well exits 1, since what it
// wrote is incomplete. A command's own failure code (2, 3, 1) is left as it is.
// oclif's Command module adds its own stdout handler as it loads (once per copy of the
// framework: the bundle's, and node_modules' where a command is run from source), and it
// rethrows the same way: so every 'error' these two streams emit goes to this handler alone.
let writeFailed = false
for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]]) {
  const onError = (error) => {
    if (error?.code === 'EPIPE' || writeFailed) return
    writeFailed = true
    if (stream === process.stderr) return
    const cause = String(error?.message ?? error).split('\n')[0].replace(/, write$/, '')
    try {
      process.stderr.write(`Error: ${name}: writing failed (${cause}); the output is incomplete\n`)
    } catch {}
  }
  // A listener a command adds (clock --watch stops on EPIPE) still hears EPIPE; the no-op one
  // keeps Node from raising an 'error' that has no listener at all.
  stream.on('error', () => {})
  const emit = stream.emit
  stream.emit = function (event, ...rest) {
    if (event !== 'error') return emit.call(this, event, ...rest)
    if (rest[0]?.code === 'EPIPE') return emit.call(this, event, ...rest)
    onError(rest[0])
    return true
  }
}
process.on('exit', (code) => {
  if (writeFailed && !code) process.exitCode = 1
})
const bundled = new URL('../dist/bundles/oclif-core.js', import.meta.url)
const {execute} = await import(existsSync(bundled) ? bundled.href : '@oclif/core')
await execute({dir: import.meta.url})
