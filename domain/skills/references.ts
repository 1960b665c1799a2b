// Reference entries behind the skills (specification, 'Skill result and references'): the
// specification's 13 entries, 5 verified (fda_2005_mrsd, ema_2017_fih, ich_m3r2, assertion_model,
// sop_binding_rule) and 8 still to_verify (pk_golden_synthetic_one_compartment and the seven R5
// entries). The two published NCA datasets are not guidance references: they are the NCA skill's
// validation record (validation.ts), shown beside the skill's status.
//
// Hashes:
// - `sha256` is the sha256 of the retrieved document. It is null for every to_verify entry (nothing
//   has been retrieved and checked yet) and for the three external verified guidances, whose files
//   are not held in this repository: record the hash of the retrieved PDF here when the file is
//   archived. `referenceCheck` lists these as advisory notes, never as blocking problems.
// - For the two internal entries (assertion_model, sop_binding_rule) the reference *is* its
//   constants, so `sha256` is the sha256 of the RFC 8785 canonical JSON of the constants.
// - `constants_sha256` (every entry with constants) lets a reviewer detect any change to the values
//   transcribed from the document (for example the km table of FDA 2005 Table 1).
//
// Dates are ISO calendar dates and fixed: they are data, never read from a clock.

import { canonicalSha256 } from './hash'
import recordedHashes from './reference-hashes.json' with { type: 'json' }

export type ReferenceStatus = 'verified' | 'to_verify'

export interface Supersession {
  /** What replaced this document, when it has been replaced (a result computed under it says so). */
  superseded_by: string | null
  /** What this document replaced. */
  supersedes: string | null
}

export interface ReferenceEntry {
  key: string
  title: string
  publisher: string
  url: string | null
  sha256: string | null
  retrieved_on: string
  version: string
  supersession: Supersession | null
  constants: Readonly<Record<string, unknown>> | null
  constants_sha256: string | null
  status: ReferenceStatus
  /** Short name used in method lines: 'Method: <name> (<citation_label>, retrieved <date>), version n'. */
  citation_label: string
  release: 'R4' | 'R5'
  note: string | null
}

// ---------------------------------------------------------------------------------------------
// FDA (2005) Table 1: 'Conversion of Animal Doses to Human Equivalent Doses Based on Body Surface
// Area'. km = body weight (kg) / body surface area (m2). `table1_divide_by` and `table1_multiply_by`
// are the guidance's rounded columns (37/km and km/37); the skills use the km ratio itself.
// Footnote b of the table gives cynomolgus, rhesus and stumptail as examples of 'monkeys'.
// ---------------------------------------------------------------------------------------------
export interface KmRow {
  species: string
  label: string
  reference_body_weight_kg: number
  working_weight_range_kg: readonly [number, number] | null
  body_surface_area_m2: number
  km: number
  table1_divide_by: number | null
  table1_multiply_by: number | null
}

