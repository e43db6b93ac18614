import {lookup} from 'node:dns/promises'
import {isIP} from 'node:net'
import {InputError, UsageError} from '../errors.js'
import {quoted} from '../util/sanitize.js'
import {shownTargetText} from '../util/target-url.js'

export {shownTarget, shownTargetText, WITHHELD} from '../util/target-url.js'

// Probes send deliberately pathological traffic (prompts past the pool, requests that may hang a
// scheduler). Pointing that at someone else's production API by accident is the failure we guard
// against: only loopback and private ranges unless the user says --allow-remote.

export type Resolver = (host: string) => Promise<string[]>

const defaultResolver: Resolver = async (host) => (await lookup(host, {all: true})).map((entry) => entry.address)

/** --target as a URL; a value that is no http(s) URL is a bad flag value (usage error, exit 2). */
export function parseTarget(target: string): URL {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    throw new UsageError(`--target ${quoted(shownTargetText(target))} is not a URL`, 'E_TARGET')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--target must be http(s), not ${url.protocol}`, 'E_TARGET')
  return url
}

export async function assertSafeTarget(target: string, options: {allowRemote: boolean; resolve?: Resolver}): Promise<URL> {
  const url = parseTarget(target)
  if (options.allowRemote) return url
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  if (isIP(host) !== 0) addresses = [host]
  else if (host === 'localhost' || host.endsWith('.localhost')) addresses = ['127.0.0.1']
  else {
    try {
      addresses = await (options.resolve ?? defaultResolver)(host)
    } catch {
      throw new InputError(`--target host ${host} does not resolve`, 'E_TARGET')
    }
  }
  const outside = addresses.filter((address) => !isPrivateAddress(address))
  if (addresses.length === 0 || outside.length > 0) {
    throw new InputError(
      `--target ${host} resolves outside loopback/private ranges (${outside.join(', ') || 'no address'}); pass --allow-remote if you operate it`,
      'E_REMOTE_TARGET',
    )
  }
  return url
}

/** Loopback, RFC 1918 and IPv6 unique-local addresses. Link-local is excluded (cloud metadata lives there). */
export function isPrivateAddress(address: string): boolean {
  const lower = address.toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (mapped) return isPrivateAddress(mapped[1]!)
  if (isIP(lower) === 4) {
    const [a = -1, b = -1] = lower.split('.').map(Number)
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
  }
  if (isIP(lower) === 6) return lower === '::1' || /^f[cd][0-9a-f]{2}:/.test(lower)
  return false
}
