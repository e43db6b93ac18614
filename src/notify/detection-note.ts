import {describeGap, type DetectionCoverage} from '../detect/coverage.js'
import {z} from 'zod'

// What every report says about detection coverage: nothing when it is complete, a plain
// warning when the responder chose to report over an incomplete scan (--allow-incomplete).

export const detectionSchema = z.object({
  complete: z.boolean(),
  files_not_scanned: z.number().int(),
  records_not_scanned: z.number().int(),
  registry_changed: z.boolean(),
  provenance: z.enum(['current', 'stale', 'never']),
  last_scan_at: z.string().nullable(),
  note: z.string().nullable().describe('why detection is incomplete, null when complete'),
})

export type DetectionSummary = z.infer<typeof detectionSchema>

export function detectionSummary(c: DetectionCoverage): DetectionSummary {
  return {
    complete: c.complete,
    files_not_scanned: c.files_not_scanned,
    records_not_scanned: c.records_not_scanned,
    registry_changed: c.registry_changed,
    provenance: c.provenance,
    last_scan_at: c.last_scan_at,
    note: c.complete ? null : `Detection is incomplete: ${describeGap(c)}. Every number below covers only what was scanned.`,
  }
}
