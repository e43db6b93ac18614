import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {InputError} from '../errors.js'

// Report texts live in templates/*.md so a DPO can reword them without touching code.
// The syntax is a small Mustache subset:
//   {{name}} / {{a.b}}         a value (already escaped by the renderer: never re-scanned)
//   {{#name}}...{{/name}}      shown when truthy; repeated once per item for a list
//   {{^name}}...{{/name}}      shown when falsy or an empty list
// Lines holding only a section tag are dropped, so templates stay readable.

export type ViewValue = string | number | boolean | null | undefined | View | View[] | string[]
export interface View {
  [key: string]: ViewValue
}

/** templates/ shipped with the package; CROSSTALK_TEMPLATES points at an edited copy. */
export function templatesDir(): string {
  return process.env.CROSSTALK_TEMPLATES ?? fileURLToPath(new URL('../../templates/', import.meta.url))
}

export function loadTemplate(name: string): string {
  const path = join(templatesDir(), name)
  if (!existsSync(path)) throw new InputError(`template ${path} not found (set CROSSTALK_TEMPLATES to a folder holding ${name})`)
  return readFileSync(path, 'utf8')
}

type Node = {type: 'text'; text: string} | {type: 'var'; name: string} | {type: 'section'; name: string; inverted: boolean; children: Node[]}

const TAG = /\{\{\s*([#^/]?)\s*([\w.]+)\s*\}\}/g

function parse(template: string): Node[] {
  // Standalone section tags swallow their own line.
  const src = template.replace(/^[ \t]*(\{\{\s*[#^/]\s*[\w.]+\s*\}\})[ \t]*\r?\n/gm, '$1')
  const root: Node[] = []
  const stack: Array<{name: string; children: Node[]}> = [{name: '', children: root}]
  let last = 0
  for (const m of src.matchAll(TAG)) {
    const top = stack.at(-1)!
    if (m.index > last) top.children.push({type: 'text', text: src.slice(last, m.index)})
    last = m.index + m[0].length
    const [, sigil, name] = m as unknown as [string, string, string]
    if (sigil === '#' || sigil === '^') {
      const node: Node = {type: 'section', name, inverted: sigil === '^', children: []}
      top.children.push(node)
      stack.push({name, children: node.children})
    } else if (sigil === '/') {
      if (stack.length === 1 || top.name !== name) throw new InputError(`template: {{/${name}}} closes nothing open`)
      stack.pop()
    } else top.children.push({type: 'var', name})
  }
  if (stack.length > 1) throw new InputError(`template: {{#${stack.at(-1)!.name}}} is never closed`)
  if (last < src.length) stack[0]!.children.push({type: 'text', text: src.slice(last)})
  return root
}

function lookup(contexts: ViewValue[], name: string): ViewValue {
  if (name === '.') return contexts.at(-1)
  const [head, ...rest] = name.split('.')
  for (let i = contexts.length - 1; i >= 0; i--) {
    const ctx = contexts[i]
    if (ctx && typeof ctx === 'object' && !Array.isArray(ctx) && head! in ctx) {
      let value: ViewValue = (ctx as View)[head!]
      for (const key of rest) value = value && typeof value === 'object' && !Array.isArray(value) ? (value as View)[key] : undefined
      return value
    }
  }
  return undefined
}

function truthy(v: ViewValue): boolean {
  return Array.isArray(v) ? v.length > 0 : Boolean(v) || v === 0
}

/** What a null or absent value renders as: one text, or one per variable name. */
export type Missing = string | ((name: string) => string)

function renderNodes(nodes: Node[], contexts: ViewValue[], missing: Missing): string {
  let out = ''
  for (const node of nodes) {
    if (node.type === 'text') out += node.text
    else if (node.type === 'var') {
      const v = lookup(contexts, node.name)
      out += v === null || v === undefined ? (typeof missing === 'string' ? missing : missing(node.name)) : typeof v === 'object' ? '' : String(v)
    } else {
      const v = lookup(contexts, node.name)
      if (node.inverted) {
        if (!truthy(v)) out += renderNodes(node.children, contexts, missing)
      } else if (Array.isArray(v)) {
        for (const item of v) out += renderNodes(node.children, [...contexts, item], missing)
      } else if (truthy(v)) out += renderNodes(node.children, typeof v === 'object' ? [...contexts, v] : contexts, missing)
    }
  }
  return out
}

/** `missing` is what a null or absent value renders as (e.g. "_not yet known_"), or a function of the variable's name. */
export function renderTemplate(template: string, view: View, missing: Missing = ''): string {
  // Sections left out leave their blank lines behind: one blank line is all Markdown reads, and all a reader of the text wants.
  return renderNodes(parse(template), [view], missing).replace(/\n{3,}/g, '\n\n')
}
