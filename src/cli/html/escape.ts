import {safeLine, visibleControlsLine} from '../../util/sanitize.js'

// Every string that reaches the page goes through esc(): log-derived text can hold markup
// ("<script>", a closing </table>) and terminal or bidi control characters. The controls
// are made visible first, exactly as the terminal views show them (\x1b, \u202e), then the
// five HTML metacharacters are escaped, so the result is safe in text and in quoted
// attribute values alike.

const ENTITY: Record<string, string> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}

export function esc(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return ''
  return safeLine(String(value)).replace(/[&<>"']/g, (ch) => ENTITY[ch]!)
}

/**
 * esc() for text already in shown form (a draft's facts: incident, evidence names, replay and
 * open-item sentences went through safeLine there): raw controls only are made visible, so the
 * backslashes safeLine doubled are not doubled again.
 */
export function escShown(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return ''
  return visibleControlsLine(String(value)).replace(/[&<>"']/g, (ch) => ENTITY[ch]!)
}

/** A whole number as people read it (1,234), or "–" when unknown. */
export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en-US')
}

/** A count and its noun as people read them: "1 record", "1,234 records". */
export function nums(value: number, singular: string, plural = `${singular}s`): string {
  return `${num(value)} ${value === 1 ? singular : plural}`
}

/** An ISO timestamp as "2026-11-01 05:00:12 UTC" (the report is in UTC throughout). */
export function utc(iso: string | null | undefined): string {
  return iso ? esc(`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`) : '–'
}