export const FDA_2005_KM_TABLE: readonly KmRow[] = Object.freeze([
  { species: 'human', label: 'Human (adult)', reference_body_weight_kg: 60, working_weight_range_kg: null, body_surface_area_m2: 1.62, km: 37, table1_divide_by: null, table1_multiply_by: null },
  { species: 'mouse', label: 'Mouse', reference_body_weight_kg: 0.02, working_weight_range_kg: [0.011, 0.034], body_surface_area_m2: 0.007, km: 3, table1_divide_by: 12.3, table1_multiply_by: 0.08 },
  { species: 'hamster', label: 'Hamster', reference_body_weight_kg: 0.08, working_weight_range_kg: [0.047, 0.157], body_surface_area_m2: 0.016, km: 5, table1_divide_by: 7.4, table1_multiply_by: 0.13 },
  { species: 'rat', label: 'Rat', reference_body_weight_kg: 0.15, working_weight_range_kg: [0.08, 0.27], body_surface_area_m2: 0.025, km: 6, table1_divide_by: 6.2, table1_multiply_by: 0.16 },
  { species: 'ferret', label: 'Ferret', reference_body_weight_kg: 0.3, working_weight_range_kg: [0.16, 0.54], body_surface_area_m2: 0.043, km: 7, table1_divide_by: 5.3, table1_multiply_by: 0.19 },
  { species: 'guinea_pig', label: 'Guinea pig', reference_body_weight_kg: 0.4, working_weight_range_kg: [0.208, 0.7], body_surface_area_m2: 0.05, km: 8, table1_divide_by: 4.6, table1_multiply_by: 0.22 },
  { species: 'rabbit', label: 'Rabbit', reference_body_weight_kg: 1.8, working_weight_range_kg: [0.9, 3], body_surface_area_m2: 0.15, km: 12, table1_divide_by: 3.1, table1_multiply_by: 0.32 },
  { species: 'dog', label: 'Dog', reference_body_weight_kg: 10, working_weight_range_kg: [5, 17], body_surface_area_m2: 0.5, km: 20, table1_divide_by: 1.8, table1_multiply_by: 0.54 },
  { species: 'monkey', label: 'Monkey (e.g. cynomolgus, rhesus, stumptail)', reference_body_weight_kg: 3, working_weight_range_kg: [1.4, 4.9], body_surface_area_m2: 0.25, km: 12, table1_divide_by: 3.1, table1_multiply_by: 0.32 },
  { species: 'marmoset', label: 'Marmoset', reference_body_weight_kg: 0.35, working_weight_range_kg: [0.14, 0.72], body_surface_area_m2: 0.06, km: 6, table1_divide_by: 6.2, table1_multiply_by: 0.16 },
  { species: 'squirrel_monkey', label: 'Squirrel monkey', reference_body_weight_kg: 0.6, working_weight_range_kg: [0.29, 0.97], body_surface_area_m2: 0.09, km: 7, table1_divide_by: 5.3, table1_multiply_by: 0.19 },
  { species: 'baboon', label: 'Baboon', reference_body_weight_kg: 12, working_weight_range_kg: [7, 23], body_surface_area_m2: 0.6, km: 20, table1_divide_by: 1.8, table1_multiply_by: 0.54 },
  { species: 'micro_pig', label: 'Micro-pig', reference_body_weight_kg: 20, working_weight_range_kg: [10, 33], body_surface_area_m2: 0.74, km: 27, table1_divide_by: 1.4, table1_multiply_by: 0.73 },
  { species: 'mini_pig', label: 'Mini-pig', reference_body_weight_kg: 40, working_weight_range_kg: [25, 64], body_surface_area_m2: 1.14, km: 35, table1_divide_by: 1.1, table1_multiply_by: 0.95 },
] satisfies KmRow[])

// ---------------------------------------------------------------------------------------------
// assertion_model: the assertion kinds and the deterministic rules evidence.assertion_lint applies.
// Patterns are JavaScript regular expression sources; flags are given per rule. Rules are tried in
// order; the first rule that matches a sentence decides its kind.
// ---------------------------------------------------------------------------------------------
export interface AssertionKind {
  key: string
  label: string
  definition: string
  requires_citation: boolean
}
export interface PatternRule {
  id: string
  kind?: string
  pattern: string
  flags: string
  description: string
}

