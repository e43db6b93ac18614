import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {noRegistryOrphanCase} from '../helpers/orphan-case.js'

// QA docs #1: with no canary registry, a marker-shaped token in an answer (an orphan) leaves the
// exposure unknown (scope --json: exposure null). Every document gave 0 / "none" beside it: the
// Art. 33 draft's timeline, categories, ranges and exposure rows, the register's ranges, the case
// page's cards and flows, timeline's console and --json, and scope --tenant's console.

/** The HTML page as text: tags dropped, one piece of text per line. */
function pageText(html: string): string[] {
  return html.replace(/<(style|script)[\s\S]*?<\/\1>/g, '').replace(/<[^>]+>/g, '\n').split('\n').map((l) => l.trim().replace(/&#39;|&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).filter((l) => l !== '')
}

describe('no canary registry, a marker-shaped token in an answer: the exposure is not known in every document', () => {
  it('never prints it as 0 or none', async () => {
    const db = await noRegistryOrphanCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    expect(JSON.parse((await run(['scope', '--db', db, '--json'])).stdout).exposure).toBeNull()

    const a33 = await run(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(a33.code, a33.stderr).toBe(0)
    for (const row of ['First affected response in the logs', 'Last affected response in the logs']) expect(a33.stdout).toMatch(new RegExp(`\\| ${row} \\| not known: marker-shaped tokens`))
    expect(a33.stdout).toMatch(/Categories of data subjects: not known/)
    expect(a33.stdout).not.toMatch(/at least 0\b/)
    expect(a33.stdout).toMatch(/Approximate number of data subjects: \*\*not known/)
    for (const row of ['Sessions whose data reached someone else', 'Customers whose data reached someone else', 'Customers that received someone else\'s data']) {
      expect(a33.stdout).toMatch(new RegExp(`\\| ${row} \\| not known`))
    }
    expect(a33.stdout).toMatch(/Flows by verbatim text only: whose data the marker-shaped tokens/)
    expect(a33.stdout).toMatch(/\| 67-68 \| Number of data subjects \| not known/)
    const fr = await run(['report', 'article33', '--db', db, '--lang', 'fr'])
    expect(fr.stdout).not.toMatch(/au moins 0\b/)
    expect(fr.stdout).toMatch(/\| Sessions dont les données ont atteint un tiers \| non connu/)

    const register = (await run(['report', 'register', '--db', db, '--lang', 'en'])).stdout
    expect(register).not.toMatch(/at least 0\b/)
    expect(register).toMatch(/\| Data subjects \| not known/)

    const out = join(dirname(db), 'case.html')
    expect((await run(['report', 'case', '--db', db, '--out', out])).code).toBe(0)
    const page = pageText(readFileSync(out, 'utf8'))
    const card = (label: string): string => page[page.indexOf(label) - 1]!
    expect(card('sessions whose data reached another session')).toMatch(/^not known/)
    expect(card('tenants whose data leaked')).toMatch(/^not known/)
    expect(card("responses carrying another session's data (marker or verbatim text)")).toMatch(/^not known/)
    expect(page.join('\n')).not.toContain("No response carried another session's data (marker or verbatim text).")
    expect(page.join('\n')).not.toContain("No response carrying another session's data and no at-risk response in this case")
    const json = JSON.parse((await run(['report', 'case', '--db', db, '--json'])).stdout)
    expect(json.scope.exposure).toBeNull()

    const timeline = await run(['timeline', '--db', db])
    expect(timeline.stdout).not.toMatch(/No contamination/)
    expect(timeline.stdout).toMatch(/Contamination not known in this case: 1 marker-shaped token/)
    expect(JSON.parse((await run(['timeline', '--db', db, '--json'])).stdout).exposure).toBeNull()

    const tenant = (await run(['scope', '--db', db, '--tenant', 'tn-b'])).stdout
    expect(tenant).toMatch(/responses \(marker or verbatim text\)\s+unknown/)
    expect(tenant).not.toMatch(/responses \(marker or verbatim text\)\s+0/)
  }, 120_000)
})
