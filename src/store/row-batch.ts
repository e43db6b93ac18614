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
 *
 * A statement of several rows that may abort (a NOT NULL, CHECK or key conflict under the default
 * ABORT, or REPLACE over a NOT NULL column without a default) makes SQLite keep a statement journal:
 * the prior content of every existing page it changes, so that the statement alone can be undone.
 * Past 64 KiB it is a temporary file, and with 32 KiB pages nearly every batch went there: 1 GB of
 * writes to temporary files for a 200k-record ingest (its whole case is 0.85 GB). Ingest's batches
 * therefore write `OR FAIL` or `OR IGNORE`, which need none: a failing row ends the statement with
 * the rows before it kept, and the error ends the transaction, which is rolled back whole
 * (test/store/row-batch.test.ts checks each batch's statement with EXPLAIN).
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

  /** The statement of `size` rows, as prepared (for tests: abortingConstraints). */
  get sql(): string {
    return this.many.source
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

/**
 * The constraint checks of `sql` that abort the statement (ABORT, the default), by opcode: a
 * statement of several rows with any of these keeps a statement journal (see RowBatch).
 */
export function abortingConstraints(db: CaseDb, sql: string): string[] {
  // OE_Abort in SQLite's program: the P2 of a Halt or HaltIfNull raised by a constraint (P1 not 0).
  const OE_ABORT = 2
  // Its program only: every parameter (`?` in these statements) bound to null.
  const params = new Array<null>(sql.split('?').length - 1).fill(null)
  const program = db.prepare(`EXPLAIN ${sql}`).all(...params) as Array<{opcode: string; p1: number; p2: number}>
  return program.filter((op) => (op.opcode === 'Halt' || op.opcode === 'HaltIfNull') && op.p1 !== 0 && op.p2 === OE_ABORT).map((op) => `${op.opcode} ${op.p1}`)
}
