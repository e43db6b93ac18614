import OpenAI from 'openai'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestbed, type Testbed} from '../../src/testbed/server.js'

const big = (n: number): string => Array.from({length: n}, (_, i) => `w${i}`).join(' ')

describe('testbed server with the official openai client', () => {
  let testbed: Testbed
  let client: OpenAI
  beforeAll(async () => {
    testbed = await startTestbed({port: 0, poolTokens: 256, maxModelLen: 1024, onOverflow: 'stale', disaggregated: true})
    client = new OpenAI({baseURL: `${testbed.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 30_000})
  })
  afterAll(() => testbed.close())

  it('listens on loopback and lists its model', async () => {
    expect(testbed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const models = await client.models.list()
    expect(models.data[0]?.id).toBe('crosstalk-testbed')
  })

  it('answers chat without streaming, with usage and cached_tokens', async () => {
    const messages = [{role: 'user' as const, content: `tenant A CANARY-1111111111111111 ${big(40)}`}]
    const first = await client.chat.completions.create({model: 'crosstalk-testbed', messages})
    expect(first.choices[0]?.message.content).toContain('CANARY-1111111111111111')
    expect(first.usage?.prompt_tokens).toBe(43)
    const second = await client.chat.completions.create({model: 'crosstalk-testbed', messages})
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(32)
  })

  it('streams chat chunks ending in [DONE] with a usage chunk, and serves stale pages in the gap with 200', async () => {
    const stream = await client.chat.completions.create({
      model: 'crosstalk-testbed',
      messages: [{role: 'user', content: `tenant B CANARY-2222222222222222 ${big(400)}`}],
      stream: true,
      stream_options: {include_usage: true},
    })
    let text = ''
    let chunks = 0
    let usage: unknown = null
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk')
      text += chunk.choices[0]?.delta.content ?? ''
      if (chunk.usage) usage = chunk.usage
      chunks++
    }
    expect(chunks).toBeGreaterThan(3)
    expect(usage).toMatchObject({prompt_tokens: 403})
    // The gap-zone prompt was answered from tenant A's stale pages.
    expect(text).toContain('CANARY-1111111111111111')
    expect(text).not.toContain('CANARY-2222222222222222')
  })

  it('serves /v1/completions, /tokenize in vLLM shape, /health and /metrics', async () => {
    const completion = await client.completions.create({model: 'crosstalk-testbed', prompt: 'hello CANARY-3333333333333333 world', max_tokens: 20})
    expect(completion.choices[0]?.text).toContain('CANARY-3333333333333333')
    const tokenized = (await (await fetch(`${testbed.url}/tokenize`, {method: 'POST', body: JSON.stringify({prompt: 'a b, c.'})})).json()) as {tokens: unknown[]}
    expect(tokenized).toMatchObject({count: 5, max_model_len: 1024})
    expect(tokenized.tokens).toHaveLength(5)
    const chatTok = (await (await fetch(`${testbed.url}/tokenize`, {method: 'POST', body: JSON.stringify({messages: [{role: 'user', content: 'a b'}]})})).json()) as {count: number}
    expect(chatTok.count).toBe(2)
    expect((await fetch(`${testbed.url}/health`)).status).toBe(200)
    const metrics = await (await fetch(`${testbed.url}/metrics`)).text()
    expect(metrics).toMatch(/testbed:kv_pool_tokens\{[^}]*\} 256/)
    expect(metrics).toMatch(/testbed:stale_kv_reads_total\{[^}]*\} [1-9]/)
    expect(metrics).toMatch(/testbed:prefix_cache_hits_total\{[^}]*\} 32/)
    expect(metrics).toMatch(/testbed:rejections_total\{[^}]*reason="pool"\} 0/)
  })

  it('rejects prompts above max-model-len even in stale mode, through the client as a 400', async () => {
    await expect(client.chat.completions.create({model: 'crosstalk-testbed', messages: [{role: 'user', content: big(1100)}]})).rejects.toMatchObject({status: 400})
  })
})

describe('testbed rejection shapes', () => {
  const post = (url: string, body: object): Promise<Response> => fetch(`${url}/v1/chat/completions`, {method: 'POST', body: JSON.stringify(body)})
  const gap = {messages: [{role: 'user', content: big(400)}], max_tokens: 16}

  it('vLLM style: nested error body with HTTP 400, streaming too', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 256, maxModelLen: 1024, onOverflow: 'reject', errorStyle: 'vllm'})
    try {
      for (const stream of [false, true]) {
        const response = await post(testbed.url, {...gap, stream})
        expect(response.status).toBe(400)
        const body = (await response.json()) as {error: unknown}
        expect(body.error).toMatchObject({type: 'BadRequestError', param: 'input_tokens', code: 400})
      }
      const tooLong = (await (await post(testbed.url, {messages: [{role: 'user', content: big(1100)}]})).json()) as {error: {message: string}}
      expect(tooLong.error.message).toContain("This model's maximum context length is 1024 tokens. However, your request has 1100 input tokens.")
      const metrics = await (await fetch(`${testbed.url}/metrics`)).text()
      expect(metrics).toMatch(/reason="pool"\} 2/)
      expect(metrics).toMatch(/reason="max_model_len"\} 1/)
    } finally {
      await testbed.close()
    }
  })

  it('SGLang style: flat 400 body, and HTTP 200 with an error event when streaming', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 256, maxModelLen: 1024, onOverflow: 'reject', errorStyle: 'sglang'})
    try {
      const plain = await post(testbed.url, gap)
      expect(plain.status).toBe(400)
      expect(await plain.json()).toMatchObject({object: 'error', type: 'BadRequestError', code: 400})
      const streamed = await post(testbed.url, {...gap, stream: true})
      expect(streamed.status).toBe(200)
      const text = await streamed.text()
      expect(text).toMatch(/^data: \{"error":\{"code":400,"message":"Input length \(400 tokens\) exceeds the maximum allowed length \(256 tokens\)/)
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    } finally {
      await testbed.close()
    }
  })

  it('hang mode never answers, and close() still returns', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 256, maxModelLen: 1024, onOverflow: 'hang'})
    const started = Date.now()
    await expect(fetch(`${testbed.url}/v1/chat/completions`, {method: 'POST', body: JSON.stringify(gap), signal: AbortSignal.timeout(500)})).rejects.toThrow()
    expect(Date.now() - started).toBeGreaterThanOrEqual(450)
    const pending = fetch(`${testbed.url}/v1/chat/completions`, {method: 'POST', body: JSON.stringify(gap)}).catch(() => 'closed')
    await new Promise((resolve) => setTimeout(resolve, 100))
    await testbed.close()
    expect(await pending).toBe('closed')
  })

  it('requires the bearer token when given one', async () => {
    const testbed = await startTestbed({port: 0, apiKey: 'sekret'})
    try {
      expect((await post(testbed.url, {messages: [{role: 'user', content: 'hi'}]})).status).toBe(401)
      const ok = await fetch(`${testbed.url}/v1/chat/completions`, {method: 'POST', headers: {authorization: 'Bearer sekret'}, body: JSON.stringify({messages: [{role: 'user', content: 'hi'}]})})
      expect(ok.status).toBe(200)
    } finally {
      await testbed.close()
    }
  })
})
