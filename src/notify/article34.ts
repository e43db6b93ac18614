import {z} from 'zod'
import {detectionSchema, detectionSummary} from './detection-note.js'
import type {CaseFacts} from './facts.js'

// GDPR Art. 34(2): the communication to data subjects, "in clear and plain language",
// with the contact point, likely consequences and measures (Art. 33(3)(b)-(d)), plus what
// people can do themselves (Recital 86). Built from the same facts; no jargon, no ids.

export const article34Schema = z.object({
  kind: z.literal('article34'),
  generated_at: z.string(),
  title: z.string(),
  detection: detectionSchema,
  organisation: z.string().nullable(),
  contact: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  what_happened: z.string(),
  when: z.string(),
  what_data: z.array(z.string()),
  consequences: z.array(z.string()),
  what_we_did: z.array(z.string()),
  what_you_can_do: z.array(z.string()),
  decision: z.string(),
})

/** `crosstalk report article34 --format json` */
export type Article34Result = z.infer<typeof article34Schema>

const PLAIN: Record<string, string> = {
  email: 'your e-mail address',
  phone: 'your phone number',
  iban: 'bank account numbers (IBAN)',
  card: 'payment card numbers',
  ipv4: 'IP addresses',
  ipv6: 'IP addresses',
}

export function buildArticle34(facts: CaseFacts): Article34Result {
  const s = facts.scope
  const inc = facts.incident
  const kinds = [...new Set((s?.categories ?? []).filter((c) => c.count > 0 && PLAIN[c.kind]).map((c) => PLAIN[c.kind]!))]
  const financial = kinds.some((k) => /bank|card/.test(k))
  const a = facts.assessment
  return article34Schema.parse({
    kind: 'article34',
    generated_at: facts.generated_at,
    title: inc?.title ?? 'Personal data incident',
    detection: detectionSummary(facts.detection),
    organisation: inc?.controller_name ?? null,
    contact: {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null},
    what_happened:
      'An AI service we use had a technical fault. For a short time, some answers it gave to one user were built from what another user had typed. Some of what you wrote to our assistant may have been shown to someone else. This was a fault, not an attack.',
    when: s?.first_seen ? `between ${s.first_seen.slice(0, 16).replace('T', ' ')} and ${s.last_seen!.slice(0, 16).replace('T', ' ')} (UTC)` : 'we are still establishing the exact dates',
    what_data: ['what you typed in your conversation with our assistant', ...kinds],
    consequences: [
      'Someone you do not know may have seen part of your conversation.',
      ...(kinds.length > 0 ? ['You may receive fake e-mails or calls that use these details to seem genuine (phishing).'] : []),
      ...(financial ? ['Someone could try to misuse your bank or card details.'] : []),
    ],
    what_we_did: [
      'We found the fault and identified which conversations were affected.',
      'We told the AI provider and asked the organisations that received the answers to delete them.',
      'We have told the data protection authority.',
    ],
    what_you_can_do: [
      'Be careful with unexpected e-mails, messages or calls that mention your conversation; do not click links or give passwords.',
      ...(financial ? ['Check your bank and card statements and tell your bank about anything you do not recognise.'] : []),
      'If you shared a password or other secret in the conversation, change it now.',
      'Contact us with any question (details below).',
    ],
    decision: a ? `${a.decision} (${a.rationale})` : 'not recorded',
  })
}
