import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {makeCase} from '../helpers/case-builder.js'

// A tenant id from the logs may hold characters the documents show escaped (a zero-width space,
// ESC, a bidi override). `report processor-notice --tenant` takes the id as it is in the logs.
// A canary registry refuses an id holding a character that prints as nothing (QA spoof #2), so
// such a tenant is met here as one whose users received another's marker, as logs alone give it.

describe('processor notice for a tenant whose id holds invisible or control characters', () => {
  for (const tenant of ['acme\u200bcorp', 'acme\u001bcorp', 'acme\u202ecorp', 'acme\tcorp']) {
    it(`finds ${JSON.stringify(tenant)} by its id as logged`, async () => {
      const tc = makeCase()
      try {
        await tc.addCanaries([['CANARY-dddddddddddddddd', 'beta', 's2']])
        await tc.addFile([
          {request_id: 'a', tenant_id: 'beta', session_id: 's2', request_text: 'mine CANARY-dddddddddddddddd', response_text: 'ok'},
          {request_id: 'b', tenant_id: tenant, session_id: 's1', response_text: 'yours: CANARY-dddddddddddddddd'},
        ])
        scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z')})
        const facts = buildFacts(loadFactsInputs(tc.db), new Date('2026-11-03T00:00:00Z'))
        const notice = buildProcessorNotice(facts, tenant)
        expect(notice.you_received_other_data.responses).toBe(1)
      } finally {
        tc.db.close()
      }
    })
  }
})
