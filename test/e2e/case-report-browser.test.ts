import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, inject, it} from 'vitest'
import {runCli, runJson, tempDir} from '../helpers/cli.js'

// The HTML case report in a real browser (Debian's chromium, driven by playwright-core):
// the numbers on the page are those of `scope --json`, nothing is fetched from anywhere,
// the script runs under the page's Content-Security-Policy, and a screenshot is not blank.
// .ci/run installs chromium; where it cannot be found this file is skipped, saying so.
// CROSSTALK_REPORT_SCREENSHOT=docs/case-report.png writes the screenshot there as well.

function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  for (const c of candidates) if (c && existsSync(c)) return c
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], {encoding: 'utf8'}).trim() || null
  } catch {
    return null
  }
}

const CHROMIUM = findChromium()
if (!CHROMIUM) process.stderr.write('SKIPPED test/e2e/case-report-browser.test.ts: no chromium found (apt-get install chromium, or set CHROMIUM_PATH)\n')

const POOL = '681280'
// Awareness inside the incident, and the page read 11.5 h later: the clock is open.
const AWARE_AT = '2026-11-01T21:30:00Z'
const NOW = '2026-11-02T09:00:00Z'

describe.skipIf(!CHROMIUM)('report case in a browser', () => {
  let dir: string
  let html: string
  let scope: Record<string, any>
  let data: Record<string, any>
  let browser: Browser
  let page: Page
  const requests: string[] = []
  const blocked: string[] = []
  const problems: string[] = []

  beforeAll(async () => {
    dir = tempDir()
    const db = join(dir, 'case.db')
    // The run's shared generated incident.
    const incident = inject('incident')
    const triage = runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', POOL])
    expect(triage.code, triage.stderr).toBe(0)
    expect(runCli(['incident', 'open', '--db', db, '--title', 'Stale KV pages served across tenants', '--aware-at', AWARE_AT, '--role', 'controller']).code).toBe(0)
    html = join(dir, 'case.html')
    const written = runCli(['report', 'case', '--db', db, '--out', html, '--now', NOW])
    expect(written.code, written.stderr).toBe(0)
    scope = runJson(['scope', '--db', db, '--pool-tokens', POOL])
    data = runJson(['report', 'case', '--db', db, '--now', NOW])

    const {chromium} = await import('playwright-core')
    browser = await chromium.launch({executablePath: CHROMIUM!})
    const context = await browser.newContext({viewport: {width: 1280, height: 2300}})
    // Every request goes through here: the page itself (file:) and inline data may load,
    // anything else is recorded and refused.
    await context.route('**/*', (route) => {
      const url = route.request().url()
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue()
      blocked.push(url)
      return route.abort()
    })
    page = await context.newPage()
    page.on('request', (r) => requests.push(r.url()))
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text())
    })
    page.on('pageerror', (e) => problems.push(e.message))
    await page.clock.setFixedTime(new Date(NOW))
    await page.goto(pathToFileURL(html).href, {waitUntil: 'load'})
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
  })

  it('shows the numbers of scope --json', async () => {
    const shown: Record<string, string> = Object.fromEntries(await page.$$eval('[data-k]', (els) => els.map((e) => [(e as HTMLElement).dataset.k!, e.textContent!.trim()])))
    const at = (k: string): string => {
      expect(shown[k], `the page shows ${k}`).toBeDefined()
      return shown[k]!
    }
    const int = (text: string): number => Number(text.replace(/,/g, ''))
    for (const k of ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'at_risk_responses']) {
      expect(int(at(k)), k).toBe(scope[k])
    }
    for (const k of ['first_seen', 'last_seen']) expect(shown[k], k).toBe(`${scope[k].slice(0, 10)} ${scope[k].slice(11, 19)} UTC`)
    expect(int(at('flow_pairs'))).toBe(scope.flows.length)
    const [low, high] = at('data_subjects').split('–').map((s: string) => int(s.trim()))
    expect([low, high]).toEqual([scope.data_subjects.low, scope.data_subjects.high])
    expect(scope.contaminated_responses).toBeGreaterThan(0)
    expect(await page.textContent('#verdict')).toContain('Leak confirmed')
  })

  it('makes no network request and runs its script under its Content-Security-Policy', async () => {
    expect(blocked).toEqual([])
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([])
    expect(problems).toEqual([])
    // the script ran (a blocked script would leave the server-side text): a live countdown
    expect(await page.textContent('#clock-now')).toBe('60h 30m left')
  })

  it('filters and sorts the sightings table', async () => {
    const rows = data.sightings.rows as Array<{class: string}>
    const visible = () => page.$$eval('#sightings-table tbody tr', (trs) => trs.filter((tr) => !(tr as HTMLElement).hidden).length)
    expect(await visible()).toBe(rows.length)
    await page.fill('#sightings-search', 'cross_session')
    const crossSession = rows.filter((r) => r.class === 'cross_session').length
    expect(await visible()).toBe(crossSession)
    expect(await page.textContent('#sightings-shown')).toBe(String(crossSession))
    await page.fill('#sightings-search', '')
    await page.click('#sightings-table thead th:nth-child(1) button')
    await page.click('#sightings-table thead th:nth-child(1) button')
    const times = await page.$$eval('#sightings-table tbody tr td:first-child', (tds) => tds.map((td) => td.textContent!))
    expect(times).toEqual([...times].sort().reverse())
    expect(await page.getAttribute('#sightings-table thead th:nth-child(1)', 'aria-sort')).toBe('descending')
  })

  it('hides the controls in print and keeps the charts', async () => {
    await page.emulateMedia({media: 'print'})
    expect(await page.isVisible('nav')).toBe(false)
    expect(await page.isVisible('#sightings-search')).toBe(false)
    expect(await page.isVisible('#timeline svg')).toBe(true)
    expect(await page.isVisible('#flows svg')).toBe(true)
    await page.emulateMedia({media: 'screen'})
  })

  it('takes a screenshot that is not blank', async () => {
    await page.evaluate(() => window.scrollTo(0, 0))
    const png = await page.screenshot({type: 'png'})
    writeFileSync(join(dir, 'case-report.png'), png)
    if (process.env.CROSSTALK_REPORT_SCREENSHOT) copyFileSync(join(dir, 'case-report.png'), process.env.CROSSTALK_REPORT_SCREENSHOT)
    // Decode it in the browser (a canvas reads PNG) and count the colours: a blank or
    // unstyled page has a handful, the report's charts and text have hundreds.
    const other = await browser.newPage()
    const stats = await other.evaluate(async (b64) => {
      const img = new Image()
      img.src = `data:image/png;base64,${b64}`
      await img.decode()
      const canvas = document.createElement('canvas')
      canvas.width = img.width
      canvas.height = img.height
      const ctx = canvas.getContext('2d')!
      ctx.drawImage(img, 0, 0)
      const px = ctx.getImageData(0, 0, img.width, img.height).data
      const colours = new Set<number>()
      let nonWhite = 0
      for (let i = 0; i < px.length; i += 4) {
        colours.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!)
        if (px[i]! < 240 || px[i + 1]! < 240 || px[i + 2]! < 240) nonWhite++
      }
      return {width: img.width, height: img.height, colours: colours.size, inked: nonWhite / (px.length / 4)}
    }, png.toString('base64'))
    await other.close()
    expect(stats.width).toBe(1280)
    expect(stats.colours).toBeGreaterThan(200)
    expect(stats.inked).toBeGreaterThan(0.05)
    expect(readFileSync(join(dir, 'case-report.png')).length).toBeGreaterThan(50_000)
  })
})
