import type {FileHandle} from 'node:fs/promises'
import {open} from 'node:fs/promises'
import {createGunzip, type Gunzip} from 'node:zlib'

// Decompresses a .gz log and, when the stream is damaged (truncated, a corrupt block, a bad
// trailer, garbage appended), keeps every byte that could be decompressed before the damage,
// exactly as `gzip -dc` writes them, and says where it stopped.
//
// Node's zlib stream discards the output of the write during which inflate fails: fed the
// file in 1 MiB reads it lost up to 1 MiB of good lines silently (a valid file with "GARBAGE"
// appended kept none of its 50 lines). Here the file is fed in small pieces, one at a time,
// and when a piece fails the stream is rebuilt: the bytes before that piece are decompressed
// again (same input, same output, already delivered, so discarded), then the failing piece is
// fed one byte at a time, so that everything inflate produces before it detects the damage is
// delivered. The second pass happens only on damage. The compressed bytes are all read (and
// handed to onFileChunk for the file's hash) either way.

const PIECE = 64 << 10
const OUT_CHUNK = 256 << 10

export class DamagedStreamError extends Error {
  constructor(
    message: string,
    readonly detail: {reason: string; truncated: boolean; compressedOffset: number; compressedSize: number; decompressedBytes: number},
  ) {
    super(message)
  }
}

interface Fed {
  out: Buffer[]
  error?: Error
}

/** Writes one piece and collects what it produces, or the error it raised. */
function feed(g: Gunzip, piece: Buffer | null): Promise<Fed> {
  return new Promise((resolve) => {
    const out: Buffer[] = []
    let done = false
    const finish = (error?: Error): void => {
      if (done) return
      done = true
      g.off('data', onData)
      g.off('error', onError)
      g.off('end', onEnd)
      resolve(error ? {out, error} : {out})
    }
    const onData = (c: Buffer): void => {
      out.push(c)
    }
    const onError = (e: Error): void => finish(e)
    const onEnd = (): void => finish()
    g.on('data', onData)
    g.on('error', onError)
    if (piece === null) {
      // A stream that ended by itself (see gunzipFile) emits no second 'end'.
      if (g.readableEnded) {
        finish()
        return
      }
      g.on('end', onEnd)
      g.end()
    } else {
      g.write(piece, (error) => {
        // After an error the stream is destroyed and this callback repeats it: onError decides.
        if (!error) setImmediate(() => finish())
      })
    }
  })
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const {bytesRead} = await handle.read(buf, got, length - got, position + got)
    if (bytesRead === 0) break
    got += bytesRead
  }
  return got === length ? buf : buf.subarray(0, got)
}

/**
 * The decompressed bytes of the first `size` bytes of a gzip file, in order. On damage, yields
 * what could be recovered and then throws DamagedStreamError. `onFileChunk` sees every
 * compressed byte in order (also those after the damage).
 */
export async function* gunzipFile(path: string, size: number, onFileChunk?: (chunk: Buffer) => void): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r')
  try {
    const g = createGunzip({chunkSize: OUT_CHUNK})
    let emitted = 0
    let pos = 0
    let failure: {error: Error; pieceStart: number; pieceLength: number} | null = null
    // Where zlib stopped taking input before the file's end (bytesWritten counts what it consumed).
    let ended: number | null = null
    while (pos < size) {
      const piece = await readAt(handle, pos, Math.min(PIECE, size - pos))
      if (piece.length === 0) break
      onFileChunk?.(piece)
      const fed = await feed(g, piece)
      for (const c of fed.out) {
        emitted += c.length
        yield c
      }
      if (fed.error) {
        failure = {error: fed.error, pieceStart: pos, pieceLength: piece.length}
        pos += piece.length
        break
      }
      pos += piece.length
      // Node's zlib ends a gzip stream at a NUL byte after a member (as gzip -d stops at what is
      // not a member) and takes no more input: fed more, it never answered, and the read hung.
      if (g.bytesWritten < pos) {
        ended = g.bytesWritten
        break
      }
    }
    if (ended !== null) {
      const stoppedAt = ended
      // The rest is read for the hash; NUL bytes alone (padding) hold nothing, anything else was not decompressed.
      let other = -1
      for (let at = stoppedAt; at < size; ) {
        const rest = await readAt(handle, at, Math.min(PIECE, size - at))
        if (rest.length === 0) break
        if (at + rest.length > pos) onFileChunk?.(at >= pos ? rest : rest.subarray(pos - at))
        if (other === -1) {
          const k = rest.findIndex((b) => b !== 0)
          if (k !== -1) other = at + k
        }
        at += rest.length
      }
      g.destroy()
      if (other === -1) return
      throw new DamagedStreamError(
        `gzip stream ends at compressed byte ${stoppedAt} of ${size} (a NUL byte after a gzip member), and byte ${other} after it is not padding: the ${size - stoppedAt} compressed bytes from there on were not decompressed (gzip -d ignores them as trailing garbage; ${emitted} decompressed bytes read before it)`,
        {reason: 'data after the end of the gzip stream', truncated: false, compressedOffset: stoppedAt, compressedSize: size, decompressedBytes: emitted},
      )
    }
    if (!failure) {
      const end = await feed(g, null)
      for (const c of end.out) {
        emitted += c.length
        yield c
      }
      if (!end.error) return
      throw new DamagedStreamError(`gzip stream is truncated: it ends inside compressed data after ${emitted} decompressed bytes (${end.error.message})`, {
        reason: end.error.message, truncated: true, compressedOffset: pos, compressedSize: size, decompressedBytes: emitted,
      })
    }
    // The rest of the file is still read for its hash.
    for (let at = pos; at < size; ) {
      const rest = await readAt(handle, at, Math.min(PIECE, size - at))
      if (rest.length === 0) break
      onFileChunk?.(rest)
      at += rest.length
    }
    // Recovery: the same stream again up to the failing piece, then that piece byte by byte.
    const g2 = createGunzip({chunkSize: OUT_CHUNK})
    let seen = 0
    const fresh = (c: Buffer): Buffer | null => {
      const from = Math.max(0, emitted - seen)
      seen += c.length
      return from >= c.length ? null : c.subarray(from)
    }
    let stoppedAt = failure.pieceStart
    let replayFailed = false
    for (let at = 0; at < failure.pieceStart && !replayFailed; ) {
      const piece = await readAt(handle, at, Math.min(PIECE, failure.pieceStart - at))
      const fed = await feed(g2, piece)
      for (const c of fed.out) {
        const f = fresh(c)
        if (f) {
          emitted += f.length
          yield f
        }
      }
      if (fed.error) replayFailed = true
      at += piece.length
    }
    if (!replayFailed) {
      const piece = await readAt(handle, failure.pieceStart, failure.pieceLength)
      for (let k = 0; k < piece.length; k++) {
        const fed = await feed(g2, piece.subarray(k, k + 1))
        for (const c of fed.out) {
          const f = fresh(c)
          if (f) {
            emitted += f.length
            yield f
          }
        }
        if (fed.error) {
          stoppedAt = failure.pieceStart + k
          break
        }
      }
    }
    const reason = failure.error.message
    throw new DamagedStreamError(
      `gzip stream is corrupt (${reason}) at compressed byte ${stoppedAt} of ${size}: the ${size - stoppedAt} compressed bytes from there on could not be decompressed (${emitted} decompressed bytes read before it)`,
      {reason, truncated: false, compressedOffset: stoppedAt, compressedSize: size, decompressedBytes: emitted},
    )
  } finally {
    await handle.close()
  }
}
