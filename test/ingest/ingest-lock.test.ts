import Database from 'better-sqlite3'
import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {claimIngest} from '../../src/ingest/ingest-lock.js'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

// Two ingests started together both passed the case's claim (2 of 15 tries): each read it free,
// then each wrote its own pid, and both loaded every record with the unique index down. The
// claim must be read and taken as one step. Tested by the mechanism, not by racing processes:
// another connection (another process's) tries to take the claim between this one's read and
// its write (while this one judges the pid it read), and must not slip in.

const competitor: {write: (() => void) | null} = {write: null}

/** The other connection's write, once, while this one judges the claim it read. */
function between(): void {
  const write = competitor.write
  competitor.write = null
  write?.()
}

vi.mock('../../src/util/process-alive.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/util/process-alive.js')>()
  return {
    ...real,
    processAlive: (pid: number) => {
      between()
      return real.processAlive(pid)
    },
    processEnded: (pid: number) => {
      between()
      return real.processEnded(pid)
    },
  }
})

afterEach(() => {
  competitor.write = null
})

describe('the ingest claim', () => {
  it('is read and taken under one lock: another connection cannot claim the case in between', () => {
    const path = join(tempDir(), 'c.db')
    openCase(path, {create: true}).close()
    const db = openCase(path)
    const other = new Database(path)
    other.pragma('busy_timeout = 0')
    // A killed ingest's claim: free to take.
    other.prepare('UPDATE case_settings SET ingest_pid = 999999999').run()
    const holder = spawn('sleep', ['30'])
    let competitorClaimed = false
    try {
      competitor.write = () => {
        try {
          other.prepare('UPDATE case_settings SET ingest_pid = ? WHERE id = 1').run(holder.pid)
          competitorClaimed = true
        } catch (error) {
          expect((error as {code?: string}).code).toBe('SQLITE_BUSY')
        }
      }
      let claimed = true
      try {
        claimIngest(db)
      } catch (error) {
        expect((error as Error).message).toContain('another ingest, scan or drop')
        claimed = false
      }
      // The other connection did try, between the read and the write.
      expect(competitor.write).toBeNull()
      // Exactly one of the two holds the case, and the claim stored is the one that won.
      expect(claimed !== competitorClaimed).toBe(true)
      const stored = other.prepare('SELECT ingest_pid FROM case_settings').pluck().get()
      expect(stored).toBe(claimed ? process.pid : holder.pid)
    } finally {
      holder.kill()
      other.close()
      db.close()
    }
  })
})
