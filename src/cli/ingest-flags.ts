import {Flags} from '@oclif/core'
import {UsageError} from '../errors.js'
import {ingestLogs, type IngestLogsOptions, type IngestLogsResult} from '../ingest/ingest-logs.js'
import {parseFieldMap, type FieldMap} from '../extract/parse-record.js'
import type {CaseDb} from '../store/open-case.js'
import {clearProgress, ingestProgressBar} from './progress.js'

/** Flags shared by the commands that ingest logs (`ingest logs`, `triage`). */
export const logIngestFlags = {
  map: Flags.string({description: 'read FIELD from a dotted path of each line (repeatable), e.g. tenant_id=metadata.tenant', multiple: true, helpValue: 'FIELD=PATH'}),
  source: Flags.string({description: 'log source label; request_id is unique within a source', default: 'default'}),
  'compress-evidence': Flags.boolean({description: 'store the original bytes deflated (smaller case, slower ingest)', default: false}),
}

/** --map specs as a field map; a bad spec is a usage error (checked before the case is opened). */
export function parseMapFlag(specs: readonly string[] | undefined): FieldMap {
  try {
    return parseFieldMap(specs ?? [])
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

/** `ingestLogs` with the shared flags, and a progress bar on stderr unless --json. */
export async function ingestLogsCommand(
  db: CaseDb, paths: string[], map: FieldMap, flags: {source: string; 'compress-evidence': boolean}, json: boolean,
  extra: Partial<IngestLogsOptions> = {},
): Promise<IngestLogsResult> {
  const progress = json ? undefined : ingestProgressBar()
  try {
    return await ingestLogs(db, {paths, map, source: flags.source, now: () => new Date(), onProgress: progress, evidenceCodec: flags['compress-evidence'] ? 'deflate' : 'raw', ...extra})
  } finally {
    if (progress) clearProgress()
  }
}
