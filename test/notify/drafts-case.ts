import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Small cases for the drafts' sentence tests: tn-alpha's user wrote an IBAN that an answer to
// tn-beta repeated word for word (a text-only leak, 10:05; iban: false, the same without the IBAN), or (leak: false) every answer carries
// only its own session's text. Each command's exit is checked, so a test never reads a draft of a case it did not build.

const IBAN_PROMPT = 'My name is Johanna Svensson and my account number is DE89370400440532013000 please transfer the full remaining balance to my sister before Friday morning'
const PLAIN_PROMPT = 'My name is Johanna Svensson and I would like a short poem about the sea for the birthday of my sister before Friday morning'

const answer = (ts: string, rid: string, tenant: string, session: string, prompt: string, text: string): string =>
  JSON.stringify({ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: text}}]}})

export interface DraftsCase {
  db: string
  /** runs a command against the case and returns its stdout, failing the test on a non-zero exit */
  cli: (...args: string[]) => Promise<string>
}

export async function draftsCase(options: {leak?: boolean; iban?: boolean; open?: string[] | null} = {}): Promise<DraftsCase> {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaaaaaa1,tn-alpha,s-a1,2026-11-01T09:00:00Z\nCANARY-bbbbbbbbbbbbbbbbbbbb2,tn-beta,s-b1,2026-11-01T09:00:00Z\n')
  const leak = options.leak ?? true
  const prompt = options.iban === false ? PLAIN_PROMPT : IBAN_PROMPT
  writeFileSync(join(dir, 'logs.jsonl'), [
    answer('2026-11-01T10:00:00Z', 'r1', 'tn-alpha', 's-a1', `CANARY-aaaaaaaaaaaaaaaaaaaa1 ${prompt}`, 'I will help you with that transfer.'),
    answer('2026-11-01T10:05:00Z', 'r2', 'tn-beta', 's-b1', 'CANARY-bbbbbbbbbbbbbbbbbbbb2 What is the weather like today in Paris', leak ? `Sure: ${prompt} as you asked.` : 'It is sunny in Paris today.'),
    answer('2026-11-01T10:06:00Z', 'r3', 'tn-gamma', 's-g1', 'Tell me a story', 'Once upon a time there was a cat.'),
  ].join('\n') + '\n')
  const cli = async (...args: string[]): Promise<string> => {
    const r = await run([...args, '--db', db])
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    return r.stdout
  }
  await cli('ingest', 'canaries', join(dir, 'canaries.csv'))
  await cli('ingest', 'logs', join(dir, 'logs.jsonl'))
  await cli('scan')
  const open = options.open === undefined ? ['--role', 'controller'] : options.open
  if (open !== null) await cli('incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', ...open)
  return {db, cli}
}

/** The lines of a Markdown document that hold `text`. */
export const linesWith = (doc: string, text: string): string[] => doc.split('\n').filter((l) => l.includes(text))
