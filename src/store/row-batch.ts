import type {Statement} from 'better-sqlite3'
import type {CaseDb} from './open-case.js'

/**
 * Rows of one statement bound and run several at a time: better-sqlite3 costs about 2.5 µs a run
 * besides the binding, and ingest writes a personal-data row and a fingerprint row for nearly
 * every record (16 rows a statement: personal-data rows 534 -> 270 ms and fingerprint rows 813 ->
 * 603 ms for a 200k-record incident's, measured alone). The same rows in the same order, so the
 * same table, `OR IGNORE` and `OR REPLACE` included. Rows are held until `size` are ready:
 * `flush` writes the rest, and must run before anything reads the table and before the
 * transaction ends.
 */
export class RowBatch {
  private readonly many: Statement
  private readonly one: Statement
  /** The next rows' values, `width` a row; callers write a row's from `at` and then call `added`. */
  readonly args: unknown[]
  private rows = 0

  constructor(db: CaseDb, insert: string, private readonly width: number, private readonly size = 16) {
    const row = `(${Array(width).fill('?').join(', ')})`
    this.many = db.prepare(`${insert} VALUES ${Array(size).fill(row).join(', ')}`)
    this.one = db.prepare(`${insert} VALUES ${row}`)
    this.args = new Array(width * size)
  }

  /** Rows held, not yet run. */
  get held(): number {
    return this.rows
  }

  /** Where the next row's first value goes in `args`. */
  get at(): number {
    return this.rows * this.width
  }

  added(): void {
    if (++this.rows < this.size) return
    this.many.run(this.args)
    this.rows = 0
    // The bound values (views of a unit's fingerprints among them) are not held past their run.
    this.args.fill(null)
  }

  flush(): void {
    for (let r = 0; r < this.rows; r++) this.one.run(this.args.slice(r * this.width, (r + 1) * this.width))
    this.discard()
  }

  /** Drops the rows held (their transaction failed: they must not reach a later one). */
  discard(): void {
    this.rows = 0
    this.args.fill(null)
  }
}
