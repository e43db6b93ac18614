import {describe, expect, it} from 'vitest'
import {planAssessment, type AssessInputs} from '../../src/notify/assess.js'
import type {Outcome} from '../../src/notify/assessment-store.js'

// The EDPB's own worked examples (Guidelines 01/2021 on Examples regarding Personal Data
// Breach Notification, v2.0, 14 December 2021): for each case, the inputs a DPO would enter
// from the case description (ENISA 2013: DPC base by data category, its context adjustments,
// EI, CB, and the post-score criteria: number of individuals, unintelligible data) and the
// EDPB's conclusion ("Actions necessary": notification to the SA, communication to the data
// subjects). The suggestion must reach the EDPB's conclusion.
//
// document = internal documentation only; notify = also the SA; notify-subjects = SA and data subjects.

interface Example {
  id: string
  what: string
  inputs: Partial<AssessInputs>
  edpb: Outcome
}

const base: AssessInputs = {
  dpc: 1, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false,
  special_categories: false, vulnerable_subjects: false, data_volume_high: false, public_data: false, inaccurate_data: false, unintelligible: false, individuals: null,
}

const EXAMPLES: Example[] = [
  {id: '01', what: 'ransomware, data encrypted at rest (key safe), backup restored within hours, no exfiltration; a few dozen clients and employees',
    inputs: {dpc: 1, cb_availability: 0.25, malicious: true, unintelligible: true, individuals: 40}, edpb: 'document'},
  {id: '02', what: 'ransomware without proper backup, no exfiltration found; employee and customer records rebuilt from paper over days',
    inputs: {dpc: 1, cb_confidentiality: 0.25, cb_availability: 0.25, malicious: true, individuals: 60}, edpb: 'notify'},
  {id: '03', what: 'ransomware in a hospital, backup, no exfiltration, patient data unavailable for two days delaying treatment',
    inputs: {dpc: 4, special_categories: true, cb_availability: 0.25, malicious: true, individuals: 1000}, edpb: 'notify-subjects'},
  {id: '04', what: 'ransomware without backup and with exfiltration at a public transport company, thousands of customers',
    inputs: {dpc: 2, cb_confidentiality: 0.5, cb_availability: 0.5, malicious: true, individuals: 5000}, edpb: 'notify-subjects'},
  {id: '05', what: 'job application data (CVs, contact details) exfiltrated from a website, 213 applicants',
    inputs: {dpc: 1, cb_confidentiality: 0.5, malicious: true, individuals: 213}, edpb: 'notify-subjects'},
  {id: '06', what: 'hashed and salted passwords (state of the art) exfiltrated from a website',
    inputs: {dpc: 1, ei: 0.25, cb_confidentiality: 0.5, malicious: true, unintelligible: true, individuals: 1200}, edpb: 'document'},
  {id: '07', what: 'credential stuffing on a banking website: attackers saw account data of some customers',
    inputs: {dpc: 3, cb_confidentiality: 0.25, malicious: true, individuals: 50}, edpb: 'notify-subjects'},
  {id: '08', what: 'an employee copies the customer database (names, addresses) to use in a competing business',
    inputs: {dpc: 1, cb_confidentiality: 0.25, malicious: true, individuals: 2000}, edpb: 'notify'},
  {id: '09', what: 'customer data sent by mistake to a trusted partner bound to confidentiality, who deleted it',
    inputs: {dpc: 1, cb_confidentiality: 0, individuals: 500}, edpb: 'document'},
  {id: '10', what: 'stolen tablets with encrypted personal data (key not compromised), backup available',
    inputs: {dpc: 1, ei: 0.25, cb_confidentiality: 0.5, malicious: true, unintelligible: true, individuals: 300}, edpb: 'document'},
  {id: '11', what: 'stolen notebook, not encrypted: names, sex, addresses and dates of birth of more than 100,000 customers',
    inputs: {dpc: 1, cb_confidentiality: 0.5, malicious: true, individuals: 100_000}, edpb: 'notify-subjects'},
  {id: '12', what: 'stolen paper log book of a drug rehabilitation centre',
    inputs: {dpc: 4, special_categories: true, vulnerable_subjects: true, cb_confidentiality: 0.5, malicious: true, individuals: 50}, edpb: 'notify-subjects'},
  {id: '13', what: 'two customers each receive the other\'s order and invoice (name, address, items)',
    inputs: {dpc: 1, cb_confidentiality: 0.25, individuals: 2}, edpb: 'document'},
  {id: '14', what: 'job seekers\' register (names, addresses, social security numbers) attached by mistake to an e-mail to all 60,000 of them',
    inputs: {dpc: 3, cb_confidentiality: 0.25, individuals: 60_000}, edpb: 'notify-subjects'},
  {id: '15', what: 'course participant list (names, e-mails, food preferences incl. two intolerances) sent to 15 former participants',
    inputs: {dpc: 2, cb_confidentiality: 0.25, individuals: 15}, edpb: 'notify'},
  {id: '16', what: 'an enveloping machine puts another policyholder\'s car insurance letter in one envelope (name, address, plate, birthdate)',
    inputs: {dpc: 1, cb_confidentiality: 0.25, individuals: 1}, edpb: 'document'},
  {id: '17', what: 'identity theft at a telecom contact centre: an impostor takes over a customer\'s account and call records',
    inputs: {dpc: 2, cb_confidentiality: 0.5, malicious: true, individuals: 1}, edpb: 'notify-subjects'},
  {id: '18', what: 'mailbox rules forward invoices and payment e-mails of a hypermarket chain to an attacker for months; bank details changed',
    inputs: {dpc: 3, cb_confidentiality: 0.5, cb_integrity: 0.25, malicious: true, individuals: 300}, edpb: 'notify-subjects'},
]

describe('the EDPB worked examples (Guidelines 01/2021) reach the EDPB\'s conclusion', () => {
  const now = new Date('2026-11-02T00:00:00.000Z')
  it.each(EXAMPLES)('case $id: $what', (example) => {
    const plan = planAssessment(null, {overrides: {...base, ...example.inputs}, now})
    expect({case: example.id, suggested: plan.suggested}, `SE ${plan.severity.se} (${plan.severity.band})`).toEqual({case: example.id, suggested: example.edpb})
  })

  it('every case is covered, and the adjustments matter: without volume and context the banding alone under-suggests', () => {
    expect(EXAMPLES.map((e) => e.id)).toEqual(Array.from({length: 18}, (_, i) => String(i + 1).padStart(2, '0')))
    const bandOnly = EXAMPLES.filter((e) => planAssessment(null, {overrides: {...base, ...e.inputs, individuals: null, vulnerable_subjects: false, data_volume_high: false}, now: new Date()}).suggested !== e.edpb)
    expect(bandOnly.map((e) => e.id)).toEqual(['05', '08', '11'])
  })
})
