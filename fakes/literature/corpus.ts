// The fake literature sources' corpus: a few illustrative works on the illustrative program's topic (an allosteric
// kinase inhibitor series, its hERG liability and its tox species), with licences of every kind, identifiers shared
// across sources, a preprint with a published successor, and an open_access flag that contradicts the licence (which
// the connector must never read). Every title is labelled illustrative.

export interface FakeWork {
  doi: string | null
  pmid: string | null
  pmcid: string | null
  ppr: string | null
  wid: string
  title: string
  abstract: string
  year: number
  journal: string
  /** The index's license field (core results); undefined: the record has none. */
  indexLicense?: string
  /** The citation graph's locations' licences and its open_access flag (never to be read for licence). */
  primaryLicense: string | null
  bestOaLicense: string | null
  openAccess: { is_oa: boolean; oa_status: string }
  /** Archive bucket metadata for the PMCID (license_code, is_pmc_openaccess, is_manuscript). */
  archive?: { license_code: string | null; is_pmc_openaccess: boolean; is_manuscript: boolean }
  /** PPR records: the published version's ids. */
  successor?: { pmid?: string; doi?: string }
  citedBy: number
  fullText?: string
}

const I = (t: string) => `Illustrative: ${t}`

export const CORPUS: readonly FakeWork[] = [
  {
    doi: '10.5555/ill.2024.001', pmid: '39000001', pmcid: 'PMC9000001', ppr: null, wid: 'W4000000001',
    title: I('Allosteric pocket binding of a kinase inhibitor series'), year: 2024, journal: 'Illustrative Journal of Medicinal Chemistry',
    abstract: 'Potency of the allosteric kinase inhibitor series tracks the pocket-facing substituent.',
    indexLicense: 'cc by', primaryLicense: 'cc-by', bestOaLicense: 'cc-by', openAccess: { is_oa: true, oa_status: 'gold' },
    archive: { license_code: 'CC BY', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 41,
    fullText: 'Full text (illustrative): the allosteric kinase inhibitor occupies the pocket behind the activation loop.',
  },
  {
    doi: '10.5555/ill.2023.002', pmid: '39000002', pmcid: 'PMC9000002', ppr: null, wid: 'W4000000002',
    title: I('hERG liability of allosteric kinase inhibitors'), year: 2023, journal: 'Illustrative Safety Pharmacology',
    abstract: 'hERG IC50 values above 30 µM were seen across the allosteric kinase inhibitor series.',
    indexLicense: 'cc0', primaryLicense: 'cc0', bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'diamond' },
    archive: { license_code: null, is_pmc_openaccess: true, is_manuscript: false }, citedBy: 12,
    fullText: 'Full text (illustrative): patch-clamp hERG assays for the kinase inhibitor series.',
  },
  {
    doi: '10.5555/ill.2022.003', pmid: '39000003', pmcid: 'PMC9000003', ppr: null, wid: 'W4000000003',
    title: I('Share-alike review of kinase inhibitor toxicology species'), year: 2022, journal: 'Illustrative Toxicology Reviews',
    abstract: 'Which tox species is most sensitive to allosteric kinase inhibitors: rat and dog compared.',
    indexLicense: 'cc by-sa', primaryLicense: 'cc-by-sa', bestOaLicense: 'cc-by-sa', openAccess: { is_oa: true, oa_status: 'gold' },
    archive: { license_code: 'CC BY-SA', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 7,
    fullText: 'Full text (illustrative): the dog was the most sensitive species for the kinase inhibitor class.',
  },
  {
    // open_access says gold, the licences say non-commercial: never open.
    doi: '10.5555/ill.2021.004', pmid: '39000004', pmcid: 'PMC9000004', ppr: null, wid: 'W4000000004',
    title: I('Non-commercial study of kinase inhibitor exposure margins'), year: 2021, journal: 'Illustrative Pharmacokinetics',
    abstract: 'Exposure margins for an allosteric kinase inhibitor in rat and dog.',
    indexLicense: 'cc by-nc', primaryLicense: 'cc-by-nc', bestOaLicense: 'cc-by-nc', openAccess: { is_oa: true, oa_status: 'gold' },
    archive: { license_code: 'CC BY-NC', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 3,
    fullText: 'Full text (illustrative): must never be shown (non-commercial licence).',
  },
  {
    doi: '10.5555/ill.2020.005', pmid: '39000005', pmcid: 'PMC9000005', ppr: null, wid: 'W4000000005',
    title: I('No-derivatives note on kinase inhibitor formulation'), year: 2020, journal: 'Illustrative Formulation Letters',
    abstract: 'Formulation of an allosteric kinase inhibitor for the GLP tox batch.',
    indexLicense: 'cc by-nc-nd', primaryLicense: 'cc-by-nc-nd', bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'green' },
    archive: { license_code: 'CC BY-NC-ND', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 1,
  },
  {
    // No licence anywhere, but open_access says is_oa: metadata and a link only.
    doi: '10.5555/ill.2019.006', pmid: '39000006', pmcid: null, ppr: null, wid: 'W4000000006',
    title: I('Closed-access kinase inhibitor selectivity panel'), year: 2019, journal: 'Illustrative Kinase Science',
    abstract: 'Selectivity of the allosteric kinase inhibitor against a panel of 300 kinases.',
    primaryLicense: null, bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'bronze' }, citedBy: 22,
  },
  {
    // Text-and-data-mining licence in the archive: other, not open.
    doi: '10.5555/ill.2018.007', pmid: '39000007', pmcid: 'PMC9000007', ppr: null, wid: 'W4000000007',
    title: I('Author manuscript on kinase inhibitor metabolism'), year: 2018, journal: 'Illustrative Drug Metabolism',
    abstract: 'Metabolism of an allosteric kinase inhibitor in hepatocytes.',
    indexLicense: undefined, primaryLicense: null, bestOaLicense: null, openAccess: { is_oa: false, oa_status: 'closed' },
    archive: { license_code: 'TDM', is_pmc_openaccess: false, is_manuscript: true }, citedBy: 5,
  },
  {
    // The preprint, and below its published successor (PMID 39000009): two clusters linked by the successor key.
    doi: '10.1101/ill.2024.008', pmid: null, pmcid: null, ppr: 'PPR800008', wid: 'W4000000008',
    title: I('Preprint: allosteric kinase inhibitor in vivo efficacy'), year: 2024, journal: 'Illustrative preprint server',
    abstract: 'In vivo efficacy of the allosteric kinase inhibitor in a xenograft model (preprint).',
    indexLicense: 'cc by-nd', primaryLicense: 'cc-by-nd', bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'green' },
    successor: { pmid: '39000009', doi: '10.5555/ill.2025.009' }, citedBy: 2,
  },
  {
    doi: '10.5555/ill.2025.009', pmid: '39000009', pmcid: 'PMC9000009', ppr: null, wid: 'W4000000009',
    title: I('Allosteric kinase inhibitor in vivo efficacy'), year: 2025, journal: 'Illustrative Oncology',
    abstract: 'Published version: in vivo efficacy of the allosteric kinase inhibitor in a xenograft model.',
    indexLicense: 'cc by', primaryLicense: 'cc-by', bestOaLicense: 'cc-by', openAccess: { is_oa: true, oa_status: 'hybrid' },
    archive: { license_code: 'CC BY', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 4,
    fullText: 'Full text (illustrative): tumour growth inhibition with the allosteric kinase inhibitor.',
  },
  {
    doi: '10.5555/ill.2017.010', pmid: '39000010', pmcid: 'PMC9000010', ppr: null, wid: 'W4000000010',
    title: I('Non-commercial share-alike kinase inhibitor dataset'), year: 2017, journal: 'Illustrative Data Notes',
    abstract: 'A dataset of allosteric kinase inhibitor IC50 values.',
    indexLicense: 'cc by-nc-sa', primaryLicense: 'cc-by-nc-sa', bestOaLicense: null, openAccess: { is_oa: true, oa_status: 'gold' },
    archive: { license_code: 'CC BY-NC-SA', is_pmc_openaccess: true, is_manuscript: false }, citedBy: 0,
  },
]
