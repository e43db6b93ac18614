// Request validation as vLLM's OpenAI server does it, so a client sees the same errors. vLLM
// parses the body with pydantic: a body that fails is answered by its RequestValidationError
// handler (HTTP 400, error type "Bad Request", the message a Python rendering of pydantic's
// error list). We keep pydantic's error types, locations and texts and leave out the `input`
// pydantic echoes (it would repeat the prompt into the error). Checks vLLM makes later, in the
// serving code (model name, lengths, max_tokens >= 1), are in server.ts and engine.ts.

export interface FieldError {
  type: string
  loc: Array<string | number>
  msg: string
  /** Set for errors vLLM raises as VLLMValidationError inside a validator: it becomes `param`. */
  param?: string
}

export interface Message {
  role: string
  content: string
}

export interface GenerationRequest {
  model: string | null
  /** Chat: the messages' text joined; completions: the prompt(s). */
  text: string
  stream: boolean
  includeUsage: boolean
  maxTokens: number | null
  n: number
  cacheSalt: string | null
}

export interface TokenizeRequest {
  model: string | null
  text: string
  returnTokenStrs: boolean
}

export type Validated<T> = {ok: true; value: T} | {ok: false; errors: FieldError[]}

type Body = Record<string, unknown>

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The body as pydantic sees it: a JSON object, or one error. */
export function parseBody(raw: string): Validated<Body> {
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    return {ok: false, errors: [{type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error'}]}
  }
  if (!isObject(body)) return {ok: false, errors: [{type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from'}]}
  return {ok: true, value: body}
}

/** pydantic's lax int: integers, and strings that spell one. */
function intField(body: Body, key: string, errors: FieldError[]): number | null {
  const value = body[key]
  if (value === undefined || value === null) return null
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return value
    errors.push({type: 'int_from_float', loc: ['body', key], msg: 'Input should be a valid integer, got a number with a fractional part'})
    return null
  }
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number(value)
  if (typeof value === 'string') errors.push({type: 'int_parsing', loc: ['body', key], msg: 'Input should be a valid integer, unable to parse string as an integer'})
  else errors.push({type: 'int_type', loc: ['body', key], msg: 'Input should be a valid integer'})
  return null
}

function boolField(body: Body, key: string, errors: FieldError[]): boolean | null {
  const value = body[key]
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value
  errors.push({type: 'bool_type', loc: ['body', key], msg: 'Input should be a valid boolean'})
  return null
}

function contentText(content: unknown): string | null {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return content
  if (Array.isArray(content) && content.every((part) => isObject(part) && typeof part.type === 'string')) {
    return content.map((part) => (typeof (part as Body).text === 'string' ? ((part as Body).text as string) : '')).join(' ')
  }
  return null
}

/** The checks vLLM's request models run in "before" validators (chat_completion/protocol.py, completion/protocol.py). */
function commonChecks(body: Body, errors: FieldError[]): void {
  // check_cache_salt_support: a plain ValueError, so no param.
  if (body.cache_salt !== undefined && body.cache_salt !== null && (typeof body.cache_salt !== 'string' || body.cache_salt === '')) {
    errors.push({type: 'value_error', loc: ['body'], msg: "Value error, Parameter 'cache_salt' must be a non-empty string if provided."})
  }
  // validate_stream_options: a VLLMValidationError, whose parameter becomes the body's param.
  if (pyTruthy(body.stream_options) && !pyTruthy(body.stream)) {
    errors.push({type: 'value_error', loc: ['body'], msg: 'Value error, Stream options can only be defined when `stream=True`. (parameter=stream_options)', param: 'stream_options'})
  }
}

function generationFields(body: Body, text: string, errors: FieldError[]): GenerationRequest {
  commonChecks(body, errors)
  const model = body.model === undefined || body.model === null ? null : typeof body.model === 'string' ? body.model : (errors.push({type: 'string_type', loc: ['body', 'model'], msg: 'Input should be a valid string'}), null)
  const stream = boolField(body, 'stream', errors) ?? false
  const maxCompletion = intField(body, 'max_completion_tokens', errors)
  const maxTokens = intField(body, 'max_tokens', errors)
  const n = intField(body, 'n', errors) ?? 1
  const options = body.stream_options
  const includeUsage = isObject(options) && options.include_usage === true
  return {model, text, stream, includeUsage, maxTokens: maxCompletion ?? maxTokens, n, cacheSalt: typeof body.cache_salt === 'string' ? body.cache_salt : null}
}

export function validateChat(body: Body): Validated<GenerationRequest> {
  const errors: FieldError[] = []
  let text = ''
  if (body.messages === undefined) errors.push({type: 'missing', loc: ['body', 'messages'], msg: 'Field required'})
  else if (!Array.isArray(body.messages)) errors.push({type: 'list_type', loc: ['body', 'messages'], msg: 'Input should be a valid list'})
  else {
    const parts: string[] = []
    body.messages.forEach((message, i) => {
      if (!isObject(message)) return void errors.push({type: 'model_attributes_type', loc: ['body', 'messages', i], msg: 'Input should be a valid dictionary or object to extract fields from'})
      if (typeof message.role !== 'string') return void errors.push({type: 'missing', loc: ['body', 'messages', i, 'role'], msg: 'Field required'})
      const content = contentText(message.content)
      if (content === null) return void errors.push({type: 'string_type', loc: ['body', 'messages', i, 'content'], msg: 'Input should be a valid string'})
      parts.push(content)
    })
    text = parts.join('\n')
  }
  const value = generationFields(body, text, errors)
  return errors.length > 0 ? {ok: false, errors} : {ok: true, value}
}

export function validateCompletion(body: Body): Validated<GenerationRequest> {
  const errors: FieldError[] = []
  let text = ''
  const prompt = body.prompt
  if (prompt === undefined) errors.push({type: 'missing', loc: ['body', 'prompt'], msg: 'Field required'})
  else if (typeof prompt === 'string') text = prompt
  else if (Array.isArray(prompt) && prompt.every((p) => typeof p === 'string')) text = prompt.join('\n')
  else errors.push({type: 'string_type', loc: ['body', 'prompt'], msg: 'Input should be a valid string'})
  const value = generationFields(body, text, errors)
  return errors.length > 0 ? {ok: false, errors} : {ok: true, value}
}

export function validateTokenize(body: Body): Validated<TokenizeRequest> {
  const errors: FieldError[] = []
  const model = typeof body.model === 'string' ? body.model : null
  const returnTokenStrs = boolField(body, 'return_token_strs', errors) ?? false
  let text = ''
  if (typeof body.prompt === 'string') text = body.prompt
  else if (Array.isArray(body.messages)) {
    const parts = body.messages.map((m) => (isObject(m) ? contentText(m.content) : null))
    if (parts.some((p) => p === null)) errors.push({type: 'string_type', loc: ['body', 'messages'], msg: 'Input should be a valid list of messages'})
    text = parts.filter((p): p is string => p !== null).join('\n')
  } else errors.push({type: 'missing', loc: ['body', 'prompt'], msg: 'Field required'})
  return errors.length > 0 ? {ok: false, errors} : {ok: true, value: {model, text, returnTokenStrs}}
}

/** Python's truth value of a JSON value (vLLM's validators test `data.get(...)` that way: `{}` is false). */
function pyTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0
  if (isObject(value)) return Object.keys(value).length > 0
  return Boolean(value)
}

/** pydantic's error list as Python prints it: what vLLM's handler puts in `message`. */
export function pydanticMessage(errors: readonly FieldError[]): string {
  const item = (e: FieldError): string => `{'type': ${pyStr(e.type)}, 'loc': (${e.loc.map((l) => (typeof l === 'number' ? String(l) : pyStr(l))).join(', ')}${e.loc.length === 1 ? ',' : ''}), 'msg': ${pyStr(e.msg)}}`
  return `[${errors.map(item).join(', ')}]`
}

function pyStr(text: string): string {
  if (text.includes("'") && !text.includes('"')) return `"${text.replace(/\\/g, '\\\\')}"`
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}
