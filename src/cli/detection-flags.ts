import {Flags} from '@oclif/core'
import {describeGap, requireCompleteDetection, type DetectionCoverage} from '../detect/coverage.js'

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