export const ASSERTION_MODEL = Object.freeze({
  version: '1',
  kinds: [
    { key: 'observation', label: 'Observation', definition: 'What was measured or seen, stated without a claim about cause or meaning.', requires_citation: false },
    { key: 'interpretation', label: 'Interpretation', definition: 'What an observation is claimed to mean: cause, mechanism, significance or a conclusion drawn from data.', requires_citation: true },
    { key: 'hypothesis', label: 'Hypothesis', definition: 'A proposition put forward to be tested, marked by explicit or hedged language.', requires_citation: false },
    { key: 'recommendation', label: 'Recommendation', definition: 'A proposed action or next step.', requires_citation: false },
    { key: 'limitation', label: 'Limitation', definition: 'A caveat on the data, the method or the scope of a claim.', requires_citation: false },
    { key: 'question', label: 'Question', definition: 'An open question.', requires_citation: false },
    { key: 'statement', label: 'Unclassified statement', definition: 'A sentence no rule classifies.', requires_citation: false },
  ] satisfies AssertionKind[],
  sentence_rules: [
    'Paragraph breaks (a blank line) and list items (a line starting with -, * or a number followed by . or )) start a new sentence.',
    "A sentence ends at '.', '!' or '?' (optionally followed by closing quotes or brackets) when whitespace and then an upper-case letter, a digit, '[', '(' or a quote follow.",
    "No split after these abbreviations: e.g., i.e., et al., Fig., Figs., vs., approx., ca., cf., Dr., No., Ref., Refs., Eq., Tab., Suppl., resp., incl.",
    'A fragment made only of citation markers is attached to the sentence before it.',
  ],
  abbreviations: ['e.g', 'i.e', 'et al', 'fig', 'figs', 'vs', 'approx', 'ca', 'cf', 'dr', 'no', 'ref', 'refs', 'eq', 'tab', 'suppl', 'resp', 'incl'],
  kind_rules: [
    { id: 'Q1', kind: 'question', pattern: '\\?["\'\\)\\]]*\\s*$', flags: '', description: 'ends with a question mark' },
    { id: 'L1', kind: 'limitation', pattern: '\\b(limitations?|limited by|caveats?|interpreted with caution|with caution|small sample|not powered|underpowered|cannot (?:be )?(?:excluded?|ruled? out)|cannot rule out|was not (?:assessed|measured|tested)|were not (?:assessed|measured|tested)|did not (?:assess|measure|test)|uncertain(?:ty)?)\\b', flags: 'i', description: 'names a caveat or a gap in the data' },
    { id: 'R1', kind: 'recommendation', pattern: '\\b(we|i) (?:recommend|suggest|advise)\\b|\\bwe propose to\\b|\\b(?:should|must|ought to|needs? to|recommended|recommendation)\\b', flags: 'i', description: 'proposes an action (recommend, suggest, should, must, need to)' },
    { id: 'R2', kind: 'recommendation', pattern: '^(?:consider|use|run|repeat|add|include|prioriti[sz]e|test|measure|confirm|check|obtain|schedule)\\b', flags: 'i', description: 'starts with an imperative verb' },
    { id: 'H1', kind: 'hypothesis', pattern: '\\b(hypothes[ie][sz]e[ds]?|hypothesis|hypotheses|we (?:propose|speculate|predict|postulate|expect) that|it is possible that|is predicted to|are predicted to)\\b', flags: 'i', description: 'explicit hypothesis language' },
    { id: 'I1', kind: 'interpretation', pattern: '\\b(suggests?|suggesting|suggested that|indicates?|indicating|indicated that|implies|implying|implied that|demonstrates?|demonstrating|demonstrated that|shows? that|showed that|shown that|confirms?|confirming|consistent with|in line with|due to|because|owing to|caused by|causes?|driven by|attributable to|attributed to|mediated by|results? in|resulted in|leads? to|led to|reflects?|reflecting|explains?|explained by|therefore|thus|hence|supports?|supporting|likely|unlikely|evidence (?:that|for)|responsible for|mechanism)\\b', flags: 'i', description: 'claims a cause, mechanism, meaning or conclusion' },
    { id: 'H2', kind: 'hypothesis', pattern: '\\b(may|might|could|perhaps|possibly|potentially)\\b', flags: 'i', description: 'hedged proposition (may, might, could, perhaps)' },
    { id: 'O1', kind: 'observation', pattern: '\\b(observed|measured|detected|recorded|found|seen|noted|quantified|reached|increased|decreased|reduced|elevated|declined|rose|fell|ranged|remained|was|were)\\b', flags: 'i', description: 'reports a measurement or an event' },
    { id: 'O2', kind: 'observation', pattern: '\\d', flags: '', description: 'contains a numeric value' },
  ] satisfies PatternRule[],
  fallback: { id: 'U0', kind: 'statement', description: 'no rule matched' },
  citation_markers: [
    { id: 'C1', pattern: '\\[\\d+(?:\\s*[-\u2013,]\\s*\\d+)*\\]', flags: 'g', description: 'numeric marker: [1], [1,2], [1-3]' },
    { id: 'C2', pattern: '\\[[^\\]]*@[A-Za-z0-9_][^\\]\\s;]*[^\\]]*\\]', flags: 'g', description: 'citation key marker: [@key], [@a; @b], [see @key p. 3]' },
    { id: 'C3', pattern: '\\(?\\bdoi:\\s*10\\.\\d{4,9}/[^\\s\\)]+\\)?|https?://(?:dx\\.)?doi\\.org/10\\.\\d{4,9}/[^\\s\\)]+', flags: 'gi', description: 'DOI: (doi:10.xxxx/...) or https://doi.org/10.xxxx/...' },
    { id: 'C4', pattern: '\\bPMID:?\\s*\\d+', flags: 'gi', description: 'PubMed identifier: PMID: 123456' },
    { id: 'C5', pattern: '\\([A-Z][A-Za-z\'\u2019-]+(?: et al\\.?| (?:and|&) [A-Z][A-Za-z\'\u2019-]+)?,? (?:19|20)\\d{2}[a-z]?\\)', flags: 'g', description: 'author-year marker: (Smith et al., 2020)' },
  ] satisfies PatternRule[],
  flag_rule: 'A sentence of a kind whose requires_citation is true (interpretation) and that carries no citation marker is flagged as an uncited interpretation.',
})

