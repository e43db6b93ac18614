// Small builders for native log lines, so tests state only what they are about.
export interface LineFields {
  ts?: string | number
  request_id: string
  tenant_id?: string
  session_id?: string
  status?: number
  prompt?: string
  answer?: string
  [k: string]: unknown
}

export function chatLine(f: LineFields): string {
  const {prompt = 'hello', answer = 'hi there', ...rest} = f
  return JSON.stringify({
    ts: '2026-11-02T06:48:30.289Z',
    tenant_id: 'tenant-a',
    session_id: 'sess-1',
    status: 200,
    request: {model: 'm', messages: [{role: 'user', content: prompt}]},
    response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}}], usage: {prompt_tokens: 5, completion_tokens: 3}},
    ...rest,
  })
}

/** The barest native line a case needs: ids, one user message and one assistant message. */
export function bareLine(requestId: string, tenant: string, session: string, prompt: string, answer: string, ts: string): string {
  return JSON.stringify({
    ts, request_id: requestId, tenant_id: tenant, session_id: session, status: 200,
    request: {messages: [{role: 'user', content: prompt}]},
    response: {choices: [{message: {role: 'assistant', content: answer}}]},
  })
}
