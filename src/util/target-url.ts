// How a --target URL is shown, stored and audited (probe, replay, and the drafts that cite a
// replay's target).

/**
 * Query parameters known to carry no secret, shown as given. Every other parameter keeps its name
 * and loses its value: gateways take API keys in the query under many names (Azure OpenAI and
 * Google's APIs `key` / `api-key`, Azure Functions `code`, storage SAS `sig`, others `token`,
 * `access_token`, `auth`), and a name this list does not know is not taken to be harmless.
 */
const PLAIN_QUERY_PARAMETERS = new Set(['api-version', 'api_version', 'apiversion', 'version', 'model', 'deployment', 'deployment-id', 'deployment_id', 'region', 'location', 'format', 'stream', 'timeout'])

/** What a withheld value is shown as. */
export const WITHHELD = '(withheld)'

/** A raw query (`a=1&key=x`, no leading `?`) with every value not known to be plain withheld. */
function shownQuery(query: string): {text: string; withheld: number; values: string[]} {
  let withheld = 0
  const values: string[] = []
  const parts = query.split('&').map((part) => {
    if (part === '') return part
    // A part with no `=` may be a bare token (`?sk-abc123`): withheld whole unless it is a plain name.
    const eq = part.indexOf('=') < 0 ? part.length : part.indexOf('=')
    const rawName = part.slice(0, eq)
    let name: string
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '))
    } catch {
      name = rawName
    }
    if (PLAIN_QUERY_PARAMETERS.has(name.trim().toLowerCase()) || part.length === eq + 1) return part
    withheld++
    const raw = eq === part.length ? part : part.slice(eq + 1)
    values.push(raw)
    try {
      values.push(decodeURIComponent(raw.replace(/\+/g, ' ')))
    } catch {
      // Not percent-encoded text: the raw form is the one to look for.
    }
    return eq === part.length ? WITHHELD : `${rawName}=${WITHHELD}`
  })
  return {text: parts.join('&'), withheld, values}
}

/**
 * The target as it may be stored, printed or audited: without the user:password@ a URL can carry,
 * with the value of every query parameter not known to be plain withheld (an API key in the query:
 * `?api-key=...`), and without a fragment (never sent over HTTP, and an OAuth implicit flow puts a
 * token there). A secret in a case file, an audit log, a JUnit report or a draft is a secret
 * handed on. The requests still use the URL as given.
 */
export function shownTarget(url: URL): {href: string; strippedCredentials: boolean; withheldQuery: number} {
  const strippedCredentials = url.username !== '' || url.password !== ''
  const copy = new URL(url.href)
  copy.username = ''
  copy.password = ''
  copy.hash = ''
  const search = copy.search
  copy.search = ''
  const query = search.length > 1 ? shownQuery(search.slice(1)) : {text: '', withheld: 0}
  return {href: copy.href + (search.length > 1 ? `?${query.text}` : ''), strippedCredentials, withheldQuery: query.withheld}
}

/** The --target text as shown and audited (shownTarget); text that is no URL loses any user:password@ and everything after a `?` or `#`. */
export function shownTargetText(target: string): string {
  try {
    return shownTarget(new URL(target)).href
  } catch {
    // Not a URL: still no user:password@ before a host, no query value, no fragment.
    return target.replace(/\/\/[^/@\s]*@/, '//').replace(/[?#].*$/s, (rest) => (rest.length > 1 ? `${rest[0]}${WITHHELD}` : rest))
  }
}


/**
 * The secrets a --target carries (its user name and password, every query value shownTarget
 * withholds) and an API key given apart, for scrubbing text the target sends back: a server may
 * echo the key it refused, or redirect to a URL that repeats the query. Values under 4 characters
 * are left out (replacing every "1" in a message would garble it and hide nothing).
 */
export function targetSecrets(url: URL, apiKey?: string): string[] {
  const search = url.search.length > 1 ? shownQuery(url.search.slice(1)).values : []
  const user = [url.username, url.password].flatMap((v) => {
    try {
      return [v, decodeURIComponent(v)]
    } catch {
      return [v]
    }
  })
  const plain = [...search, ...user, ...(apiKey === undefined ? [] : [apiKey])].filter((v) => v.length >= 4)
  // A target may echo a secret encoded: percent-encoded (a query or a redirect), or base64 (a
  // Basic credential: the key alone, ":key", or the URL's "user:password"). Each form is withheld.
  const decoded = (v: string): string => {
    try {
      return decodeURIComponent(v)
    } catch {
      return v
    }
  }
  const base64 = (v: string): string[] => {
    const b = Buffer.from(v, 'utf8').toString('base64')
    return [b, b.replace(/=+$/, ''), Buffer.from(v, 'utf8').toString('base64url')]
  }
  const basic = [...(apiKey === undefined ? [] : [apiKey, `:${apiKey}`]), ...(url.username || url.password ? [`${decoded(url.username)}:${decoded(url.password)}`] : [])]
  const hex = (v: string): string => Buffer.from(v, 'utf8').toString('hex')
  const encoded = [...plain.map((v) => encodeURIComponent(v)), ...plain.map((v) => encodeURIComponent(decoded(v))), ...plain.map(hex), ...basic.flatMap(base64)].filter((v) => v.length >= 4)
  // Longest first, so that a secret holding another is replaced whole.
  return [...new Set([...plain, ...encoded])].sort((a, b) => b.length - a.length)
}

/**
 * `text` with every one of `secrets` replaced by WITHHELD, in any letter case (a target may echo a
 * key lower-cased, or a percent-encoding with lower-case hex), with any of its ASCII characters
 * percent-encoded (`sk%2Dkey`: encodeURIComponent leaves `-` as it is, other encoders do not), and
 * cut in pieces: a run of SECRET_PIECE characters or more of a secret (`sk-sup...ersecret-1234`,
 * a key masked in the middle) is withheld too, so what is left shows no usable part of it.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) out = out.replace(new RegExp(flexible(secret), 'gi'), () => WITHHELD)
  for (const secret of secrets) if (secret.length > SECRET_PIECE) out = withholdPieces(out, secret.toLowerCase())
  return out
}

/** The shortest run of a secret's characters withheld on its own (shorter runs, a key's `sk-` prefix, say nothing usable). */
const SECRET_PIECE = 8

/** A pattern for `secret` where each ASCII character may also be given as its %XX escape. */
function flexible(secret: string): string {
  return [...secret]
    .map((ch) => {
      const literal = ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      const code = ch.codePointAt(0)!
      return code < 0x80 ? `(?:${literal}|%${code.toString(16).padStart(2, '0')})` : literal
    })
    .join('')
}

/** `text` with every run of at least SECRET_PIECE characters that is also in `secret` (lower-cased) replaced by WITHHELD. */
function withholdPieces(text: string, secret: string): string {
  const lower = text.toLowerCase()
  let out = ''
  let i = 0
  while (i < text.length) {
    let longest = 0
    for (let j = 0; j < secret.length && longest < secret.length - j; j++) {
      let n = 0
      while (i + n < lower.length && j + n < secret.length && lower[i + n] === secret[j + n]) n++
      if (n > longest) longest = n
    }
    if (longest >= SECRET_PIECE) {
      out += WITHHELD
      i += longest
    } else {
      out += text[i]
      i++
    }
  }
  return out
}
