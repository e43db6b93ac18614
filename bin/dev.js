#!/usr/bin/env node
// Same as run.js: commands always load from dist/ (run `npm run build`; `npx tsc -w` alone
// rewrites only the changed modules, and each command's bundle keeps the code it was built with).
// The framework from the same copy the built commands import (see run.js).
import {existsSync} from 'node:fs'
const bundled = new URL('../dist/bundles/oclif-core.js', import.meta.url)
const {execute} = await import(existsSync(bundled) ? bundled.href : '@oclif/core')
await execute({development: true, dir: import.meta.url})
