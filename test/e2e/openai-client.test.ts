import OpenAI, {APIError, AuthenticationError, BadRequestError, NotFoundError} from 'openai'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {startServeProcess, type ServeProcess} from '../helpers/serve-process.js'

// The official openai npm client against a real `crosstalk testbed serve` process: each case must
// raise the error class, status and message it raises against vLLM (bodies checked against vLLM's
// api_server.py handlers and create_error_response; see src/testbed/error-bodies.ts), and a 400
// must not be retried.

const words = (n: number): string => Array.from({length: n}, (_, i) => `w${i}`).join(' ')
const MODEL = 'crosstalk-testbed'
const WINDOW = 6000

/** A client that counts the HTTP requests it makes (to see retries) and never waits between them. */
function countingClient(url: string): {client: OpenAI; calls: () => number} {
  let calls = 0
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: 'unused',
    maxRetries: 2,
    // the client's own default is 10 minutes a request: a hang would hold the test run
    timeout: 30_000,
    fetch: (input, init) => {
      calls++
      return fetch(input, init)
    },
  })
  return {client, calls: () => calls}
}

async function rejection(call: Promise<unknown>): Promise<APIError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(APIError)
  return error as APIError
}

describe('testbed serve (vllm style) through the official openai npm client', () => {
  let serve: ServeProcess
  beforeAll(async () => {
    serve = await startServeProcess(['--pool-tokens', '8192', '--max-model-len', String(WINDOW), '--on-overflow', 'reject'])
  })
  afterAll(() => serve.stop())

  const chat = (body: Record<string, unknown>) => {
    const {client, calls} = countingClient(serve.url)
    return {call: client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: 'hi'}], ...body} as never), calls}
  }

  it('max_tokens: 0 is BadRequestError 400 with vLLM message and param, not retried', async () => {
    const {call, calls} = chat({max_tokens: 0})
    const error = await rejection(call)
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.status).toBe(400)
    expect(error.message).toBe('400 max_tokens must be at least 1, got 0. (parameter=max_tokens, value=0)')
    expect(error).toMatchObject({type: 'BadRequestError', param: 'max_tokens', code: 400})
    expect(calls()).toBe(1)
  })

  it.each([
    ['an empty string', ''],
    ['a number', 123],
  ])('cache_salt as %s is BadRequestError 400 (request validation, type "Bad Request")', async (_label, salt) => {
    const {call, calls} = chat({cache_salt: salt})
    const error = await rejection(call)
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.status).toBe(400)
    expect(error.message).toContain("Value error, Parameter 'cache_salt' must be a non-empty string if provided.")
    expect(error).toMatchObject({type: 'Bad Request', code: 400, param: null})
    expect(calls()).toBe(1)
  })

  it('a request without messages is BadRequestError 400 naming the missing field', async () => {
    const {client, calls} = countingClient(serve.url)
    const error = await rejection(client.chat.completions.create({model: MODEL} as never))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.message).toBe("400 [{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]")
    expect(calls()).toBe(1)
  })

  it('an unknown model is NotFoundError 404, param model', async () => {
    const {client} = countingClient(serve.url)
    const error = await rejection(client.chat.completions.create({model: 'gpt-4o', messages: [{role: 'user', content: 'hi'}]}))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.status).toBe(404)
    expect(error.message).toBe('404 The model `gpt-4o` does not exist.')
    expect(error).toMatchObject({type: 'NotFoundError', param: 'model'})
  })

  it('a prompt over the window is BadRequestError 400 with vLLM message, param input_tokens', async () => {
    const {client} = countingClient(serve.url)
    const error = await rejection(client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: words(WINDOW + 10)}]}))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.message).toBe(`400 This model's maximum context length is ${WINDOW} tokens. However, your request has ${WINDOW + 10} input tokens. Please reduce the length of the input messages.`)
    expect(error).toMatchObject({param: 'input_tokens'})
  })

  it('without max_tokens a 5,990-token prompt in a 6,000 window is served with what is left (10 tokens)', async () => {
    const {client} = countingClient(serve.url)
    const completion = await client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: words(5990)}]})
    expect(completion.usage).toMatchObject({prompt_tokens: 5990, completion_tokens: 10})
    expect(completion.choices[0]?.finish_reason).toBe('length')
  })

  it('n: 2 returns two choices, plain and streamed', async () => {
    const {client} = countingClient(serve.url)
    const completion = await client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: 'tell CANARY-1234567890abcdef'}], max_tokens: 16, n: 2})
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1])
    expect(completion.choices[1]?.message.content).toBe(completion.choices[0]?.message.content)
    const stream = await client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: 'hi there'}], max_tokens: 16, n: 2, stream: true})
    const texts = ['', '']
    for await (const chunk of stream) for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? ''
    expect(texts[0]).not.toBe('')
    expect(texts[1]).toBe(texts[0])
  })

  it('/version answers; an unknown route is 404 {"detail":"Not Found"} (NotFoundError, no message in the body)', async () => {
    expect(await (await fetch(`${serve.url}/version`)).json()).toEqual({version: '0.0.0+crosstalk.testbed'})
    const raw = await fetch(`${serve.url}/v1/nope`)
    expect(raw.status).toBe(404)
    expect(await raw.json()).toEqual({detail: 'Not Found'})
    const {client} = countingClient(serve.url)
    const error = await rejection(client.get('/nope'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error.message).toBe('404 status code (no body)')
    const wrongMethod = await fetch(`${serve.url}/v1/chat/completions`)
    expect(wrongMethod.status).toBe(405)
    expect(await wrongMethod.json()).toEqual({detail: 'Method Not Allowed'})
  })
})

