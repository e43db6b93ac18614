import {safeLine} from '../util/sanitize.js'
import type {ProbeResult} from './run-probe.js'

// JUnit XML as CI systems (GitLab, Jenkins, GitHub test reporters) read it: one testcase per
// check, a failure for a failed check, skipped for an inconclusive one.

// Text from the server (an error message, a model's name) is shown as the console shows it
// (safeLine): ESC and BEL as \x1b and \x07, C1 controls, bidi overrides, tag characters and
// other invisible characters as \xNN / \uNNNN. Raw, U+202E reordered the message in a CI web
// view (`\u202egnp.exe` read as `exe.png`) and an OSC 8 hyperlink lost its ESC and BEL without a
// word. After that, XML 1.0 allows tab, LF, CR, U+0020-U+D7FF, U+E000-U+FFFD and U+10000 up:
// U+FFFE, U+FFFF or a lone surrogate becomes U+FFFD, or no parser reads the file and CI loses
// every testcase (safeLine has left no C0 control; the drop stays as the XML rule's guard).
const escapeXml = (text: string): string =>
  safeLine(text)
    .replace(/[<>&"']/g, (ch) => ({'<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;'})[ch]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/[\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

export function renderJunit(result: ProbeResult): string {
  const failures = result.checks.filter((check) => !check.ok && !check.inconclusive).length
  // Checks the run never got to (interrupted, or stopped by a target failure) are skipped cases, so CI shows them.
  const notRun = result.not_run.map((name) => `    <testcase name="${escapeXml(name)}" classname="crosstalk.probe" time="0.000">\n      <skipped message="${escapeXml(`not run: ${result.target_failure ? `the target ${result.target_failure.outcome === 'hung' ? 'hung' : 'failed'} on ${result.target_failure.request}` : 'interrupted'}`)}"/>\n    </testcase>`)
  const skipped = result.checks.filter((check) => check.inconclusive).length + notRun.length
  const tests = result.checks.length + notRun.length
  const cases = result.checks.map((check) => {
    const attrs = `name="${escapeXml(check.name)}" classname="crosstalk.probe" time="${(check.elapsed_ms / 1000).toFixed(3)}"`
    const message = escapeXml(`${check.outcome}: ${check.detail}`)
    if (!check.ok && !check.inconclusive) return `    <testcase ${attrs}>\n      <failure message="${message}" type="${check.outcome}">expected ${escapeXml(check.expected)}, size ${check.size_tokens ?? 'n/a'} tokens</failure>\n    </testcase>`
    if (check.inconclusive) return `    <testcase ${attrs}>\n      <skipped message="${message}"/>\n    </testcase>`
    return `    <testcase ${attrs}/>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crosstalk probe" tests="${tests}" failures="${failures}" skipped="${skipped}" time="${(result.duration_ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${escapeXml(`probe ${result.target}`)}" tests="${tests}" failures="${failures}" skipped="${skipped}" errors="0" timestamp="${result.started_at}" time="${(result.duration_ms / 1000).toFixed(3)}">`,
    ...cases,
    ...notRun,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/**
 * The report of a run that never started (nothing listening, a target refused by the address
 * guard, a bad URL): one errored testcase saying why, so a CI job that reads the file shows the
 * gate's failure instead of a missing report (or an earlier run's stale one, left in place).
 */
export function renderJunitError(target: string, code: string, message: string, startedAt: Date): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="crosstalk probe" tests="1" failures="0" errors="1" skipped="0" time="0.000">',
    `  <testsuite name="${escapeXml(`probe ${target}`)}" tests="1" failures="0" errors="1" skipped="0" timestamp="${startedAt.toISOString()}" time="0.000">`,
    '    <testcase name="target.reachable" classname="crosstalk.probe" time="0.000">',
    `      <error message="${escapeXml(message)}" type="${escapeXml(code)}">the probe did not run: no check was made</error>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}
