import {describe, expect, it} from 'vitest'
import {decodeResponse} from '../../src/extract/decode.js'

// A chat answer is read closed-world: every member of a body, chunk, choice, message, delta, tool
// call and error object is read as text, known to carry none, or named in `unread` (the record is
// then not read whole and every gate fails closed). Each shape below is one a producer writes.

const M = 'CANARY-cccc3333dddd4444'
const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('')
const chat = (message: Record<string, unknown>, choice: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{index: 0, finish_reason: 'stop', message: {role: 'assistant', ...message}, ...choice}], ...top,
})
const chunk = (delta: Record<string, unknown>, choice: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
  id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{index: 0, delta, ...choice}], ...top,
})

describe('stream chunks of a shape not read', () => {
  it('names a chunk without choices or a type in unread, with or without an error event after it', () => {
    // Gemini, Bedrock ConverseStream, Cohere and Assistants streams are read (decode-provider-streams.test.ts); a chunk of a shape none of them has is not.
    const future = (t: string) => ({future_answer: {text: t}})
    const error = {error: {code: 500, message: 'An internal error has occurred.', status: 'INTERNAL'}}
    const withError = decodeResponse(sse(future('Here: '), future(M), error))
    expect(withError).toMatchObject({isError: true, errorMessage: 'An internal error has occurred.'})
    expect(withError.unread).toContain('stream chunk member "future_answer"')
    // Beside a chat chunk, without an error.
    expect(decodeResponse(sse(chunk({content: 'ok'}), future(M)) + 'data: [DONE]\n\n')).toMatchObject({text: 'ok', unread: ['stream chunk member "future_answer"']})
    const tgi = sse({index: 1, token: {id: 1, text: M, logprob: -0.1, special: false}, generated_text: null, details: null}, {error: 'CUDA out of memory', error_type: 'generation'})
    expect(decodeResponse(tgi)).toMatchObject({isError: true, unread: ['stream chunk member "token"']})
  })
  it('reads usage-only, empty (keep-alive) and error chunks without naming anything unread', () => {
    const usage = {id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: {prompt_tokens: 3, completion_tokens: 1}}
    const noChoices = {id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', system_fingerprint: 'fp', usage: {prompt_tokens: 3, completion_tokens: 1}}
    const r = decodeResponse(sse(chunk({role: 'assistant', content: 'hi'}), {}, usage, noChoices) + 'data: [DONE]\n\n')
    expect(r).toMatchObject({text: 'hi', unread: [], promptTokens: 3, completionTokens: 1})
    expect(decodeResponse(sse(chunk({content: 'a'}), {error: {message: 'boom', type: 'server_error', param: null, code: 'x'}})).unread).toEqual([])
  })
  it('reads a chunk choice giving a message instead of a delta', () => {
    const r = decodeResponse(sse(chunk({role: 'assistant', content: 'Hello'}), {object: 'chat.completion.chunk', choices: [{index: 0, message: {role: 'assistant', content: ` ${M}`}, finish_reason: 'stop'}]}) + 'data: [DONE]\n\n')
    expect(r).toMatchObject({text: `Hello ${M}`, unread: []})
  })
})

describe('chat answer members read', () => {
  it('reads a custom tool call\'s input, in a message and streamed', () => {
    const call = {id: 'call_1', type: 'custom', custom: {name: 'code_exec', input: `print('${M}')`}}
    expect(decodeResponse(chat({content: 'Running.', tool_calls: [call]}))).toMatchObject({text: `Running.\nprint('${M}')`, unread: []})
    const stream = sse(chunk({role: 'assistant', content: 'Running.'}), chunk({tool_calls: [{index: 0, ...call, custom: {name: 'code_exec', input: "print('CANARY-cccc"}}]}), chunk({tool_calls: [{index: 0, custom: {input: "3333dddd4444')"}}]}), chunk({}, {finish_reason: 'tool_calls'}))
    expect(decodeResponse(stream + 'data: [DONE]\n\n')).toMatchObject({text: `Running.\nprint('${M}')`, unread: []})
  })
  it('reads OpenRouter reasoning details (text and summary; an encrypted one holds none), once where they repeat the reasoning', () => {
    const details = [{type: 'reasoning.summary', summary: `About ${M}`, format: 'openai-responses-v1', index: 0}, {type: 'reasoning.encrypted', data: 'gAAAA', format: 'openai-responses-v1', index: 1}]
    expect(decodeResponse(chat({content: 'The answer is 4.', reasoning: null, reasoning_details: details}, {}, {provider: 'OpenAI'}))).toMatchObject({text: `The answer is 4.\nAbout ${M}`, unread: []})
    expect(decodeResponse(chat({content: 'x', reasoning: 'think', reasoning_details: [{type: 'reasoning.text', text: 'think'}]})).text).toBe('think\nx')
    expect(decodeResponse(chat({content: 'x', reasoning_details: [{type: 'reasoning.new', body: M}]})).unread).toEqual(['reasoning detail "reasoning.new"'])
    const stream = sse(chunk({role: 'assistant', content: '', reasoning_details: [{type: 'reasoning.text', text: 'about CANARY-cccc', format: 'anthropic-claude-v1', index: 0}]}), chunk({reasoning_details: [{type: 'reasoning.text', text: '3333dddd4444', index: 0}]}), chunk({content: 'The answer is 4.'}))
    expect(decodeResponse(stream + 'data: [DONE]\n\n')).toMatchObject({text: `The answer is 4.\nabout ${M}`, unread: []})
  })
  it('reads Azure On Your Data context (retrieved documents, intent) and Groq executed tools', () => {
    const context = {citations: [{content: `Customer record ${M}`, title: 'file.pdf', url: null, filepath: 'file.pdf', chunk_id: '0'}], intent: '["customer record"]'}
    const azure = chat({content: 'See doc [doc1].', end_turn: true, context}, {content_filter_results: {hate: {filtered: false, severity: 'safe'}}}, {prompt_filter_results: [{prompt_index: 0, content_filter_results: {}}]})
    const r = decodeResponse(azure)
    expect(r.unread).toEqual([])
    expect(r.text.split('\n')).toEqual(['See doc [doc1].', `Customer record ${M}`, 'file.pdf', 'file.pdf', '0', '["customer record"]'])
    expect(decodeResponse(sse(chunk({role: 'assistant', context: {citations: [{content: M}]}}), chunk({content: 'See [doc1].'})))).toMatchObject({text: `See [doc1].\n${M}`, unread: []})
    const groq = chat({content: 'Result below.', reasoning: 'searching', executed_tools: [{index: 0, type: 'python', arguments: '{"code":"print(1)"}', output: `record ${M}`}]}, {}, {x_groq: {id: 'req_1'}, usage_breakdown: {models: [{model: 'llama', usage: {}}]}})
    expect(decodeResponse(groq)).toMatchObject({text: `searching\nResult below.\n{"code":"print(1)"}\nrecord ${M}`, unread: []})
  })
  it('reads a search model\'s citations and search results (Perplexity, xAI), once in a stream that repeats them', () => {
    const sources = {citations: ['https://example.org/a'], search_results: [{title: 'A', url: 'https://example.org/a', date: '2026-01-01', snippet: `record ${M}`}]}
    expect(decodeResponse(chat({content: 'See [1].'}, {}, sources))).toMatchObject({text: `See [1].\nhttps://example.org/a\nA\nhttps://example.org/a\n2026-01-01\nrecord ${M}`, unread: []})
    const r = decodeResponse(sse(chunk({role: 'assistant', content: 'See '}, {}, sources), chunk({content: '[1].'}, {}, sources)) + 'data: [DONE]\n\n')
    expect(r).toMatchObject({text: `See [1].\nhttps://example.org/a\nA\n2026-01-01\nrecord ${M}`, unread: []})
  })
  it('searches every string of an error object besides its type, code, status and parameter name', () => {
    const google = {error: {code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT', details: [{'@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{field: 'contents[0]', description: `bad value ${M}`}]}]}}
    const r = decodeResponse(google)
    expect(r).toMatchObject({isError: true, errorMessage: 'Request contains an invalid argument.', unread: []})
    expect(r.text).toContain(M)
    expect(decodeResponse(sse(chunk({content: 'a'}), google)).text).toContain(M)
    // OpenAI's error: its message alone.
    expect(decodeResponse({error: {message: 'Rate limit', type: 'requests', param: 'input_tokens', code: 'rate_limit_exceeded'}})).toMatchObject({text: 'Rate limit', unread: []})
  })
})

