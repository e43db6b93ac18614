#!/usr/bin/env node
// Same as run.js: commands always load from dist/ (run `npm run build`; `npx tsc -w` alone
// rewrites only the changed modules, and each command's bundle keeps the code it was built with).
import {execute} from '@oclif/core'
await execute({development: true, dir: import.meta.url})