describe('testbed serve --error-style sglang through the official openai npm client', () => {
  let serve: ServeProcess
  beforeAll(async () => {
    serve = await startServeProcess(['--pool-tokens', '256', '--max-model-len', '1024', '--on-overflow', 'reject', '--error-style', 'sglang'])
  })
  afterAll(() => serve.stop())

  it("an over-pool prompt is BadRequestError 400 with SGLang's flat body, which the client reads no message from", async () => {
    const {client, calls} = countingClient(serve.url)
    const error = await rejection(client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: words(400)}], max_tokens: 16}))
    expect(error).toBeInstanceOf(BadRequestError)
    expect(error.status).toBe(400)
    expect(error.message).toBe('400 status code (no body)')
    expect(calls()).toBe(1)
    const raw = await fetch(`${serve.url}/v1/chat/completions`, {method: 'POST', body: JSON.stringify({messages: [{role: 'user', content: words(400)}], max_tokens: 16})})
    expect(await raw.json()).toEqual({
      object: 'error',
      message: 'Input length (400 tokens) exceeds the maximum allowed length (256 tokens). Use a shorter input or enable --allow-auto-truncate.',
      type: 'BadRequestError',
      param: null,
      code: 400,
    })
  })

  it('streamed, the same rejection arrives as an error event in a 200 stream: APIError with the message', async () => {
    const {client} = countingClient(serve.url)
    const stream = await client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: words(400)}], max_tokens: 16, stream: true})
    const error = await rejection(
      (async () => {
        for await (const _chunk of stream) {
          /* drain */
        }
      })(),
    )
    expect(error.status).toBeUndefined()
    expect(error.message).toBe('Input length (400 tokens) exceeds the maximum allowed length (256 tokens). Use a shorter input or enable --allow-auto-truncate.')
  })

  it('a request-validation error is BadRequestError 400 with the flat body (type "Bad Request")', async () => {
    const raw = await fetch(`${serve.url}/v1/chat/completions`, {method: 'POST', body: JSON.stringify({model: MODEL, messages: [{role: 'user', content: 'x'}], cache_salt: ''})})
    expect(raw.status).toBe(400)
    expect(await raw.json()).toMatchObject({object: 'error', type: 'Bad Request', param: null, code: 400})
    const {client} = countingClient(serve.url)
    const error = await rejection(client.chat.completions.create({model: MODEL, messages: [{role: 'user', content: 'x'}], cache_salt: ''} as never))
    expect(error).toBeInstanceOf(BadRequestError)
  })
})

describe('testbed --api-key through the official openai npm client', () => {
  it('a wrong key is AuthenticationError 401 with vLLM\'s {"error":"Unauthorized"} body', async () => {
    const testbed = await startTestbed({port: 0, apiKey: 'right'})
    try {
      const client = new OpenAI({baseURL: `${testbed.url}/v1`, apiKey: 'wrong', maxRetries: 0, timeout: 30_000})
      const error = await rejection(client.models.list())
      expect(error).toBeInstanceOf(AuthenticationError)
      expect(error.message).toBe('401 "Unauthorized"')
      const ok = new OpenAI({baseURL: `${testbed.url}/v1`, apiKey: 'right', maxRetries: 0, timeout: 30_000})
      expect((await ok.models.list()).data[0]?.id).toBe(MODEL)
    } finally {
      await testbed.close()
    }
  })
})
