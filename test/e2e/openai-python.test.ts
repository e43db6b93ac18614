import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startServeProcess, type ServeProcess} from '../helpers/serve-process.js'

// The official openai Python client against real `crosstalk testbed serve` processes (the cases
// are in openai_python_cases.py). Needs a python with `openai`: CROSSTALK_PYTHON (the virtual
// environment .ci/run builds from test/extract/producers/requirements.txt, which pins openai) or
// python3; without one these tests are skipped, and say so.

const SCRIPT = fileURLToPath(new URL('./openai_python_cases.py', import.meta.url))
const PYTHON = process.env.CROSSTALK_PYTHON || 'python3'
const probe = spawnSync(PYTHON, ['-c', 'import openai'], {encoding: 'utf8', timeout: 60_000})
const available = probe.status === 0
if (!available) console.warn(`SKIPPED openai-python.test.ts: python3 with the openai package is not available (${(probe.stderr || String(probe.error)).trim().split('\n').at(-1)}); pip install openai`)

interface Case {
  case: string
  class: string | null
  status?: number | null
  message?: string
  type?: string | null
  param?: string | null
  code?: string | number | null
  value?: unknown
  calls: number
}

function runCases(url: string, style: 'vllm' | 'sglang'): Map<string, Case> {
  const run = spawnSync(PYTHON, [SCRIPT, url, style], {encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL'})
  expect(run.status, run.stderr).toBe(0)
  const cases = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Case)
  return new Map(cases.map((c) => [c.case, c]))
}

describe.skipIf(!available)('testbed serve through the official openai Python client', () => {
  let vllm: ServeProcess
  let sglang: ServeProcess
  beforeAll(async () => {
    ;[vllm, sglang] = await Promise.all([
      startServeProcess(['--pool-tokens', '8192', '--max-model-len', '6000']),
      startServeProcess(['--pool-tokens', '256', '--max-model-len', '1024', '--error-style', 'sglang']),
    ])
  })
  afterAll(async () => {
    await Promise.all([vllm?.stop(), sglang?.stop()])
  })

  it('vllm style: error class, status and message per case, no retries of a 400', () => {
    const cases = runCases(vllm.url, 'vllm')
    expect(cases.get('max_tokens_0')).toMatchObject({class: 'BadRequestError', status: 400, type: 'BadRequestError', param: 'max_tokens', calls: 1})
    expect(cases.get('max_tokens_0')!.message).toContain('max_tokens must be at least 1, got 0.')
    expect(cases.get('cache_salt_empty')).toMatchObject({class: 'BadRequestError', status: 400, type: 'Bad Request', calls: 1})
    expect(cases.get('cache_salt_empty')!.message).toContain("Parameter 'cache_salt' must be a non-empty string if provided.")
    expect(cases.get('no_messages')).toMatchObject({class: 'BadRequestError', status: 400, type: 'Bad Request', calls: 1})
    expect(cases.get('no_messages')!.message).toContain("'msg': 'Field required'")
    expect(cases.get('unknown_model')).toMatchObject({class: 'NotFoundError', status: 404, type: 'NotFoundError', param: 'model', calls: 1})
    expect(cases.get('unknown_model')!.message).toContain('The model `gpt-4o` does not exist.')
    expect(cases.get('over_window')).toMatchObject({class: 'BadRequestError', status: 400, param: 'input_tokens'})
    expect(cases.get('over_window')!.message).toContain("This model's maximum context length is 6000 tokens. However, your request has 6010 input tokens.")
    expect(cases.get('no_max_tokens')).toMatchObject({class: null, value: {prompt_tokens: 5990, completion_tokens: 10}})
    expect(cases.get('n_2')).toMatchObject({class: null, value: [0, 1]})
    expect(cases.get('unknown_route')).toMatchObject({class: 'NotFoundError', status: 404})
  })

  it('sglang style: the flat 400 body and the error event inside a 200 stream', () => {
    const cases = runCases(sglang.url, 'sglang')
    expect(cases.get('over_pool')).toMatchObject({class: 'BadRequestError', status: 400, calls: 1})
    expect(cases.get('over_pool')!.message).toContain('Input length (400 tokens) exceeds the maximum allowed length (256 tokens).')
    expect(cases.get('over_pool_stream')).toMatchObject({class: 'APIError', type: 'BAD_REQUEST'})
    expect(cases.get('over_pool_stream')!.message).toContain('Input length (400 tokens) exceeds the maximum allowed length (256 tokens).')
  })
})
