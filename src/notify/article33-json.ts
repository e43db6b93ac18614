import {exposureKnown} from '../scope/unscanned.js'
import {article33JsonSchema, type Article33Json, type Article33Result} from './article33-schema.js'
import {PHRASES} from './phrases.js'

/**
 * The Article 33 draft as its JSON gives it. The draft keeps its figures for the renderers, which
 * say each one as "not known" or "at least N" (exposureKnown); the JSON gives numbers only, so
 * there a figure nobody knows is null, never 0 (the contract: unknown is never printed as zero).
 * With no canary registry no marker is attributed to a session: the marker counts are not known
 * (as scope --json's). Where answers also hold marker-shaped tokens (orphans), whose data they
 * carry is not known, so no exposure figure is: the exposure is null, what verbatim text shows is
 * kept apart as a lower bound, and a range with no bound found (low 0, no high) has no low.
 * A case with a registry is the draft unchanged.
 */
export function article33Json(d: Article33Result): Article33Json {
  const s = d.scope
  if (s === null || s.registry_files > 0) return d
  const known = exposureKnown(false, s.orphan_sightings)
  const range = <R extends {low: number; high: number | null}>(r: R | null): (Omit<R, 'low'> & {low: number | null}) | null =>
    r === null || known || r.high !== null || r.low > 0 ? r : {...r, low: null}
  const {exposure, ...rest} = s
  const textOnly = {...exposure, by_canary: null}
  return article33JsonSchema.parse({
    ...d,
    data_subjects: {...d.data_subjects, approximate: range(d.data_subjects.approximate)},
    records: {approximate: range(d.records.approximate)},
    scope: {
      ...(known ? {} : {exposure_known: false, exposure_unknown_reason: PHRASES[d.language].exposureUnknown.notKnown}),
      exposure: known ? textOnly : null,
      ...(known ? {} : {exposure_at_least: textOnly}),
      ...rest,
      contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null,
      exposed_sessions: null, exposed_tenants: null, recipient_tenants: null, flows: null,
      by_hour: s.by_hour.map((h) => ({...h, responses: null, cross_tenant_responses: null})),
    },
  })
}