// ---------------------------------------------------------------------------------------------
// sop_binding_rule: which SOP versions bind a check (Connector Layer Specification, QMS/SOP rule 4:
// 'Only effective versions bind checks') and when a requirement counts as met.
// ---------------------------------------------------------------------------------------------
export const SOP_LIFECYCLE_STATES = ['draft', 'in_review', 'effective', 'superseded', 'obsolete', 'unmapped'] as const
export type SopLifecycleState = (typeof SOP_LIFECYCLE_STATES)[number]

export const SOP_BINDING_RULE = Object.freeze({
  version: '1',
  rule: 'Only effective SOP versions bind checks.',
  binding_lifecycle_states: ['effective'],
  non_binding_lifecycle_states: ['draft', 'in_review', 'superseded', 'obsolete', 'unmapped'],
  on_non_binding_anchor: 'refuse: the requirement set must be re-accepted against the effective SOP version (invalid_input on the anchor field)',
  requirement_met_rule:
    'A requirement is met when the check presents at least min_evidence (default 1) evidence items linked to it; when the requirement lists accepted evidence kinds, only items of those kinds count.',
  anchor_format: '<document_number> v<version> §<section>',
})

// ---------------------------------------------------------------------------------------------
// pk_golden_synthetic_one_compartment: a synthetic oral one-compartment profile with first-order
// absorption proposed as the NCA golden case. Status to_verify: the parameters are this
// repository's proposal and have not been checked against a published dataset, so the NCA skill
// would stay designed (specification) while it cited this entry; since issue 30 it is validated
// against two published datasets instead (validation.ts), and this entry stays to_verify and unreferenced.
// C(t) = F*Dose*ka / (V*(ka-ke)) * (exp(-ke t) - exp(-ka t)); AUCinf = F*Dose/(V*ke).
// ---------------------------------------------------------------------------------------------
export const PK_GOLDEN_SYNTHETIC = Object.freeze({
  model: 'one-compartment, first-order absorption, single extravascular dose at time 0',
  dose_mg: 100,
  bioavailability: 1,
  volume_l: 25,
  ka_per_h: 1.2,
  ke_per_h: Math.LN2 / 6,
  times_h: [0, 0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 36, 48],
  concentration_unit: 'mg/L',
  time_unit: 'h',
})

const NO_HASH_EXTERNAL = 'Document hash not recorded in this repository: record the sha256 of the archived PDF.'
const NO_HASH_TO_VERIFY = 'to_verify: nothing retrieved and checked yet, so no sha256.'

/** One recorded document hash (reference-hashes.json, written by `npm run references:hash -- --record`). */
export interface RecordedDocumentHash {
  sha256: string
  file: string
  recorded_on: string
}
export const RECORDED_DOCUMENT_HASHES: Readonly<Record<string, RecordedDocumentHash>> = recordedHashes.hashes

// An entry whose own sha256 is null takes the hash the operator recorded for its document, if any.
function entry(e: Omit<ReferenceEntry, 'constants_sha256'>): ReferenceEntry {
  const sha256 = e.sha256 ?? RECORDED_DOCUMENT_HASHES[e.key]?.sha256 ?? null
  const note = sha256 && e.note === NO_HASH_EXTERNAL ? null : e.note
  return Object.freeze({ ...e, sha256, note, constants_sha256: e.constants ? canonicalSha256(e.constants) : null })
}

/**
 * How a reference's status reads wherever it is shown: a verified reference whose document hash is not
 * recorded says so plainly, so nobody takes 'verified' to mean the document on file was hashed.
 */
export function referenceStatusLine(r: Pick<ReferenceEntry, 'status' | 'sha256'>): string {
  if (r.status === 'to_verify') return 'to verify: not yet retrieved and checked'
  return r.sha256 ? `verified; document sha256 ${r.sha256}` : 'verified; document hash not recorded'
}

