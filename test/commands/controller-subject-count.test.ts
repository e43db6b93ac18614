import {describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// A processor drafting for one controller gives that controller's data subjects once: its
// Article 33 draft and its letter to data subjects count them the same way (its end users on
// either side of the exposure, one session one person) and each says which count it is.
// In the hostile case: globex-s1's data reached acme-s3, globex-s1 was served acme's and globex-s2
// the hostile tenant's (2 people, one on both sides); acme-s1 and acme-s2 leaked, acme-s3 and
// acme-s4 were served others' data (4 people).

interface Draft33 {data_subjects: {approximate: {low: number; method: string}}}
interface Draft34 {what_happened: string[]}

describe("one controller's data subjects, in both drafts", () => {
  it('the Article 34 letter states the Article 33 count, with its two sides', async () => {
    const {db} = await buildNotifyCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor'])).code).toBe(0)
    for (const [tenant, reached, served, total] of ([['globex', 1, 2, 2], ['acme', 2, 2, 4]] as Array<[string, number, number, number]>)) {
      const a33 = JSON.parse((await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', tenant, '--format', 'json'])).stdout) as Draft33
      const a34 = JSON.parse((await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', tenant, '--format', 'json', '--lang', 'en'])).stdout) as Draft34
      const low = a33.data_subjects.approximate.low
      expect(low).toBe(total)
      expect(a33.data_subjects.approximate.method).toContain(`${reached} whose data (canary marker or verbatim content) reached another session, ${served} that were served another session's data`)
      const said = a34.what_happened.join(' ')
      expect(said).toContain(`At least ${low} conversations of this service's users were affected (one conversation counts as one person; those the logs show, there may be more): ${reached} whose content reached someone else, ${served} that ${served === 1 ? 'was' : 'were'} shown someone else's content${reached + served > total ? ' (a conversation on both sides is counted once)' : ''}.`)
      const fr = JSON.parse((await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', tenant, '--format', 'json', '--lang', 'fr'])).stdout) as Draft34
      expect(fr.what_happened.join(' ')).toContain(`Au moins ${low} conversations des utilisateurs de ce service sont concernées`)
    }
  })
})

describe('a controller whose users were only shown others\' data', () => {
  it('its letter counts them as its Article 33 draft does, never "nothing found"', async () => {
    const c = makeCase()
    await c.addCanaries([['CANARY-a1a1a1a1a1a1a1a1a1a1', 'acme', 'acme-s1']])
    // acme's marker reaches globex-s1: globex's data reached nobody, one of its users was shown acme's.
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: 'hello CANARY-a1a1a1a1a1a1a1a1a1a1', response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: 'stale CANARY-a1a1a1a1a1a1a1a1a1a1'},
    ])
    scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    c.close()
    expect((await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])).code).toBe(0)
    const a33 = JSON.parse((await run(['report', 'article33', '--db', c.path, '--on-behalf-of-controller', 'globex', '--format', 'json'])).stdout) as Draft33
    const a34 = JSON.parse((await run(['report', 'article34', '--db', c.path, '--on-behalf-of-controller', 'globex', '--format', 'json', '--lang', 'en'])).stdout) as Draft34
    expect(a33.data_subjects.approximate.low).toBe(1)
    const said = a34.what_happened.join(' ')
    expect(said).not.toMatch(/found no answer that showed text from another person's conversation/)
    expect(said).toContain("At least 1 conversation of this service's users was affected (one conversation counts as one person; those the logs show, there may be more): 0 whose content reached someone else, 1 that was shown someone else's content.")
    expect(a33.data_subjects.approximate.method).toContain("0 whose data (canary marker or verbatim content) reached another session, 1 that was served another session's data")
  })

  it("its Article 33 draft states no loss of confidentiality of its own data, only the integrity of what its users got", async () => {
    const c = makeCase()
    await c.addCanaries([['CANARY-a1a1a1a1a1a1a1a1a1a1', 'acme', 'acme-s1']])
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: 'hello CANARY-a1a1a1a1a1a1a1a1a1a1', response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: 'stale CANARY-a1a1a1a1a1a1a1a1a1a1'},
    ])
    scanCase(c.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    c.close()
    expect((await run(['incident', 'open', '--db', c.path, '--title', 'T', '--aware-at', '2026-11-03T02:00:00Z', '--role', 'processor'])).code).toBe(0)
    type Nature = {nature: {types: string[]}; consequences: string[]}
    const globex = JSON.parse((await run(['report', 'article33', '--db', c.path, '--on-behalf-of-controller', 'globex', '--format', 'json'])).stdout) as Nature
    expect(globex.nature.types).toEqual(['integrity'])
    expect(globex.consequences.join(' ')).not.toMatch(/Loss of confidentiality|Loss of control/)
    expect(globex.consequences.join(' ')).toMatch(/^Integrity: receiving users got responses built from someone else's data/)
    // acme's data did reach another session: its draft states both.
    const acme = JSON.parse((await run(['report', 'article33', '--db', c.path, '--on-behalf-of-controller', 'acme', '--format', 'json'])).stdout) as Nature
    expect(acme.nature.types).toEqual(['confidentiality', 'integrity'])
    expect(acme.consequences.join(' ')).toMatch(/Loss of confidentiality/)
  })
})
