import type {CaseDb} from '../store/open-case.js'
import {registryLookups} from '../store/canaries.js'
import {toMarker, withAutomaton, type MarkerRegistry, type RegisteredMarker} from '../extract/markers.js'

/**
 * The case's registry, looked up in SQLite per token found (primary-key point and range
 * lookups), so that a scan never loads the whole registry: 100,000 markers cost what 10
 * do. Unconventional markers come from a partial index that holds only them. The last
 * CACHE_KEYS keys looked up are kept (a marker seen again, as a leaked one is, costs no lookup);
 * the cache starts over when full, so that it stays a few MB at any size (kept to 100,000 keys
 * it grew to about 40 MB over a 5M-record incident, on the thread that holds the verdict).
 */
const CACHE_KEYS = 8192

export function sqliteRegistry(db: CaseDb): MarkerRegistry {
  const lookups = registryLookups(db)
  const cache = new Map<string, RegisteredMarker | undefined>()
  const unconventional = lookups.unconventional().map(toMarker)
  return withAutomaton(
    {
      exact: (key: string) => {
        if (cache.has(key)) return cache.get(key)
        const row = lookups.exact(key)
        const hit = row ? toMarker(row) : undefined
        if (cache.size >= CACHE_KEYS) cache.clear()
        cache.set(key, hit)
        return hit
      },
      extending: (key: string, limit: number) => lookups.range(key, limit).filter((r) => r.marker_key.startsWith(key)).map(toMarker),
    },
    unconventional,
  )
}