export const REFERENCES: readonly ReferenceEntry[] = Object.freeze([
  entry({
    key: 'fda_2005_mrsd',
    title: 'Guidance for Industry: Estimating the Maximum Safe Starting Dose in Initial Clinical Trials for Therapeutics in Adult Healthy Volunteers',
    publisher: 'U.S. FDA, CDER',
    url: 'https://www.fda.gov/media/72309/download',
    sha256: null,
    retrieved_on: '2026-09-15',
    version: 'July 2005 (Pharmacology and Toxicology)',
    supersession: { superseded_by: null, supersedes: 'Draft guidance, December 2002' },
    constants: {
      km_table: FDA_2005_KM_TABLE,
      human_km: 37,
      human_reference_body_weight_kg: 60,
      default_safety_factor: 10,
      allometric_exponent: 0.33,
      hed_formula_km: 'HED (mg/kg) = animal dose (mg/kg) x (animal km / human km)',
      hed_formula_weight: 'HED (mg/kg) = animal dose (mg/kg) x (animal weight kg / human weight kg)^0.33',
      mg_per_m2_conversion: 'dose (mg/kg) = dose (mg/m2) / km',
    },
    status: 'verified',
    citation_label: 'FDA 2005 MRSD guidance, July 2005',
    release: 'R4',
    note: NO_HASH_EXTERNAL,
  }),
  entry({
    key: 'ema_2017_fih',
    title: 'Guideline on strategies to identify and mitigate risks for first-in-human and early clinical trials with investigational medicinal products',
    publisher: 'European Medicines Agency, CHMP',
    url: 'https://www.ema.europa.eu/en/documents/scientific-guideline/guideline-strategies-identify-mitigate-risks-first-human-early-clinical-trials-investigational_en.pdf',
    sha256: null,
    retrieved_on: '2026-09-15',
    version: 'EMEA/CHMP/SWP/28367/07 Rev. 1 (adopted 20 July 2017, effective 1 February 2018)',
    supersession: { superseded_by: null, supersedes: 'EMEA/CHMP/SWP/28367/07 (2007)' },
    constants: {
      starting_dose_approaches: ['NOAEL-based (HED with safety factor)', 'MABEL', 'PAD', 'exposure-based (PK/PD modelling)'],
      note: 'The guideline expects all relevant approaches to be considered; this repository computes only the NOAEL/HED route.',
    },
    status: 'verified',
    citation_label: 'EMA FIH guideline, Rev. 1 (2017)',
    release: 'R4',
    note: NO_HASH_EXTERNAL,
  }),
  entry({
    key: 'ich_m3r2',
    title: 'ICH M3(R2): Guidance on Nonclinical Safety Studies for the Conduct of Human Clinical Trials and Marketing Authorization for Pharmaceuticals',
    publisher: 'ICH',
    url: 'https://database.ich.org/sites/default/files/M3_R2__Guideline.pdf',
    sha256: null,
    retrieved_on: '2026-09-16',
    version: 'M3(R2), Step 4, 11 June 2009',
    supersession: { superseded_by: null, supersedes: 'M3(R1), November 2000' },
    constants: {
      exposure_margin_definition: 'fold = animal exposure at the NOAEL / projected human exposure, per endpoint (AUC, Cmax)',
    },
    status: 'verified',
    citation_label: 'ICH M3(R2), Step 4 2009',
    release: 'R4',
    note: NO_HASH_EXTERNAL,
  }),
  entry({
    key: 'assertion_model',
    title: 'Assertion model for evidence drafts (kinds, tagging rules, citation markers)',
    publisher: 'this service',
    url: null,
    sha256: canonicalSha256(ASSERTION_MODEL),
    retrieved_on: '2026-10-01',
    version: '1',
    supersession: null,
    constants: ASSERTION_MODEL,
    status: 'verified',
    citation_label: 'assertion model v1',
    release: 'R4',
    note: 'Internal reference: sha256 is the hash of the canonical JSON of its constants.',
  }),
  entry({
    key: 'sop_binding_rule',
    title: 'SOP binding rule: only effective SOP versions bind checks',
    publisher: 'this service (Connector Layer Specification, QMS/SOP rule 4)',
    url: null,
    sha256: canonicalSha256(SOP_BINDING_RULE),
    retrieved_on: '2026-10-01',
    version: '1',
    supersession: null,
    constants: SOP_BINDING_RULE,
    status: 'verified',
    citation_label: 'SOP binding rule v1',
    release: 'R4',
    note: 'Internal reference: sha256 is the hash of the canonical JSON of its constants.',
  }),
  entry({
    key: 'pk_golden_synthetic_one_compartment',
    title: 'Synthetic one-compartment oral profile for the NCA golden test',
    publisher: 'this service',
    url: null,
    sha256: null,
    retrieved_on: '2026-10-01',
    version: 'draft 1',
    supersession: null,
    constants: PK_GOLDEN_SYNTHETIC,
    status: 'to_verify',
    citation_label: 'synthetic one-compartment golden profile (to verify)',
    release: 'R4',
    note: NO_HASH_TO_VERIFY + ' Superseded as the NCA golden case by the published datasets of the validation record of the NCA skill (nca_golden_theoph, nca_golden_indometh); no skill references it.',
  }),
  // ---- R5 entries: all to_verify, sha256 null (not yet retrieved and checked); URLs to confirm. ----
  entry({
    key: 'ich_m10',
    title: 'ICH M10: Bioanalytical Method Validation and Study Sample Analysis',
    publisher: 'ICH',
    url: 'https://database.ich.org/sites/default/files/M10_Guideline_Step4_2022_0524.pdf',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'Step 4, 24 May 2022',
    supersession: null,
    constants: null,
    status: 'to_verify',
    citation_label: 'ICH M10 (2022)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY,
  }),
  entry({
    key: 'ich_q1a_r2',
    title: 'ICH Q1A(R2): Stability Testing of New Drug Substances and Products',
    publisher: 'ICH',
    url: 'https://database.ich.org/sites/default/files/Q1A%28R2%29%20Guideline.pdf',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'Q1A(R2), Step 4, 6 February 2003',
    supersession: { superseded_by: null, supersedes: 'Q1A(R1)' },
    constants: null,
    status: 'to_verify',
    citation_label: 'ICH Q1A(R2) (2003)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY + ' Check the status of the consolidated ICH Q1 revision before use.',
  }),
  entry({
    key: 'ich_q2_r2_q14',
    title: 'ICH Q2(R2) Validation of Analytical Procedures and ICH Q14 Analytical Procedure Development',
    publisher: 'ICH',
    url: 'https://www.ich.org/page/quality-guidelines',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'Q2(R2) and Q14, Step 4, 1 November 2023',
    supersession: { superseded_by: null, supersedes: 'Q2(R1)' },
    constants: null,
    status: 'to_verify',
    citation_label: 'ICH Q2(R2)/Q14 (2023)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY,
  }),
  entry({
    key: 'ich_q9_r1_m4q_r1',
    title: 'ICH Q9(R1) Quality Risk Management and ICH M4Q(R1) CTD Quality',
    publisher: 'ICH',
    url: 'https://www.ich.org/page/quality-guidelines',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'Q9(R1) Step 4 18 January 2023; M4Q(R1) Step 4 12 September 2002',
    supersession: { superseded_by: null, supersedes: 'Q9 (2005)' },
    constants: null,
    status: 'to_verify',
    citation_label: 'ICH Q9(R1)/M4Q(R1)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY + ' Check the status of the M4Q(R2) revision before use.',
  }),
  entry({
    key: 'fda_oos_2022',
    title: 'Investigating Out-of-Specification (OOS) Test Results for Pharmaceutical Production, Guidance for Industry',
    publisher: 'U.S. FDA, CDER',
    url: 'https://www.fda.gov/media/158416/download',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'Revision 1, May 2022',
    supersession: { superseded_by: null, supersedes: 'October 2006 guidance' },
    constants: null,
    status: 'to_verify',
    citation_label: 'FDA OOS guidance, Rev. 1 (2022)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY,
  }),
  entry({
    key: 'data_integrity_guidances',
    title: 'Data integrity guidances: FDA Data Integrity and Compliance With Drug CGMP Q&A; MHRA GXP Data Integrity Guidance and Definitions; PIC/S PI 041-1',
    publisher: 'U.S. FDA; MHRA; PIC/S',
    url: 'https://www.fda.gov/media/119267/download',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'FDA December 2018; MHRA March 2018 (Rev. 1); PIC/S PI 041-1 July 2021',
    supersession: null,
    constants: {
      alcoa_plus: ['attributable', 'legible', 'contemporaneous', 'original', 'accurate', 'complete', 'consistent', 'enduring', 'available'],
    },
    status: 'to_verify',
    citation_label: 'data integrity guidances (FDA 2018, MHRA 2018, PIC/S 2021)',
    release: 'R5',
    note: NO_HASH_TO_VERIFY,
  }),
  entry({
    key: 'cfr_312_23',
    title: '21 CFR 312.23 IND content and format',
    publisher: 'U.S. Code of Federal Regulations (eCFR)',
    url: 'https://www.ecfr.gov/current/title-21/chapter-I/subchapter-D/part-312/subpart-B/section-312.23',
    sha256: null,
    retrieved_on: '2026-10-05',
    version: 'eCFR text current at retrieval',
    supersession: null,
    constants: null,
    status: 'to_verify',
    citation_label: '21 CFR 312.23',
    release: 'R5',
    note: NO_HASH_TO_VERIFY,
  }),
])

