import type {Database} from 'better-sqlite3'
import {up as core} from './001-core.js'
import {up as detect} from './002-detect.js'
import {up as notify} from './003-notify.js'
import {up as replay} from './004-replay.js'
import {up as detectMeta} from './005-detect-meta.js'
import {up as fusedIngest} from './006-fused-ingest.js'

export interface Migration {
  version: number
  name: string
  up: (db: Database) => void
}

// Append-only: a released migration is never edited, only followed by a new one.
export const MIGRATIONS: readonly Migration[] = [
  {version: 1, name: 'core', up: core},
  {version: 2, name: 'detect', up: detect},
  {version: 3, name: 'notify', up: notify},
  {version: 4, name: 'replay', up: replay},
  // 5 is reserved for scope.
  {version: 5, name: 'detect-meta', up: detectMeta},
  {version: 6, name: 'fused-ingest', up: fusedIngest},
]
