import {resolve} from 'node:path'
import {InputError} from '../errors.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'
import {deleteFile, findLogFiles, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {filesReadingFrom} from '../store/records.js'
import {corpusFacts} from '../store/scale.js'
import {markProvenanceStale} from '../store/scan-runs.js'
import {inTransaction} from '../store/session.js'

// `crosstalk drop FILE`: the way to read a file again under another format or mapping. A file
// read with the wrong --map stays in the case under its SHA-256 (re-ingesting the same bytes adds
// nothing), so it is removed first, with everything derived from it, and the removal is recorded
// (the command audits the file's hash, counts, format and the reason given). The audit chain
// keeps the ingest and the drop; the evidence bytes of a dropped file leave the case (the
// original is wherever it was). Provenance ranked sources among the dropped records, so the next
// scan recomputes it (detection reads as incomplete until then).

export interface DroppedFile {
  path: string
  sha256: string
  log_format: string
  parse_spec: string
  state: string
  records: number
  bad_lines: number
}

export interface DropResult {
  dropped: DroppedFile[]
  reason: string
  /** provenance must be recomputed: run `crosstalk scan` */
  rescan_needed: boolean
}

export function dropFiles(db: CaseDb, refs: readonly string[], reason: string): DropResult {
  if (reason.trim() === '') throw new InputError('--reason: say why the file is dropped (it is recorded in the audit log)', 'E_USAGE')
  // A case of Spark findings holds the job's counts over every shard, and no scan can run again here.
  if (corpusFacts(db)) {
    throw new InputError('this case holds Spark findings by reference, counted over every shard by the job: run the job again without the file, and bring its findings into a new case', 'E_REFERENCE_CASE')
  }
  const files: FileRow[] = []
  for (const ref of refs) {
    const found = findLogFiles(db, ref, resolve(ref))
    if (found.length === 0) throw new InputError(`${ref}: no log file of this path or SHA-256 in the case (crosstalk status lists what it holds)`, 'E_NOT_FOUND')
    if (found.length > 1) {
      throw new InputError(`${ref}: ${found.length} files in the case match (${found.map((f) => `sha256 ${f.sha256.slice(0, 12)}`).join(', ')}); name one by its SHA-256 prefix`, 'E_AMBIGUOUS')
    }
    if (!files.some((f) => f.id === found[0]!.id)) files.push(found[0]!)
  }
  // Records of other files read with lines of these (a Batch output with its input file) would lose them.
  const dependents = filesReadingFrom(db, files.map((f) => f.id))
  if (dependents.length > 0) {
    throw new InputError(
      `records of ${dependents.map((d) => d.path).join(', ')} were read with lines of ${files.map((f) => f.path).join(', ')}; drop them together (crosstalk drop ${[...files, ...dependents].map((f) => f.path).join(' ')})`,
      'E_DEPENDENT_FILES',
    )
  }
  claimIngest(db)
  try {
    inTransaction(db, () => {
      for (const f of files) deleteFile(db, f.id)
      markProvenanceStale(db)
    })
  } finally {
    releaseIngest(db)
  }
  return {
    dropped: files.map((f) => ({path: f.path, sha256: f.sha256, log_format: f.log_format, parse_spec: f.parse_spec, state: f.state, records: f.records, bad_lines: f.bad_lines})),
    reason,
    rescan_needed: true,
  }
}
