import {Flags} from '@oclif/core'
import {describeGap, nothingSearched, requireCompleteDetection, type DetectionCoverage} from '../detect/coverage.js'

/** `--allow-incomplete`: report findings although detection has not covered everything ingested. */
export const detectionFlags = {
  'allow-incomplete': Flags.boolean({
    description: 'Report although detection has not covered every ingested file (the output then says so); without it such a case is refused.',
    default: false,
  }),
}

/** Refuses an incomplete detection unless allowed; when allowed, returns the warning line for stderr. */
export function checkDetection(coverage: DetectionCoverage, what: string, allowIncomplete: boolean): string | null {
  requireCompleteDetection(coverage, what, allowIncomplete)
  return coverage.complete ? null : `warning: ${what} over an incomplete detection (--allow-incomplete): ${describeGap(coverage)}`
}

/**
 * Where nothing was searched (never scanned, or no log record to scan), an empty listing is no
 * finding of none: the line a listing prints instead of its "none" (console), or beside its empty
 * --json array or CSV (stderr), whose shapes cannot say it. Null where something was searched.
 */
export function nothingSearchedLine(coverage: DetectionCoverage, what: string, listed: number): string | null {
  if (listed > 0 || !nothingSearched(coverage)) return null
  const fix = coverage.no_log_records ? 'crosstalk ingest logs and crosstalk scan' : 'crosstalk scan'
  return `${what}: not known: nothing was searched (${describeGap(coverage)}); an empty list here is no finding of none (${fix})`
}