describe('chat answer members not known', () => {
  it('names a member of a body, choice, message, delta or tool call that holds a string it does not read', () => {
    expect(decodeResponse(chat({content: 'x', new_field: M})).unread).toEqual(['chat message member "new_field"'])
    expect(decodeResponse(chat({content: 'x'}, {extra: {note: M}})).unread).toEqual(['chat choice member "extra"'])
    expect(decodeResponse(chat({content: 'x'}, {}, {related: [M]})).unread).toEqual(['chat body member "related"'])
    expect(decodeResponse(chat({content: 'x', tool_calls: [{id: 'c', type: 'web', web: {query: M}}]})).unread).toEqual(['chat tool call member "web"'])
    expect(decodeResponse(sse(chunk({content: 'x', fresh: M}))).unread).toEqual(['chat delta member "fresh"'])
    expect(decodeResponse(sse(chunk({content: 'x'}, {extra: M}))).unread).toEqual(['chat stream choice member "extra"'])
    expect(decodeResponse({object: 'error', message: 'bad', type: 'BadRequestError', param: null, code: 400, hint: M}).unread).toEqual(['error body member "hint"'])
    // A member holding no string (a number, a flag, null, an id) drops no text.
    expect(decodeResponse(chat({content: 'x', extra_flag: true, count: 3}, {seed: null, extra_ids: [1, 2]}, {x_other: {id: 'a'}})).unread).toEqual([])
  })
  it('names nothing in the answers that OpenAI, Azure, vLLM, SGLang, OpenRouter, Mistral, DeepSeek, Together and Groq write', () => {
    const logprobs = {content: [{token: 'x', logprob: -0.1, bytes: [120], top_logprobs: [{token: 'y', logprob: -2, bytes: [121]}]}], refusal: null}
    const bodies = [
      // OpenAI (service tier, fingerprint, usage details, empty annotations, null refusal, logprobs).
      chat({content: 'x', refusal: null, annotations: []}, {logprobs}, {system_fingerprint: 'fp_1', service_tier: 'default', usage: {prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, prompt_tokens_details: {cached_tokens: 0, audio_tokens: 0}, completion_tokens_details: {reasoning_tokens: 0}}}),
      // vLLM (stop reason, token ids, prompt logprobs, KV transfer), DeepSeek and vLLM reasoning.
      chat({content: 'x', reasoning_content: 'r', tool_calls: []}, {stop_reason: '</s>', token_ids: [1, 2]}, {prompt_logprobs: null, prompt_token_ids: null, kv_transfer_params: null}),
      // SGLang (the stop matched, weight version), OpenRouter (provider, native finish reason), Mistral.
      chat({content: 'x'}, {matched_stop: 2}, {metadata: {weight_version: 'default'}}),
      chat({content: 'x', reasoning: null, refusal: null}, {native_finish_reason: 'stop', logprobs: null}, {provider: 'Together'}),
      chat({content: 'x', tool_calls: [{id: 'a1', type: 'function', index: 0, function: {name: 'f', arguments: '{}'}}], prefix: false}),
      // OpenRouter's image model answer (the image's data URL is no text).
      chat({content: 'Here it is.', images: [{type: 'image_url', image_url: {url: 'data:image/png;base64,iVBOR'}}]}),
    ]
    for (const b of bodies) expect(decodeResponse(b).unread, JSON.stringify(b)).toEqual([])
    const streams = [
      // OpenAI with obfuscation padding and a usage chunk; Azure's filter annotation chunks.
      sse(chunk({role: 'assistant', content: '', refusal: null}, {logprobs: null, finish_reason: null}, {obfuscation: 'aB3', system_fingerprint: 'fp', service_tier: 'default'}), {id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: {prompt_tokens: 1}, obfuscation: 'x'}),
      sse({id: 'c', object: 'chat.completion.chunk', created: 0, model: '', choices: [], prompt_annotations: [{prompt_index: 0, content_filter_results: {hate: {filtered: false, severity: 'safe'}}}]}, chunk({content: 'x'})),
      sse({id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{prompt_index: 0, content_filter_results: {hate: {filtered: false, severity: 'safe'}}}]}, chunk({content: 'x'}, {content_filter_results: {hate: {filtered: false, severity: 'safe'}}}), chunk({}, {finish_reason: 'stop', content_filter_offsets: {check_offset: 0, start_offset: 0, end_offset: 1}})),
      // Together: a choice's text beside its delta, the same text.
      sse(chunk({token_id: 578, role: 'assistant', content: ' The', tool_calls: null}, {text: ' The', logprobs: null, finish_reason: null, seed: null}, {usage: null})),
      // Groq's x_groq, Gemini's OpenAI-compatible tool call thought signature, DeepSeek's reasoning.
      sse(chunk({reasoning_content: 'r', content: 'x'}, {}, {x_groq: {id: 'req_1'}}), chunk({tool_calls: [{index: 0, id: 't', type: 'function', function: {name: 'f', arguments: '{}'}, extra_content: {google: {thought_signature: 'CiQB'}}}]})),
    ]
    for (const s of streams) expect(decodeResponse(s + 'data: [DONE]\n\n').unread, s).toEqual([])
  })
})

