import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

// An OpenAI-compatible server on loopback that answers every completion in one chosen shape.
// A "leak" shape answers with the canary of the most recent earlier prompt that is not the
// current one (another tenant's marker); the text sits where the shape puts it: string content,
// content parts, reasoning_content or reasoning beside `content: null`, a tool call's arguments,
// a refusal, or (completions) choices[].text. Streams carry the same text per delta, split
// across two events. "empty" and "null" answer with no text at all. Prompts longer than
// `rejectAboveWords` whitespace-separated words are rejected with HTTP 400. `leak: false`
// answers with no marker; `noTextEvery: n` makes every n-th served answer an empty one.
// `streamFault` answers every completion (streamed or not) as a stream not sent whole: 'cut'
// ends it inside its last event (no blank line, no `data: [DONE]`), 'malformed' gives that event
// JSON that does not parse (then `data: [DONE]`).

export type AnswerShape = 'plain' | 'parts' | 'reasoning_content' | 'reasoning' | 'tool_call' | 'refusal' | 'empty' | 'null'

export interface ShapedServer {
  url: string
  /** Completion requests answered with HTTP 200. */
  served: () => number
  close: () => Promise<void>
}

const CANARY = /CANARY-[0-9a-f]{8,}/gi

export async function startShapedServer(shape: AnswerShape, options: {rejectAboveWords?: number; leak?: boolean; noTextEvery?: number; streamFault?: 'cut' | 'malformed'} = {}): Promise<ShapedServer> {
  const seen: string[] = []
  let served = 0
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const json = (status: number, body: unknown): void => void res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body))
      if (req.url === '/v1/models') return json(200, {object: 'list', data: [{id: 'm', object: 'model'}]})
      if (req.method !== 'POST' || !req.url?.includes('completions')) return json(404, {error: {message: 'not found'}})
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {messages?: Array<{content?: unknown}>; prompt?: unknown; stream?: boolean}
      const prompt = body.messages ? body.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join(' ') : String(body.prompt ?? '')
      if (prompt.split(/\s+/).length > (options.rejectAboveWords ?? Infinity)) return json(400, {object: 'error', message: 'prompt too long', type: 'BadRequestError', code: 400})
      const own: string[] = prompt.match(CANARY) ?? []
      const foreign = [...seen].reverse().find((m) => !own.includes(m))
      seen.push(...own)
      served++
      const text = `answer ${(options.leak ?? true) ? (foreign ?? 'none') : 'none'}`
      const as: AnswerShape = options.noTextEvery !== undefined && served % options.noTextEvery === 0 ? 'empty' : shape
      const completions = !req.url.includes('chat')
      if (body.stream || options.streamFault) {
        const half = Math.floor(text.length / 2)
        const events = [text.slice(0, half), text.slice(half)].map((piece, i) => ({object: 'chat.completion.chunk', choices: [completions ? {index: 0, text: shapedText(as, piece)} : {index: 0, delta: shaped(as, piece, i === 0)}]}))
        res.writeHead(200, {'content-type': 'text/event-stream'})
        const data = events.map((e) => `data: ${JSON.stringify(e)}`)
        if (options.streamFault === 'cut') return void res.end(`${data[0]}\n\n${data[1]!.slice(0, -4)}`)
        if (options.streamFault === 'malformed') return void res.end(`${data[0]}\n\n${data[1]!.slice(0, -1)}\n\ndata: [DONE]\n\n`)
        return void res.end(data.map((d) => `${d}\n\n`).join('') + 'data: [DONE]\n\n')
      }
      const choice = completions ? {index: 0, text: shapedText(as, text), finish_reason: 'stop'} : {index: 0, message: {role: 'assistant', ...shaped(as, text, true)}, finish_reason: 'stop'}
      json(200, {id: 'x', object: completions ? 'text_completion' : 'chat.completion', model: 'm', choices: [choice], usage: {prompt_tokens: 10, completion_tokens: 2, total_tokens: 12}})
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A chat message (or delta) carrying `text` where the shape puts it. */
function shaped(shape: AnswerShape, text: string, first: boolean): Record<string, unknown> {
  switch (shape) {
    case 'plain':
      return {content: text}
    case 'parts':
      return {content: [{type: 'text', text}]}
    case 'reasoning_content':
      return {content: null, reasoning_content: text}
    case 'reasoning':
      return {content: null, reasoning: text}
    case 'tool_call':
      return {content: null, tool_calls: [{index: 0, ...(first ? {id: 'call_1', type: 'function'} : {}), function: {...(first ? {name: 'lookup'} : {}), arguments: text}}]}
    case 'refusal':
      return {content: null, refusal: text}
    case 'empty':
      return {content: ''}
    case 'null':
      return {content: null}
  }
}

/** A completion's choices[].text: the text, or none for the shapes that carry none. */
function shapedText(shape: AnswerShape, text: string): string | null {
  return shape === 'empty' ? '' : shape === 'null' ? null : text
}
