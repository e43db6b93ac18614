import {request as httpRequest, type IncomingHttpHeaders, type IncomingMessage} from 'node:http'
import {request as httpsRequest} from 'node:https'
import {brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync} from 'node:zlib'

// One HTTP exchange that always ends, whatever the server does. Built on node:http rather than
// fetch because fetch's bounds proved unreliable: a signal made with AbortSignal.any() over
// AbortSignal.timeout() stops aborting once garbage collection has run (the composite signal
// is collected), so a silent server hung the probe for good. Here the deadline is a plain timer
// this module holds until the exchange settles, and ending an exchange destroys its socket.
//
// Bounds: one wall-clock deadline covering connect, headers and body; a cap on the bytes read
// (an endless stream is cut off, never buffered); no redirects followed (the target guard
// checked --target only, and a POST body must never travel to another host).

export type ExchangeFailureKind = 'hung' | 'error' | 'interrupted'

export class ExchangeFailure extends Error {
  constructor(
    readonly kind: ExchangeFailureKind,
    message: string,
    /** A network error code (ECONNRESET, HPE_INVALID_CONSTANT, ...) or one of ours (E_TOO_LARGE). */
    readonly code: string | null = null,
    /**
     * What the response delivered before it failed (a stream that stalled, a socket reset; not a
     * body cut at the byte cap): its status, headers and the bytes read, decoded as a whole body would
     * be. Null when no response had begun. The client received those bytes: they are searched.
     */
    readonly partial: ExchangeResponse | null = null,
  ) {
    super(message)
    this.name = 'ExchangeFailure'
  }
}

export interface ExchangeRequest {
  url: URL
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Absolute time (Date.now() ms) by which the whole exchange must be over. */
  deadline: number
  /** Bytes of response body read at most; past that the exchange fails and the socket is destroyed. */
  maxBytes: number
  /** External cancellation (Ctrl-C): ends the exchange at once. */
  signal?: AbortSignal
}

export interface ExchangeResponse {
  status: number
  headers: IncomingHttpHeaders
  body: string
  /** True when the body is a server-sent-event stream that reached `data: [DONE]` (we stop reading there). */
  sawDone: boolean
  /** Why the body's Content-Encoding could not be undone (corrupt, cut short, or a coding not known), or null; `body` is then its bytes as UTF-8. */
  undecoded?: string | null
}

// `data: [DONE]` at the start of a line ends an OpenAI stream; a server may keep the socket open after it.
const DONE = /(?:^|\n)data:\s*\[DONE\]\s*(?:\r?\n|$)/

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

export function exchange(req: ExchangeRequest): Promise<ExchangeResponse> {
  return new Promise<ExchangeResponse>((resolve, reject) => {
    const started = Date.now()
    const remaining = req.deadline - started
    if (req.signal?.aborted) return reject(new ExchangeFailure('interrupted', 'interrupted'))
    if (remaining <= 0) return reject(new ExchangeFailure('hung', 'no time left before the deadline'))

    let settled = false
    let response: IncomingMessage | null = null
    const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest
    // agent: false gives every exchange its own connection, closed when it ends: nothing lingers.
    const outgoing = send(req.url, {method: req.method, headers: {...req.headers, connection: 'close'}, agent: false})

    const finish = (error: ExchangeFailure | null, value?: ExchangeResponse): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.signal?.removeEventListener('abort', onAbort)
      // Whatever the outcome, the socket goes: a hung or endless exchange must not keep it open.
      response?.destroy()
      outgoing.destroy()
      if (error) reject(error)
      else resolve(value!)
    }
    // The bytes a response delivered before it failed (set once the response begins).
    let received: () => ExchangeResponse | null = () => null
    const timer = setTimeout(() => {
      // The message names the phase; the caller knows the budget it gave.
      finish(new ExchangeFailure('hung', response === null ? 'no response headers' : 'headers but no end to the response', null, received()))
    }, remaining)
    const onAbort = (): void => finish(new ExchangeFailure('interrupted', 'interrupted'))
    req.signal?.addEventListener('abort', onAbort, {once: true})

    outgoing.on('error', (error: NodeJS.ErrnoException) => finish(new ExchangeFailure('error', networkMessage(error), error.code ?? null, received())))
    outgoing.on('response', (res) => {
      response = res
      // An event stream by its content type, or by its first lines (some servers send text/plain,
      // and may open with an SSE comment such as `: ping`). A compressed body is judged at its end.
      const encoded = contentEncodings(res.headers['content-encoding']).length > 0
      let isStream: boolean | null = /text\/event-stream/i.test(String(res.headers['content-type'] ?? '')) || (encoded ? false : null)
      let head = ''
      // Chunks are kept as bytes and decoded once at the end; each chunk (with a short tail of
      // the one before) is looked at as it arrives, to see `data: [DONE]` (a marker split across chunks included; it is ASCII).
      const chunks: Buffer[] = []
      let tail = ''
      let bytes = 0
      const answer = (sawDone: boolean): ExchangeResponse => {
        const read = readBodyText(Buffer.concat(chunks), res.headers, req.maxBytes)
        const body = read.text
        // A compressed or UTF-16 stream could not be watched for `data: [DONE]` as it came: looked for in the body read.
        return {status: res.statusCode ?? 0, headers: res.headers, body, sawDone: sawDone || (looksLikeSse(body) === true && DONE.test(body)), undecoded: read.undecoded}
      }
      received = () => {
        if (chunks.length === 0) return null
        const partial = answer(false)
        chunks.length = 0 // read once: the bytes are not held twice
        return partial
      }
      res.on('data', (chunk: Buffer) => {
        if (settled) return
        bytes += chunk.length
        if (bytes > req.maxBytes) {
          // Not kept: decoding a body the size of the cap for every answer in flight at once would
          // break the memory bound an endless stream is held to (see the hostile-target tests).
          finish(new ExchangeFailure('error', `response body over ${req.maxBytes} bytes; stopped reading`, 'E_TOO_LARGE'))
          return
        }
        chunks.push(chunk)
        if (isStream === null) {
          head += chunk.toString('latin1')
          isStream = looksLikeSse(head.replace(/^\xef\xbb\xbf/, '')) ?? (head.length > 4096 ? false : null)
        }
        if (!isStream) return
        // The whole chunk is searched: `[DONE]` may be followed in the same chunk by a long SSE comment.
        const seen = tail + chunk.toString('latin1')
        if (DONE.test(seen)) finish(null, answer(true))
        tail = seen.slice(-32)
      })
      res.on('end', () => finish(null, answer(false)))
      res.on('aborted', () => finish(new ExchangeFailure('error', 'connection closed before the response ended', 'ECONNRESET', received())))
      res.on('error', (error: NodeJS.ErrnoException) => finish(new ExchangeFailure('error', networkMessage(error), error.code ?? null, received())))
    })
    outgoing.end(req.body)
  })
}

