// What verify found wrong, each naming the item and what differs. A tampered case can hold
// millions of altered rows: each check lists its first few problems and counts the rest, so
// the report stays readable and the count stays exact.

export type VerifyProblemKind =
  | 'audit' // the hash chain, its triggers, or the anchor the responder noted
  | 'unaudited' // a fact of the case that no audit entry records
  | 'block' // an evidence block against its CRC
  | 'content' // a file's reassembled stream against its content hash
  | 'original' // an original file on disk against its ingest hash
  | 'incomplete' // an ingest that never finished
  | 'line' // a line of the evidence that nothing in the case accounts for, or a row that points at no line
  | 'record' // a record's stored fields against its line re-parsed
  | 'duplicate' // a duplicate line against its line and its first occurrence
  | 'bad_line' // a quarantined line against its bytes and its reason
  | 'counts' // a file's stored counts against what its lines hold
  | 'extract' // detection extracts (tokens, hits, fingerprints, personal-data values) against the text
  | 'sighting' // sightings against their re-derivation
  | 'finding' // provenance and personal-data findings against their sources or re-derivation
  | 'registry' // the canary registry against its registry files
  | 'incident' // the incident's awareness time against its opening and amendments
  | 'recorded' // an incident fact, amendment, notification or risk decision against the audit entry that recorded it
  | 'settings' // the case's recorded settings (pool size) against the scans that set them
  | 'database' // the case file itself, as SQLite's own check finds it (quick_check; integrity_check with --deep)

export interface VerifyProblem {
  kind: VerifyProblemKind
  where: string
  detail: string
}

/** Problems listed per check (kind and file); the rest are counted. */
const LISTED_PER_GROUP = 10

export class Problems {
  readonly listed: VerifyProblem[] = []
  total = 0
  private readonly perGroup = new Map<string, number>()

  add(kind: VerifyProblemKind, where: string, detail: string, group = ''): void {
    this.total++
    const key = `${kind}\u0000${group}`
    const n = (this.perGroup.get(key) ?? 0) + 1
    this.perGroup.set(key, n)
    if (n <= LISTED_PER_GROUP) this.listed.push({kind, where, detail})
  }
}

/** A value from the case or a log, quoted and cut for a one-line message (the renderer escapes controls). */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value !== 'string') return String(value)
  const chars = [...value]
  return JSON.stringify(chars.length <= 80 ? value : `${chars.slice(0, 79).join('')}…`)
}

/** a < b in SQLite's BINARY collation (UTF-8 byte order), which JavaScript's UTF-16 `<` does not always follow. */
export function sqliteLess(a: string, b: string): boolean {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')) < 0
}

/** An id in a location: as is when it is a plain token, quoted otherwise. */
export function ident(value: string): string {
  return /^[\w.:@/+-]{1,80}$/.test(value) ? value : shown(value)
}

/** Problems found elsewhere (a worker's), merged in: their listing was already capped there. */
export function mergeProblems(into: Problems, listed: readonly VerifyProblem[], total: number): void {
  into.listed.push(...listed)
  into.total += total
}