const BY_KEY: ReadonlyMap<string, ReferenceEntry> = new Map(REFERENCES.map((r) => [r.key, r]))

export function getReference(key: string, refs: readonly ReferenceEntry[] = REFERENCES): ReferenceEntry | undefined {
  if (refs === REFERENCES) return BY_KEY.get(key)
  return refs.find((r) => r.key === key)
}

export function requireReference(key: string, refs: readonly ReferenceEntry[] = REFERENCES): ReferenceEntry {
  const r = getReference(key, refs)
  if (!r) throw new Error(`unknown reference ${key}`)
  return r
}

/** The reference summary carried by SkillOut.references[] and SkillResult.reference_refs[]. */
export interface ReferenceRef {
  key: string
  version: string
  retrieved_on: string
  status: ReferenceStatus
  superseded_by: string | null
}

export function referenceRef(key: string, refs: readonly ReferenceEntry[] = REFERENCES): ReferenceRef {
  const r = requireReference(key, refs)
  return {
    key: r.key,
    version: r.version,
    retrieved_on: r.retrieved_on,
    status: r.status,
    superseded_by: r.supersession?.superseded_by ?? null,
  }
}

/**
 * Specification, Versioning: 'a table computed under a superseded reference says so'. Returns the
 * warning text for one reference, or null when it has not been superseded.
 */
