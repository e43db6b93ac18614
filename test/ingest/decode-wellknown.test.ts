import {describe, expect, it} from 'vitest'
import {decodeResponse} from '../../src/extract/decode.js'

// Other providers' answer bodies, read closed-world: every member of each object read as text,
// known to carry none, or named in `unread` (the record then not read whole, the gate failing
// closed). They were refused as answers that decoded to no text.

const M = 'CANARY-cccc3333dddd4444'

describe('Gemini / Vertex generateContent', () => {
  const body = {
    candidates: [{
      content: {role: 'model', parts: [
        {text: 'thinking about CANARY-cccc', thought: true},
        {text: '3333dddd4444', thought: true, thoughtSignature: 'c2ln'},
        {functionCall: {name: 'lookup', args: {q: `find ${M}`}}},
        {executableCode: {language: 'PYTHON', code: `print("${M}")`}},
        {codeExecutionResult: {outcome: 'OUTCOME_OK', output: `${M}\n`}},
        {text: 'Answer.'},
      ]},
      finishReason: 'STOP', index: 0, avgLogprobs: -0.2,
      safetyRatings: [{category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE'}],
      citationMetadata: {citations: [{startIndex: 0, endIndex: 5, uri: 'https://example.org/cited', title: 'Cited page'}]},
      groundingMetadata: {webSearchQueries: ['who'], groundingChunks: [{web: {uri: 'https://example.org/g', title: 'Grounding'}}]},
    }],
    promptFeedback: {safetyRatings: [{category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE'}]},
    usageMetadata: {promptTokenCount: 7, candidatesTokenCount: 11, totalTokenCount: 18, promptTokensDetails: [{modality: 'TEXT', tokenCount: 7}]},
    modelVersion: 'gemini-2.5-flash', responseId: 'abc',
  }
  it('reads parts (thoughts, function call args, code and its output), citations and grounding, and the token counts', () => {
    const d = decodeResponse(body)
    expect(d).toMatchObject({kind: 'chat', unread: [], promptTokens: 7, completionTokens: 11, isError: false})
    // Consecutive thought parts are one running text: the marker split between them is whole.
    expect(d.text).toContain(`thinking about ${M}`)
    expect(d.text).toContain(JSON.stringify({q: `find ${M}`}))
    expect(d.text).toContain(`print("${M}")`)
    for (const t of ['Answer.', 'https://example.org/cited', 'Cited page', 'https://example.org/g', 'Grounding']) expect(d.text).toContain(t)
    // The same body as a logged string.
    expect(decodeResponse(JSON.stringify(body)).text).toBe(d.text)
  })
  it('names a member it does not know, holding text, at each level', () => {
    expect(decodeResponse({...body, future: {note: M}}).unread).toEqual(['Gemini body member "future"'])
    expect(decodeResponse({candidates: [{content: {parts: [{text: 'a', futurePart: {t: M}}]}, x: M}]}).unread).toEqual(['Gemini candidate member "x"', 'Gemini part member "futurePart"'])
    expect(decodeResponse({candidates: [{content: {parts: [], extra: 'x'}}], promptFeedback: {blockReason: 'SAFETY', blockReasonMessage: `blocked ${M}`}})).toMatchObject({text: `blocked ${M}`, unread: ['Gemini content member "extra"']})
  })
})

describe('AWS Bedrock Converse', () => {
  const body = {
    output: {message: {role: 'assistant', content: [
      {reasoningContent: {reasoningText: {text: `think ${M}`, signature: 'sig'}}},
      {text: 'Here: CANARY-cccc'},
      {text: '3333dddd4444'},
      {toolUse: {toolUseId: 't1', name: 'lookup', input: {q: M}}},
      {citationsContent: {content: [{text: `cited ${M}`}], citations: [{title: 'Doc', sourceContent: [{text: 'source'}], location: {documentChars: {documentIndex: 0, start: 0, end: 5}}}]}},
    ]}},
    stopReason: 'end_turn', usage: {inputTokens: 5, outputTokens: 3, totalTokens: 8}, metrics: {latencyMs: 120},
    additionalModelResponseFields: {note: 'extra words'}, trace: {guardrail: {modelOutput: ['guarded']}},
  }
  it('reads the content blocks in order (text blocks one running text), the model fields and trace strings, and the token counts', () => {
    const d = decodeResponse(body)
    expect(d).toMatchObject({kind: 'chat', unread: [], promptTokens: 5, completionTokens: 3})
    expect(d.text).toContain(`think ${M}`)
    expect(d.text).toContain(`Here: ${M}`)
    for (const t of [JSON.stringify({q: M}), `cited ${M}`, 'Doc', 'source', 'extra words', 'guarded']) expect(d.text).toContain(t)
  })
  it('reads a document block\'s text source, an image block as no text', () => {
    const d = decodeResponse({output: {message: {role: 'assistant', content: [{document: {format: 'txt', name: 'notes', source: {text: `doc ${M}`}}}, {image: {format: 'png', source: {bytes: 'iVBORw0K'}}}]}}, stopReason: 'end_turn'})
    expect(d).toMatchObject({unread: []})
    expect(d.text).toContain(`doc ${M}`)
    expect(d.text).not.toContain('iVBORw0K')
  })
  it('names a block member it does not know', () => {
    expect(decodeResponse({output: {message: {role: 'assistant', content: [{futureBlock: {text: M}}]}}, stopReason: 'end_turn'}).unread).toEqual(['Converse content block member "futureBlock"'])
  })
})

describe('Cohere v2 chat', () => {
  it('reads text and thinking parts, the tool plan and calls, the citations; names an unknown part', () => {
    const d = decodeResponse({
      id: 'c1', finish_reason: 'COMPLETE',
      message: {role: 'assistant', content: [{type: 'thinking', thinking: `hmm ${M}`}, {type: 'text', text: `leak ${M}`}],
        tool_plan: 'I will look it up.', tool_calls: [{id: 'x', type: 'function', function: {name: 'f', arguments: `{"q":"${M}"}`}}],
        citations: [{start: 0, end: 4, text: 'leak', sources: [{type: 'document', id: 'doc:0', document: {snippet: 'cited snippet'}}]}]},
      usage: {billed_units: {input_tokens: 5, output_tokens: 2}, tokens: {input_tokens: 9, output_tokens: 2}},
    })
    expect(d).toMatchObject({kind: 'chat', unread: [], promptTokens: 9, completionTokens: 2})
    for (const t of [`hmm ${M}`, `leak ${M}`, 'I will look it up.', `{"q":"${M}"}`, 'cited snippet']) expect(d.text).toContain(t)
    expect(decodeResponse({finish_reason: 'COMPLETE', message: {role: 'assistant', content: [{type: 'image', text: M}]}}).unread).toEqual(['Cohere content part "image"'])
  })
})

describe('Bedrock Titan text', () => {
  it('reads results[].outputText and the token counts', () => {
    const d = decodeResponse({inputTextTokenCount: 5, results: [{tokenCount: 3, outputText: `leak ${M}`, completionReason: 'FINISH'}]})
    expect(d).toMatchObject({kind: 'chat', text: `leak ${M}`, unread: [], promptTokens: 5, completionTokens: 3})
    expect(decodeResponse({results: [{outputText: 'a', other: M}]}).unread).toEqual(['Titan result member "other"'])
  })
})

describe('OpenAI Assistants thread.message', () => {
  it('reads text parts (value and annotations), no text in its other members', () => {
    const d = decodeResponse({
      id: 'msg_1', object: 'thread.message', created_at: 1, thread_id: 'thread_1', role: 'assistant', assistant_id: 'asst_1', run_id: 'run_1', attachments: [], metadata: {}, status: 'completed',
      content: [{type: 'text', text: {value: `leak ${M}`, annotations: [{type: 'file_citation', text: '【4:0†source】', file_citation: {file_id: 'file_1'}, start_index: 0, end_index: 1}]}}],
    })
    expect(d).toMatchObject({kind: 'chat', unread: []})
    expect(d.text).toBe(`leak ${M}\n【4:0†source】`)
    expect(decodeResponse({object: 'thread.message', content: [{type: 'future', future: {value: M}}]}).unread).toEqual(['Assistants content part "future"'])
  })
})

describe('Ollama', () => {
  it('reads /api/chat and /api/generate bodies: content (response), thinking, tool calls, the token counts', () => {
    const chat = decodeResponse({model: 'llama3', created_at: '2026-11-01T00:00:00Z', message: {role: 'assistant', content: `leak ${M}`, thinking: 'hmm', tool_calls: [{function: {name: 'f', arguments: {q: M}}}]}, done: true, done_reason: 'stop', total_duration: 1, prompt_eval_count: 4, eval_count: 6})
    expect(chat).toMatchObject({kind: 'chat', text: `hmm\nleak ${M}\n${JSON.stringify({q: M})}`, unread: [], promptTokens: 4, completionTokens: 6})
    const generate = decodeResponse({model: 'llama3', created_at: 't', response: `leak ${M}`, thinking: 'hmm', done: true, context: [1, 2, 3]})
    expect(generate).toMatchObject({kind: 'chat', text: `hmm\nleak ${M}`, unread: []})
    expect(decodeResponse({model: 'llama3', response: 'a', done: true, future: M}).unread).toEqual(['Ollama body member "future"'])
  })
  it('reads a /api/generate NDJSON stream as its chunks joined', () => {
    const lines = ['Here: CANARY-cc', 'cc3333dddd4444', ''].map((response, i, a) => JSON.stringify({model: 'llama3', created_at: 't', response, done: i === a.length - 1})).join('\n')
    expect(decodeResponse(lines)).toMatchObject({kind: 'chat', stream: true, text: `Here: ${M}`, unread: []})
  })
})

describe('shapes taken only by their identifying members', () => {
  it('leaves a body with none of them as no text', () => {
    for (const body of [{results: [{text: M}]}, {message: {content: M}}, {output: {text: M}}, {object: 'thread.run', content: [M]}]) expect(decodeResponse(body)).toMatchObject({kind: 'json', text: ''})
  })
})
