import {describe, expect, it} from 'vitest'
import {draftsCase} from './drafts-case.js'

// QA sentences S2-3: drafts for a controller said "(the DPO recorded in this case is the
// processor's)" when the case records no DPO at all.
const PROCESSOR_DPO = /the DPO recorded in this case is the processor's|le DPO enregistré dans ce dossier est celui du sous-traitant/

describe('drafts for a controller: its contact point', () => {
  it("names the processor's DPO only where one is recorded", async () => {
    const c = await draftsCase({open: ['--role', 'processor']})
    const drafts = async (): Promise<string[]> => [
      await c.cli('report', 'article34', '--on-behalf-of-controller', 'tn-alpha', '--lang', 'en'),
      await c.cli('report', 'article34', '--on-behalf-of-controller', 'tn-alpha', '--lang', 'fr'),
      await c.cli('report', 'article33', '--on-behalf-of-controller', 'tn-alpha'),
      await c.cli('report', 'article33', '--on-behalf-of-controller', 'tn-alpha', '--lang', 'fr'),
    ]
    for (const d of await drafts()) {
      expect(d).toMatch(/none is recorded for it|aucun n'est enregistré pour lui/)
      expect(d).not.toMatch(PROCESSOR_DPO)
    }
    await c.cli('incident', 'set', '--dpo-name', 'P DPO', '--dpo-contact', 'dpo@llm.example')
    for (const d of await drafts()) expect(d).toMatch(PROCESSOR_DPO)
  }, 90_000)
})
