#!/usr/bin/env node
// Same as run.js: commands always load from dist/ (run `npm run build` or `npx tsc -w`).
import {execute} from '@oclif/core'
await execute({development: true, dir: import.meta.url})
