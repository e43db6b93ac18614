#!/bin/sh
':' //; MALLOC_ARENA_MAX=2 exec node --max-semi-space-size=2 "$0" "$@"
// The line above is for sh (the shebang); to JavaScript it is a string and a comment. It
// runs node in place of the shell (same process) with settings for bounded memory, at no
// cost in speed (measured): commands that stream a whole case make short-lived garbage,
// and V8's default semi-space (16 MB, three of them) is much of what separates their peak
// from the data they hold; glibc's per-thread malloc arenas (one per parse worker) hold on
// to freed buffers. Any POSIX sh will do (env -S is missing from BusyBox). `node
// bin/run.js` runs without either setting; they change nothing but memory.
import {execute} from '@oclif/core'
await execute({dir: import.meta.url})
