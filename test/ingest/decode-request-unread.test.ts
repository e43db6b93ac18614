import {describe, expect, it} from 'vitest'
import {decodeRequestBody} from '../../src/extract/decode.js'
import {parseLine, rowFromRecord, unreadRequestNote} from '../../src/extract/parse-record.js'

// A request member the reader does not know is named, never passed over: the echo check read the
// prompt in part (parse-record.ts UNREAD_REQUEST). Settings, identifiers and media hold no text the
// user sent, and are not named.

describe('decodeRequestBody names the request members it does not read', () => {
  it.each([
    ['a top-level member', {model: 'm', messages: [{role: 'user', content: 'hi'}], x_context: 'pasted text'}, ['request body member "x_context"']],
    ['a chat message member', {messages: [{role: 'user', content: 'hi', x_quote: {text: 'pasted'}}]}, ['request message member "x_quote"']],
    ['a tool call member', {messages: [{role: 'assistant', tool_calls: [{id: 'c', type: 'function', function: {name: 'f', arguments: '{}', x_note: 'n'}}]}]}, ['request tool call function member "x_note"']],
    ['a Gemini part member', {contents: [{role: 'user', parts: [{text: 'hi', x_part: 'p'}]}]}, ['Gemini request part member "x_part"']],
    ['a Converse block member', {messages: [{role: 'user', content: [{toolUse: {toolUseId: 't', name: 'f', input: {}}, x_block: 'b'}]}]}, ['Converse request content block member "x_block"']],
    ['a Converse document given as bytes', {messages: [{role: 'user', content: [{document: {format: 'pdf', name: 'd', source: {bytes: 'JVBERi0x'}}}, {text: 'read it'}]}]}, ['Converse document block (bytes or an S3 object, not text)']],
    ['content without a role', {content: 'orphan text'}, ['request body member "content"']],
    ['a Responses API prompt template', {prompt: {id: 'pmpt_1', variables: {city: 'pasted text'}}, input: 'hi'}, ['request body member "prompt"']],
    ['a member whose key holds a control character, shown', {'x\u001b[31m': 'v'}, ['request body member "x\\\\x1b[31m"']],
  ])('%s', (_what, body, unread) => {
    expect(decodeRequestBody(body).unread).toEqual(unread)
  })

  it('names nothing for settings, identifiers, tool definitions and media', () => {
    const bodies = [
      {model: 'gpt', temperature: 0.2, stream: true, stream_options: {include_usage: true}, user: 'u-1', metadata: {k: 'v'}, tools: [{type: 'function', function: {name: 'f', description: 'd'}}], response_format: {type: 'json_object'}, messages: [{role: 'user', name: 'ann', content: [{type: 'text', text: 'hi'}, {type: 'image_url', image_url: {url: 'https://example.org/a.png'}}]}]},
      {contents: [{role: 'user', parts: [{text: 'hi'}, {inlineData: {mimeType: 'image/png', data: 'iVBORw0K'}}, {fileData: {mimeType: 'application/pdf', fileUri: 'gs://b/f.pdf'}}]}], generationConfig: {temperature: 0}, safetySettings: [{category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE'}]},
      {modelId: 'anthropic.claude', messages: [{role: 'user', content: [{text: 'hi'}, {image: {format: 'png', source: {bytes: 'iVBOR'}}}]}], inferenceConfig: {maxTokens: 5}, toolConfig: {tools: []}},
      {model: 'command-a', messages: [{role: 'user', content: 'hi'}], citation_options: {mode: 'FAST'}, safety_mode: 'CONTEXTUAL'},
      {assistant_id: 'asst_1', tool_resources: {file_search: {vector_store_ids: ['vs_1']}}, truncation_strategy: {type: 'auto'}, additional_messages: [{role: 'user', content: 'hi', attachments: [{file_id: 'f', tools: [{type: 'file_search'}]}]}]},
    ]
    for (const body of bodies) expect(decodeRequestBody(body).unread, JSON.stringify(body)).toEqual([])
  })

  it('notes the record whose request was read in part, its texts read as before', () => {
    const line = {ts: '2026-11-02T06:00:00Z', request_id: 'r', tenant_id: 't', session_id: 's', request: {messages: [{role: 'user', content: 'hello'}], x_context: 'more'}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'hi'}}]}}
    expect(parseLine(Buffer.from(JSON.stringify(line)))).toMatchObject({kind: 'record', row: {request_text: 'hello'}})
    const notes: string[] = []
    expect(rowFromRecord(line, notes)).toMatchObject({row: {request_text: 'hello'}})
    expect(notes).toEqual([unreadRequestNote(['request body member "x_context"'])])
    expect(notes[0]).toBe('its request body holds what this release does not read, so the echo check read the prompt in part: request body member "x_context"')
  })
})
