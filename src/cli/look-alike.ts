import type {ScopeResult} from '../scope/compute-scope.js'
import {lookAlikeGroups, nonAsciiCodePoints} from '../util/confusable.js'
import {withoutInvisible} from '../util/invisible.js'
import {safeLine} from '../util/sanitize.js'

// A warning where two tenant ids of a case print alike (util/confusable.ts): a leak from `tn-acme`
// to `tn-аcme` (Cyrillic а) read as a tenant leaking to itself, and a registry tenant with an
// invisible tag character against the logs' plain one made a session's own marker a "leak".
// Each id is shown escaped, with the code points outside ASCII that tell it from the other.

/** The tenants a scope names: the registry's and those of its flows (marker and provenance). */
export function scopeTenants(scope: Pick<ScopeResult, 'flows' | 'provenance_flows'>, registered: readonly string[]): string[] {
  const out = new Set(registered)
  for (const f of [...scope.flows, ...scope.provenance_flows]) {
    out.add(f.source_tenant)
    out.add(f.recipient_tenant)
  }
  out.delete('')
  return [...out]
}

/** One warning line per group of tenant ids that print alike. */
export function lookAlikeWarnings(ids: Iterable<string>, what = 'tenant ids'): string[] {
  return lookAlikeGroups(ids).map((group) => {
    const why = new Set(group.map(withoutInvisible)).size === 1 ? 'invisible characters' : new Set(group.map((id) => withoutInvisible(id).normalize('NFC'))).size === 1 ? 'Unicode normalisation' : 'look-alike characters'
    const each = group.map((id) => {
      const points = nonAsciiCodePoints(id)
      return `"${safeLine(id)}"${points.length > 0 ? ` (holds ${points.slice(0, 6).join(' ')}${points.length > 6 ? ' …' : ''})` : ''}`
    })
    return `${what} ${each.join(', ')} print alike (they differ only by ${why}): they are different tenants in every figure; check which customer each is before notifying`
  })
}
