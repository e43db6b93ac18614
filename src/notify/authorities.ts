// The supervisory authorities whose forms a draft can be mapped onto.

export const AUTHORITIES = ['edpb', 'ico', 'cnil', 'dpc'] as const
export type Authority = (typeof AUTHORITIES)[number]

export const AUTHORITY_NAMES: Record<Authority, string> = {
  edpb: 'Supervisory authority (EDPB common template, draft v1.0)',
  ico: "Information Commissioner's Office (UK GDPR)",
  cnil: "Commission nationale de l'informatique et des libertés (CNIL)",
  dpc: 'Data Protection Commission (Ireland)',
}