describe('LiteLLM thinking blocks and provider_specific_fields', () => {
  const blocks = [{type: 'thinking', thinking: `think ${M}`, signature: 'sig'}, {type: 'redacted_thinking', data: 'ZW5j'}]
  it('reads a thinking block\'s text (once where it repeats the reasoning), and provider_specific_fields\' thinking blocks and citations', () => {
    expect(decodeResponse(chat({content: 'Paris.', thinking_blocks: blocks}))).toMatchObject({text: `Paris.\nthink ${M}`, unread: []})
    const both = decodeResponse(chat({content: 'Paris.', reasoning_content: `think ${M}`, thinking_blocks: blocks, provider_specific_fields: {thinking_blocks: blocks, citations: [{type: 'char_location', cited_text: `cited ${M}`, document_index: 0}]}}))
    expect(both).toMatchObject({text: `think ${M}\nParis.\ncited ${M}`, unread: []})
    // Streamed: the blocks in pieces, joined.
    const streamed = decodeResponse(sse(chunk({role: 'assistant', content: '', thinking_blocks: [{type: 'thinking', thinking: 'think CANARY-cccc'}]}), chunk({thinking_blocks: [{type: 'thinking', thinking: '3333dddd4444', signature_delta: 'sig'}]}), chunk({content: 'Paris.'})) + 'data: [DONE]\n\n')
    expect(streamed).toMatchObject({unread: []})
    expect(streamed.text).toContain(`think ${M}`)
  })
  it('names a block or a provider-specific member of a shape not known, holding text', () => {
    expect(decodeResponse(chat({content: 'a', thinking_blocks: [{type: 'future_block', text: M}]})).unread).toEqual(['LiteLLM thinking block "future_block"'])
    expect(decodeResponse(chat({content: 'a', provider_specific_fields: {future: M}})).unread).toEqual(['LiteLLM provider_specific_fields member "future"'])
  })
})
