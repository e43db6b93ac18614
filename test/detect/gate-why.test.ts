import {expect, it} from 'vitest'
import {withWhy} from '../../src/detect/gate.js'

// Why a log file cannot be judged, as the gate, scan --json and status give it: unlogged
// answers counted only where the file's notes were recorded (unknown is not zero).

const row = {path: 'a.jsonl', records: 4, answers: 4, unread: null}

it('counts unlogged answers of a complete file, and leaves them unknown for one whose ingest did not finish', () => {
  expect(withWhy({...row, state: 'complete', no_response_text: 3}, {answers: 3, why: 'LiteLLM logs no text while message logging is turned off'}))
    .toMatchObject({unlogged_answers: 3, why: '3 of its 4 answers were not logged (LiteLLM logs no text while message logging is turned off); ingest logs that hold the texts, from a logger or gateway that received them'})
  expect(withWhy({...row, state: 'complete', no_response_text: 2}, {answers: 0, why: null})).toMatchObject({unlogged_answers: 0, why: expect.stringMatching(/^2 of its 4 answers decoded to no text \(check --log-format/)})
  // More counted in the notes than answers without text (error records among them): no more than those.
  expect(withWhy({...row, state: 'complete', no_response_text: 1}, {answers: 5, why: 'x'}).unlogged_answers).toBe(1)
  expect(withWhy({...row, state: 'loading', no_response_text: null}, {answers: 0, why: null})).toMatchObject({unlogged_answers: null, why: 'its ingest did not finish (run it again)'})
})
