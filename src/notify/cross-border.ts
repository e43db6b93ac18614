// GDPR Art. 4(23)(a): processing "in the context of the activities of establishments in more than one
// Member State of a controller or processor" is cross-border processing (and Art. 56 gives it a lead
// authority). A case that records establishments in two or more Member States and "cross-border: no"
// records two facts that cannot both be right: the drafts give the answer as recorded with the
// contradiction open beside it, and incident set warns. (Art. 4(23)(b), one establishment whose
// processing substantially affects data subjects in several Member States, is a judgement: not checked.)

/** The reference of the Article 33 draft's open item; the forms' cross-border fields find it by it. */
export const CROSS_BORDER_CONTRADICTED = 'Art. 4(23)(a), 56; EDPB template 113'

/** EU Member States and the EEA states that apply the GDPR, by ISO 3166-1 alpha-2 code (EL: Greece as the EU writes it). */
const EEA = new Set(['AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'EL', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO'])

/** The distinct Member States (two-letter codes) a recorded list of establishment countries names; other entries are not counted. */
export function establishmentStates(text: string | null | undefined): string[] {
  const codes = (text ?? '').split(/[\s,;/]+/).map((c) => c.trim().toUpperCase()).filter((c) => EEA.has(c)).map((c) => (c === 'EL' ? 'GR' : c))
  return [...new Set(codes)]
}

/** The Member States of the recorded establishments where "cross-border: no" is recorded beside two or more of them; null otherwise. */
export function crossBorderContradiction(incident: {cross_border?: string | null; establishment_countries?: string | null} | null | undefined): string[] | null {
  if (incident?.cross_border !== 'no') return null
  const states = establishmentStates(incident.establishment_countries)
  return states.length >= 2 ? states : null
}

/** The warning incident set prints for it. */
export function crossBorderWarning(states: readonly string[]): string {
  return `warning: cross-border processing is recorded as "no", but establishments in ${states.length} Member States are recorded (${states.join(', ')}): under GDPR Art. 4(23)(a) that processing is cross-border; the drafts show this as an open item until one is corrected (incident set --cross-border yes, or --establishment-countries ...)`
}
