import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {z} from 'zod'
import {article33JsonSchema} from './article33-schema.js'
import {article34Schema} from './article34.js'
import {processorNoticeJsonSchema} from './processor-notice.js'
import {registerEntrySchema} from './register.js'

// The published shape of each report's JSON (schemas/*.schema.json, committed so a change
// in output shows in review). Regenerate: npm run build && node -e "import('./dist/notify/schemas.js').then(m => m.writeSchemas('schemas'))"

export const REPORT_SCHEMAS = {
  article33: article33JsonSchema,
  article34: article34Schema,
  'processor-notice': processorNoticeJsonSchema,
  register: registerEntrySchema,
} as const

export function reportJsonSchema(name: keyof typeof REPORT_SCHEMAS): string {
  return JSON.stringify({$id: `crosstalk/${name}.schema.json`, ...z.toJSONSchema(REPORT_SCHEMAS[name])}, null, 2) + '\n'
}

export function writeSchemas(dir: string): string[] {
  return (Object.keys(REPORT_SCHEMAS) as Array<keyof typeof REPORT_SCHEMAS>).map((name) => {
    const path = join(dir, `${name}.schema.json`)
    writeFileSync(path, reportJsonSchema(name))
    return path
  })
}
