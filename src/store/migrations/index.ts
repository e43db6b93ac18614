import type {Database} from 'better-sqlite3'
import {up as caseSchema} from './001-case.js'
import {up as referenceEvidence} from './002-reference-evidence.js'

export interface Migration {
  version: number
  name: string
  up: (db: Database) => void
}

// Append-only: a released migration is never edited, only followed by a new one (002, ...).
export const MIGRATIONS: readonly Migration[] = [
  {version: 1, name: 'case', up: caseSchema},
  {version: 2, name: 'reference-evidence', up: referenceEvidence},
]