/** The codings a Content-Encoding header lists, in the order applied (identity left out). */
function contentEncodings(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '')
  return value.split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '' && v !== 'identity')
}

/**
 * A body as text, read as its client would: undone per Content-Encoding (gzip, deflate, br; the
 * output bounded by the byte cap), then decoded per its byte-order mark or charset (UTF-8 or
 * UTF-16), the mark dropped. A coding or charset it cannot undo leaves the bytes read as UTF-8.
 */
export function readBody(raw: Buffer, headers: IncomingHttpHeaders, maxBytes: number): string {
  return readBodyText(raw, headers, maxBytes).text
}

/** readBody, and why a Content-Encoding could not be undone (null when every coding was). */
export function readBodyText(raw: Buffer, headers: IncomingHttpHeaders, maxBytes: number): {text: string; undecoded: string | null} {
  let bytes = raw
  let undecoded: string | null = null
  for (const coding of contentEncodings(headers['content-encoding']).reverse()) {
    try {
      const options = {maxOutputLength: maxBytes}
      if (coding === 'gzip' || coding === 'x-gzip') bytes = gunzipSync(bytes, options)
      else if (coding === 'br') bytes = brotliDecompressSync(bytes, options)
      else if (coding === 'deflate') {
        // "deflate" is zlib-wrapped by the RFC; some servers send it raw.
        try {
          bytes = inflateSync(bytes, options)
        } catch {
          bytes = inflateRawSync(bytes, options)
        }
      } else {
        undecoded = `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is not one the probe reads (gzip, deflate, br)`
        break
      }
    } catch {
      undecoded = `its Content-Encoding ${JSON.stringify(coding.slice(0, 40))} could not be undone: corrupt or cut short`
      break
    }
  }
  return {text: decodeText(bytes, headers), undecoded}
}

function decodeText(bytes: Buffer, headers: IncomingHttpHeaders): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8')
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2))
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(String(headers['content-type'] ?? ''))?.[1]?.toLowerCase()
  if (charset === 'utf-16le' || charset === 'utf-16be') return new TextDecoder(charset).decode(bytes)
  if (charset === 'utf-16') return new TextDecoder('utf-16le').decode(bytes)
  return bytes.toString('utf8')
}

/**
 * Whether a body's first lines are a server-sent-event stream: its first line that is not blank
 * nor an SSE comment (`: ping`) is a field (`data:`, `event:`, `id:`, `retry:`). Null while only
 * blank or comment lines (or part of one) have been seen.
 */
export function looksLikeSse(text: string): boolean | null {
  let rest = text
  for (;;) {
    const trimmed = rest.replace(/^[\r\n\t ]+/, '')
    if (trimmed === '') return null
    if (trimmed.startsWith(':')) {
      const end = trimmed.search(/\r?\n/)
      if (end < 0) return null
      rest = trimmed.slice(end + 1)
      continue
    }
    if (/^(data|event|id|retry):/.test(trimmed)) return true
    if ('data'.startsWith(trimmed) || 'event'.startsWith(trimmed)) return null
    return false
  }
}

function networkMessage(error: NodeJS.ErrnoException): string {
  const code = error.code ?? ''
  if (code.startsWith('HPE_')) return `not an HTTP response (${code})`
  return code || error.message
}

/** Nothing is listening, or the name does not resolve: the target is not there, as opposed to misbehaving. */
export function isUnreachable(failure: ExchangeFailure): boolean {
  return failure.kind === 'error' && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'].includes(failure.code ?? '')
}
