// Licence reading and rendering per licence (an R4 gate item): full text only for cc0, cc_by and cc_by_sa, a
// share-alike notice where share-alike text is shown, metadata and a link for every other licence, and each source's
// field read as the specification says (the citation graph's open_access never).
import { describe, expect, it } from 'vitest'
import {
  LICENCES, SHARE_ALIKE_NOTICE, normaliseLicence, readArchiveLicence, readCitationGraphLicence, readIndexLicence, renderForLicence, mostRestrictive,
} from '../../domain/literature'
import { clusterRecords, type SourceRecord } from '../../domain/literature'

const TEXT = 'Full text of an illustrative article.'
const LINK = 'https://europepmc.org/article/PMC/PMC1'

describe('rendering per licence', () => {
  const expected: Record<string, { mode: string; notice: string | null }> = {
    cc0: { mode: 'full_text', notice: null }, cc_by: { mode: 'full_text', notice: null }, cc_by_sa: { mode: 'full_text', notice: SHARE_ALIKE_NOTICE },
    cc_by_nd: { mode: 'metadata', notice: null }, cc_by_nc: { mode: 'metadata', notice: null }, cc_by_nc_sa: { mode: 'metadata', notice: null },
    cc_by_nc_nd: { mode: 'metadata', notice: null }, other: { mode: 'metadata', notice: null }, unknown: { mode: 'metadata', notice: null },
  }
  for (const licence of LICENCES) {
    it(`renders ${licence}: ${expected[licence].mode}${expected[licence].notice ? ' with the share-alike notice' : ''}`, () => {
      const r = renderForLicence(licence, TEXT, LINK)
      expect(r).toEqual({ mode: expected[licence].mode, licence, fullText: expected[licence].mode === 'full_text' ? TEXT : null, link: LINK, notice: expected[licence].notice })
    })
  }
  it('shows metadata and the link for an open licence whose full text could not be fetched', () => {
    expect(renderForLicence('cc_by', null, LINK)).toMatchObject({ mode: 'metadata', fullText: null, link: LINK })
  })
})

describe('licence reading', () => {
  it('normalises the ways sources write licences', () => {
    expect(['cc by', 'CC BY', 'cc-by-4.0', 'https://creativecommons.org/licenses/by/4.0/'].map(normaliseLicence)).toEqual(['cc_by', 'cc_by', 'cc_by', 'cc_by'])
    expect(['cc by-sa', 'CC BY-SA', 'cc-by-sa-3.0'].map(normaliseLicence)).toEqual(['cc_by_sa', 'cc_by_sa', 'cc_by_sa'])
    expect(['cc0', 'CC0 1.0', 'https://creativecommons.org/publicdomain/zero/1.0/'].map(normaliseLicence)).toEqual(['cc0', 'cc0', 'cc0'])
    expect(['CC BY-NC', 'cc by-nc-nd', 'CC BY-NC-SA', 'cc-by-nd'].map(normaliseLicence)).toEqual(['cc_by_nc', 'cc_by_nc_nd', 'cc_by_nc_sa', 'cc_by_nd'])
    expect(['TDM', 'implied-oa', 'publisher-specific-oa'].map(normaliseLicence)).toEqual(['other', 'other', 'other'])
    expect([null, undefined, '', 42].map(normaliseLicence)).toEqual(['unknown', 'unknown', 'unknown', 'unknown'])
  })

  it('reads the index licence from the license field of core results only', () => {
    expect(readIndexLicence({ license: 'cc by' }).licence).toBe('cc_by')
    expect(readIndexLicence({ isOpenAccess: 'Y' }).licence).toBe('unknown')
    expect(readIndexLicence({ license: { code: 'cc by' } })).toMatchObject({ licence: 'unknown', unreadable: true })
  })

  it('reads the citation graph from primary_location.license and best_oa_location.license, never open_access', () => {
    expect(readCitationGraphLicence({ open_access: { is_oa: true, oa_status: 'gold' }, primary_location: { license: null }, best_oa_location: null }).licence).toBe('unknown')
    expect(readCitationGraphLicence({ open_access: { is_oa: true }, primary_location: { license: 'cc-by' }, best_oa_location: { license: 'cc-by-nc' } }).licence).toBe('cc_by_nc')
    expect(readCitationGraphLicence({ primary_location: { license: null }, best_oa_location: { license: 'cc-by' } }).licence).toBe('cc_by')
    expect(readCitationGraphLicence({ primary_location: { licence_id: 'cc-by' } })).toMatchObject({ licence: 'unknown', unreadable: true })
    expect(readCitationGraphLicence({ primary_location: 'cc-by' })).toMatchObject({ licence: 'unknown', unreadable: true })
  })

  it('reads the archive metadata: license_code, the open-access flag and is_manuscript', () => {
    expect(readArchiveLicence({ license_code: 'CC BY', is_pmc_openaccess: true, is_manuscript: false })).toMatchObject({ licence: 'cc_by', fullTextEligible: true })
    expect(readArchiveLicence({ license_code: 'CC BY', is_pmc_openaccess: true, is_manuscript: true })).toMatchObject({ licence: 'cc_by', fullTextEligible: false })
    expect(readArchiveLicence({ license_code: 'CC BY', is_pmc_openaccess: false, is_manuscript: false }).fullTextEligible).toBe(false)
    expect(readArchiveLicence({ license_code: 'CC BY-NC', is_pmc_openaccess: true, is_manuscript: false }).fullTextEligible).toBe(false)
    expect(readArchiveLicence({ license_code: 'TDM', is_pmc_openaccess: true, is_manuscript: false })).toMatchObject({ licence: 'other', fullTextEligible: false })
    expect(readArchiveLicence({ licence: 'CC BY', is_pmc_openaccess: true })).toMatchObject({ licence: 'unknown', unreadable: true, fullTextEligible: false })
  })

  it('gives a cluster the most restrictive licence its sources state', () => {
    expect(mostRestrictive(['cc_by', 'cc_by_sa', 'unknown'])).toBe('cc_by_sa')
    expect(mostRestrictive(['cc0', 'other'])).toBe('other')
    expect(mostRestrictive(['unknown'])).toBe('unknown')
  })
})

describe('cluster de-duplication (pure)', () => {
  const rec = (source: string, ids: SourceRecord['ids'], extra: Partial<SourceRecord> = {}): SourceRecord => ({
    source, ids, title: null, abstract: null, year: null, venue: null, url: null, licence: null, snapshot: null, ...extra,
  })
  it('joins records that share any identifier, keyed by the DOI, and keeps records without a DOI under their PMID', () => {
    const clusters = clusterRecords([
      rec('literature_index', { pmid: '1', pmcid: 'PMC2' }),
      rec('citation_graph', { wid: 'https://openalex.org/W3', pmid: '1' }),
      rec('doi_registry', { doi: 'https://doi.org/10.1000/ABC' }),
      rec('citation_graph', { wid: 'W3', doi: '10.1000/abc' }),
      rec('literature_index', { pmid: '9' }),
      rec('literature_index', {}),
    ])
    expect(clusters.map((c) => [c.clusterKey, c.aliases])).toEqual([['10.1000/abc', ['pmid:1', 'pmcid:PMC2', 'W3']], ['pmid:9', []]])
    expect(clusters[0].provenance.map((p) => p.provider)).toEqual(['literature_index', 'citation_graph', 'doi_registry'])
  })
})
