import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {listPiiFindings, listProvenance, listSightings} from '../../src/detect/list.js'
import {DETECT_SCHEMAS, detectJsonSchema, piiFindingSchema, provenanceEntrySchema, sightingSchema} from '../../src/detect/schemas.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {ROOT} from '../helpers/cli.js'
import {makeCase} from '../helpers/case-builder.js'

describe('published detection JSON Schemas', () => {
  it('schemas/{sightings,provenance,pii}.schema.json match the zod schemas (regenerate with writeDetectSchemas)', async () => {
    for (const name of Object.keys(DETECT_SCHEMAS) as Array<keyof typeof DETECT_SCHEMAS>) {
      expect(fs.readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')).toBe(detectJsonSchema(name))
    }
  })

  it('what the list functions return has exactly the documented keys', async () => {
    const c = makeCase()
    const A = 'CANARY-3f9a1c2b4d5e6f70'
    await c.addCanary(A, 'tA', 'sA')
    const secret = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'
    await c.addFile([
      {request_id: 'r1', tenant_id: 'tA', session_id: 'sA', request_text: `${secret} mail anna.schmidt@example.com now`, response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `${A} ${secret} mail anna.schmidt@example.com now`},
      {request_id: 'r3', tenant_id: 'tB', session_id: 'sC', request_text: 'hi', response_text: 'see CANARY-0123456789 later'},
    ])
    scanCase(c.db, {now: new Date('2026-11-03T00:00:00.000Z')})
    const sightings = listSightings(c.db)
    const prov = listProvenance(c.db, {showText: true})
    const pii = listPiiFindings(c.db, {showValues: true})
    expect(sightings.map((s) => s.class).sort()).toEqual(['cross_tenant', 'orphan'])
    expect(prov).toHaveLength(1)
    expect(pii.map((p) => p.kind)).toContain('email')
    z.array(sightingSchema.strict()).parse(sightings)
    z.array(provenanceEntrySchema.strict()).parse(prov)
    z.array(piiFindingSchema.strict()).parse(pii)
    c.close()
  })
})
