// How far one typed word is from another, for "did you mean": commands and flags (src/cli/suggest.ts),
// and ids a case holds, such as tenant ids (src/scope/tenant-view.ts, src/notify/notifications.ts),
// which sit below cli/ in the layers and so take it from here.

/**
 * Optimal string alignment distance: Levenshtein plus the swap of two adjacent characters as
 * one edit, the commonest typing slip ("scpoe" is one edit from "scope", not two).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({length: a.length + 1}, (_, i) => Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The candidate closest to `typed` where it is close enough to be a plausible typo (at most one
 * edit in three characters, at least one; letter case ignored), else null. Ties go to the first
 * in sorted order, so the answer does not depend on the order the candidates came in.
 */
export function closestName(typed: string, candidates: Iterable<string>): string | null {
  const want = typed.toLowerCase()
  let best: {name: string; distance: number} | null = null
  for (const name of [...new Set(candidates)].sort()) {
    if (name === typed) continue
    const limit = Math.max(1, Math.floor(name.length / 3))
    // Lengths further apart than the limit cannot be within it: skipped without the table.
    if (Math.abs(name.length - typed.length) > limit) continue
    const distance = editDistance(want, name.toLowerCase())
    if (distance > limit) continue
    if (!best || distance < best.distance) best = {name, distance}
  }
  return best?.name ?? null
}
