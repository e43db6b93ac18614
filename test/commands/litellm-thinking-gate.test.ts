import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

// LiteLLM passes Anthropic's thinking on as the message's `thinking_blocks` (and again in its
// `provider_specific_fields`, with the citations): both were named unread, so every gate exited 1
// on a clean LiteLLM log of a thinking model, and a marker in the thinking the client received was
// never classified. They are read now where their shape is certain.

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'formats', 'litellm-logging-payload.jsonl')
const OTHER = 'CANARY-0123456789abcdef0123'

/** The fixture's first logging payload, its answer given thinking blocks holding `thinking` and cited `cited`. */
function payload(thinking: string, cited: string): string {
  const row = JSON.parse(readFileSync(FIXTURE, 'utf8').split('\n')[0]!) as {response: {choices: Array<{message: Record<string, unknown>}>}}
  const blocks = [{type: 'thinking', thinking, signature: 'EqoBCkgIARAB'}, {type: 'redacted_thinking', data: 'EmwKAhgBEgy3'}]
  Object.assign(row.response.choices[0]!.message, {
    content: 'Paris.', reasoning_content: thinking, thinking_blocks: blocks,
    provider_specific_fields: {thinking_blocks: blocks, citations: [{type: 'char_location', cited_text: cited, document_index: 0, document_title: 'Atlas', start_char_index: 0, end_char_index: 5}]},
  })
  return JSON.stringify(row) + '\n'
}

function triage(log: string): {code: number; stderr: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\nCANARY-aa11bb22cc33dd44,team-acme,sess-acme-7,\n${OTHER},team-globex,sess-g-1,\n`)
  writeFileSync(join(dir, 'litellm.jsonl'), log)
  return runCli(['triage', join(dir, 'litellm.jsonl'), '--log-format', 'litellm', '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
}

describe('--fail-on-leak over LiteLLM answers with thinking blocks', () => {
  it('reads the thinking blocks and provider_specific_fields of a clean answer: the file is read whole, the gate passes (exit 0)', () => {
    const r = triage(payload('The capital of France is Paris.', 'Paris is the capital'))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toContain('not read whole')
    expect(r.stderr).not.toContain('thinking_blocks')
  }, 120_000)

  it('finds another tenant\'s marker in the thinking text and in a citation the client received (exit 3)', () => {
    for (const [thinking, cited] of [[`Recall ${OTHER}.`, 'Paris is the capital'], ['Paris.', `See ${OTHER}`]] as const) {
      const r = triage(payload(thinking, cited))
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
      expect(r.stderr).not.toContain('not read whole')
    }
  }, 120_000)
})
