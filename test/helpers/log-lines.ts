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
