import {closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {CliError} from '../../errors.js'
import {iterateFingerprintBlobs, iterateFingerprintColumn} from '../../store/extracts.js'
import type {CaseDb} from '../../store/open-case.js'
import {withSortCache} from '../../store/session.js'

// Reading the stored fingerprints for provenance's passes: in one pass straight from the
// table, or, when the hash space is split into several passes, once into per-part spill
// files that each pass then reads sequentially.

let scratch = new Uint32Array(4096)

/** The blob's pairs as uint32s: a view when aligned, else a copy into a reused scratch array (valid until the next call). */
export function copyFingerprints(blob: Uint8Array): Uint32Array {
  // Copy: a Buffer from SQLite need not be 4-byte aligned.
  if ((blob.byteOffset & 3) === 0) return new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength >>> 2)
  const n = blob.byteLength >>> 2
  if (scratch.length < n) scratch = new Uint32Array(Math.max(n, scratch.length * 2))
  new Uint8Array(scratch.buffer, 0, n * 4).set(blob.subarray(0, n * 4))
  return scratch.subarray(0, n)
}

/**
 * The part (pass) of a fingerprint: its h2's top 16 bits scaled to [0, passes). Integer
 * arithmetic throughout; `h2 % passes` on a uint32 above 2^31 is a floating-point
 * remainder, about three times slower, and this runs once per stored fingerprint. Exact
 * while passes < 65536, thousands of times more passes than any case needs.
 */
export function partOf(h2: number, passes: number): number {
  return ((h2 >>> 16) * passes) >>> 16
}

/** All the spill buffers together (see SpillFiles.write). */
const SPILL_BUFFER_BYTES = 4 * 1024 * 1024

/**
 * The fingerprints split by part (partOf) into temporary files of (record id, h1, h2)
 * triples, responses and prompts apart, in table order. Written in one read of the table
 * (by provenance's helper thread, through its own connection, while the main thread puts
 * the records in time order: so the files hold ids, not ranks); each pass then reads its
 * own part sequentially, ranking each id as it reads.
 */
/**
 * A new 0700 directory for provenance's scratch files in the system's temporary directory. A
 * TMPDIR that does not exist or may not be written is named with the fix, never as Node's bare
 * mkdtemp error.
 */
export function provenanceScratchDir(): string {
  const parent = tmpdir()
  try {
    return mkdtempSync(join(parent, 'crosstalk-prov-'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new CliError(`cannot create provenance's scratch folder under ${parent} (${code}): provenance needs a writable temporary folder (set TMPDIR to one, or run with --no-provenance), then run the same command again`, 'E_TMPDIR')
  }
}

export class SpillFiles {
  private readBuffer: Uint32Array | undefined

  constructor(
    readonly dir: string,
    readonly passes: number,
  ) {}

  /** A new, empty directory for the files (0700, in the system's temporary directory). */
  static create(passes: number): SpillFiles {
    return new SpillFiles(provenanceScratchDir(), passes)
  }

  private path(pass: number, kind: 0 | 1): string {
    return join(this.dir, `${pass}-${kind}.bin`)
  }

  /**
   * Writes every stored fingerprint to its part's file; `tick` is called as rows are read (the
   * helper thread's sign of life). Returns the records read.
   */
  write(db: CaseDb, tick: () => void = () => {}): number {
    const passes = this.passes
    // Triples per buffer: one buffer per part and kind, 4 MiB for all of them (a 5M-record case
    // takes about 80 passes; 96 KiB buffers each were 15 MB, measured, where 200k needs 0.6).
    const CAP = Math.max(1024, Math.min(8 * 1024, Math.floor(SPILL_BUFFER_BYTES / (12 * 2 * passes))))
    const bufs: Uint32Array[] = []
    const lens: number[] = []
    const fds: number[] = []
    let records = 0
    try {
      for (let p = 0; p < passes; p++) {
        for (const kind of [0, 1] as const) {
          fds.push(openSync(this.path(p, kind), 'w', 0o600))
          bufs.push(new Uint32Array(CAP * 3))
          lens.push(0)
        }
      }
      const flush = (k: number): void => {
        if (lens[k] === 0) return
        writeSync(fds[k]!, bufs[k]!, 0, lens[k]! * 12)
        lens[k] = 0
      }
      const spread = (id: number, blob: Buffer, kind: 0 | 1, from: number, to: number): void => {
        const fps = copyFingerprints(from === 0 && to === blob.length ? blob : blob.subarray(from, to))
        for (let i = 0; i + 1 < fps.length; i += 2) {
          const k = partOf(fps[i + 1]!, passes) * 2 + kind
          const b = bufs[k]!
          let n = lens[k]!
          b[n * 3] = id
          b[n * 3 + 1] = fps[i]!
          b[n * 3 + 2] = fps[i + 1]!
          lens[k] = ++n
          if (n === CAP) flush(k)
        }
      }
      // One sequential read of the table: SQLite's page cache would only fill with pages never read again.
      withSortCache(db, () => {
        for (const [id, responseBytes, both] of iterateFingerprintBlobs(db)) {
          spread(id, both, 0, 0, responseBytes)
          spread(id, both, 1, responseBytes, both.length)
          if ((++records & 4095) === 0) tick()
        }
      })
      for (let k = 0; k < fds.length; k++) flush(k)
    } finally {
      for (const fd of fds) closeSync(fd)
    }
    return records
  }

  /**
   * Every (rank, h1, h2) of one part and kind (0 responses, 1 prompts), in the order written:
   * the rank from `rankOfId` (-1, or an id past its end, for a record stored after the records
   * were put in time order: left to the next scan, as before).
   */
  read(pass: number, kind: 0 | 1, rankOfId: Int32Array, visit: (r: number, h1: number, h2: number) => void, tick: () => void = () => {}): void {
    const fd = openSync(this.path(pass, kind), 'r')
    try {
      // One buffer for every read through this object: one a read was 768 KB of garbage a part
      // and kind, which a thread that allocates little else collects late.
      const buf = (this.readBuffer ??= new Uint32Array(3 * 64 * 1024))
      const bytes = new Uint8Array(buf.buffer)
      for (;;) {
        const n = readSync(fd, bytes, 0, bytes.length, null)
        if (n === 0) break
        const triples = Math.floor(n / 12)
        if (triples * 12 !== n) throw new Error(`provenance spill file ${this.path(pass, kind)}: short read`)
        for (let t = 0; t < triples; t++) {
          const id = buf[t * 3]!
          const r = id < rankOfId.length ? rankOfId[id]! : -1
          if (r >= 0) visit(r, buf[t * 3 + 1]!, buf[t * 3 + 2]!)
        }
        tick()
      }
    } finally {
      closeSync(fd)
    }
  }

  remove(): void {
    rmSync(this.dir, {recursive: true, force: true})
  }
}

/** Each stored record's fingerprint pairs of one part, by rank, in table order (one pass: no spill). */
export function* readFingerprints(db: CaseDb, part: 'response' | 'prompt', maxId: number, rankOfId: Int32Array): Generator<[number, Uint32Array]> {
  for (const [id, blob] of iterateFingerprintColumn(db, part)) {
    const r = id <= maxId ? rankOfId[id]! : -1
    if (r < 0) continue // added since the records were counted
    yield [r, copyFingerprints(blob)]
  }
}
