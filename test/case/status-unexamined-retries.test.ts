import {describe, expect, it} from 'vitest'
import {caseStatus} from '../../src/case/status.js'
import {makeCase} from '../helpers/case-builder.js'
import {runCli} from '../helpers/cli.js'

// The drafts' open item for a retry line that could not be read again sends the reader to
// "crosstalk status (names each line)"; status gave only their count.

describe('status names each retry line it could not examine', () => {
  it('lists the line, its request id and why, in --json and on the console', async () => {
    const c = makeCase()
    let log = ''
    try {
      await c.addCanary('CANARY-0123456789abcdef0123', 'tenant-a', 'sess-a')
      // r1's retry answers 200 with no text: whether it carried another session's marker is not known.
      log = await c.addFile([
        {request_id: 'r0', tenant_id: 'tenant-a', session_id: 'sess-a', request_text: 'hello', response_text: 'fine'},
        {request_id: 'r1', tenant_id: 'tenant-a', session_id: 'sess-a', request_text: 'hi', response_text: 'ok'},
        {request_id: 'r1', tenant_id: 'tenant-a', session_id: 'sess-a', request_text: 'hi again'},
      ])
      const s = caseStatus(c.db)
      expect(s.duplicate_lines_not_examined).toBe(1)
      expect(s.duplicate_lines_not_examined_list).toEqual([{path: log, line: 3, request_id: 'r1', why: 'its answer decoded to no text'}])
    } finally {
      c.close()
    }
    const out = runCli(['status', '--db', c.path])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain(`could not be read again: whether it carries another session's marker is not known: ${log}:3 (request_id "r1": its answer decoded to no text)`)
  })
})
