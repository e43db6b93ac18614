// Counts in sentences: "1 record", "2 records", "0 records"; in French "0 fichier", "1 fichier",
// "2 fichiers" (French takes the singular for zero and one). The plural is given where adding
// "s" is wrong ("1 entry", "2 entries"; "1 journal", "2 journaux").

/** `n` and the noun, singular for exactly one (English). */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`
}

/** `n` and the noun by the French rule: singular for zero and one. */
export function compte(n: number, singulier: string, pluriel = `${singulier}s`): string {
  return `${n} ${frSingular(n) ? singulier : pluriel}`
}

/** Whether French agrees with `n` in the singular (zero and one; "1,5" too, which counts never are). */
export function frSingular(n: number): boolean {
  return Math.abs(n) < 2
}