export function supersessionWarning(ref: ReferenceEntry): string | null {
  const by = ref.supersession?.superseded_by
  if (!by) return null
  return `Computed under ${ref.citation_label} (${ref.version}, retrieved ${ref.retrieved_on}), which has been superseded by ${by}. Check the result against the current document before use.`
}

export function supersessionWarnings(keys: readonly string[], refs: readonly ReferenceEntry[] = REFERENCES): string[] {
  const out: string[] = []
  for (const k of keys) {
    const w = supersessionWarning(requireReference(k, refs))
    if (w) out.push(w)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Reference check (API check and release check): fails when a skill whose status is preview or
// available references a to_verify entry (or an unknown entry). Verified entries without a
// document hash are reported as advisory notes and do not fail the check.
// ---------------------------------------------------------------------------------------------
export interface ReferenceCheckSkill {
  key: string
  status: string
  references: ReadonlyArray<{ key: string }>
}
export interface ReferenceProblem {
  skill_key: string
  reference_key: string
  reason: 'to_verify_reference' | 'unknown_reference'
  message: string
}
export interface ReferenceCheckResult {
  ok: boolean
  problems: ReferenceProblem[]
  /** Non-blocking: verified entries whose document hash is still to be recorded. */
  advisories: string[]
  verified_count: number
  total_count: number
}

export function referenceCheck(
  skills: readonly ReferenceCheckSkill[],
  refs: readonly ReferenceEntry[] = REFERENCES,
): ReferenceCheckResult {
  const problems: ReferenceProblem[] = []
  for (const s of skills) {
    if (s.status !== 'preview' && s.status !== 'available') continue
    for (const { key } of s.references) {
      const r = getReference(key, refs)
      if (!r) {
        problems.push({ skill_key: s.key, reference_key: key, reason: 'unknown_reference', message: `${s.key} (${s.status}) references unknown entry ${key}` })
      } else if (r.status !== 'verified') {
        problems.push({
          skill_key: s.key,
          reference_key: key,
          reason: 'to_verify_reference',
          message: `${s.key} is ${s.status} but references ${key}, which is still to_verify`,
        })
      }
    }
  }
  const advisories = refs
    .filter((r) => r.status === 'verified' && r.sha256 === null)
    .map((r) => `${r.key}: verified, document sha256 not recorded yet`)
  return {
    ok: problems.length === 0,
    problems,
    advisories,
    verified_count: refs.filter((r) => r.status === 'verified').length,
    total_count: refs.length,
  }
}
