// Counts in sentences: "1 record", "2 records", "0 records". English only; the plural is
// given where adding "s" is wrong ("1 entry", "2 entries").

/** `n` and the noun, singular for exactly one. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`
}
