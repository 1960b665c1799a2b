// Notebook version identity: canonical JSON, payload hash, external_version, target_ref and flattened documents.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildEntry, sampleDays } from '../../fakes/notebook/entries'
import {
  canonicalEntryJson,
  entryPayloadHash,
  externalVersion,
  flattenEntry,
  parseTargetRef,
  targetRef,
  type NotebookEntry,
} from '../../domain/notebook'
import { reverseKeys } from './helpers'

const SHA_A = 'a'.repeat(64)
const SHA_B = 'b'.repeat(64)

const small: NotebookEntry = {
  id: 'etr_1',
  name: 'Illustrative X',
  modifiedAt: '2025-01-15T10:00:00.000Z',
  reviewRecord: { status: 'IN_PROGRESS' },
  webURL: 'https://vendor.invalid/etr_1',
  days: [
    {
      date: '2025-01-15',
      notes: [
        { type: 'text', indentation: 0, text: 'Hi', links: [{ id: 'bat_1', type: 'batch', webURL: 'https://vendor.invalid/bat_1' }] },
        {
          type: 'table',
          indentation: 0,
          text: 'cap',
          links: [],
          table: {
            name: 'T',
            columnLabels: ['a', 'b'],
            rows: [{ cells: [{ text: '1' }, { text: '2' }] }, { cells: [{ text: '3', link: { id: 'u1', type: 'user' } }, { text: '4' }] }],
          },
        },
        { type: 'external_file', indentation: 0, text: '', links: [], externalFileId: 'exf_1' },
      ],
    },
  ],
}

const sampleEntry = (): NotebookEntry =>
  buildEntry({ id: 'etr_sample', name: 'Sample', days: sampleDays({ attachmentId: 'exf_1' }) }, { baseUrl: 'http://fake.invalid', now: '2025-01-15T10:00:00.000Z' }) as unknown as NotebookEntry

describe('notebook canonical content', () => {
  it('serialises the entry content as RFC 8785 JSON: days and notes in order, cells row-major, mentions as type:id, attachments as id:sha256', () => {
    const expected =
      '{"days":[{"date":"2025-01-15","notes":[' +
      '{"indentation":0,"links":["batch:bat_1"],"text":"Hi","type":"text"},' +
      '{"indentation":0,"links":[],"table":{"columnLabels":["a","b"],"name":"T","rows":[["1","2"],["3 <user:u1>","4"]]},"text":"cap","type":"table"},' +
      `{"attachment":"exf_1:${SHA_A}","indentation":0,"links":[],"text":"","type":"external_file"}` +
      ']}],"name":"Illustrative X","v":1}'
    expect(canonicalEntryJson(small, { attachmentSha256: { exf_1: SHA_A } })).toBe(expected)
    expect(entryPayloadHash(small, { attachmentSha256: { exf_1: SHA_A } })).toBe(createHash('sha256').update(expected).digest('hex'))
  })

  it('gives the same hash when the vendor reorders the keys of every object', () => {
    const entry = sampleEntry()
    const digests = new Map([['exf_1', SHA_A]])
    expect(JSON.stringify(reverseKeys(entry))).not.toBe(JSON.stringify(entry))
    expect(entryPayloadHash(reverseKeys(entry), { attachmentSha256: digests })).toBe(entryPayloadHash(entry, { attachmentSha256: digests }))
    expect(entryPayloadHash(JSON.parse(JSON.stringify(reverseKeys(small))))).toBe(entryPayloadHash(small))
  })

  it('changes the hash when a note changes, a cell moves, or an attachment digest changes', () => {
    const base = entryPayloadHash(small, { attachmentSha256: { exf_1: SHA_A } })
    const edited = structuredClone(small)
    edited.days[0].notes[0].text = 'Hi there'
    const swapped = structuredClone(small)
    const row = swapped.days[0].notes[1].table!.rows[0].cells
    ;[row[0], row[1]] = [row[1], row[0]]
    const notesReordered = structuredClone(small)
    notesReordered.days[0].notes.reverse()
    const hashes = [
      entryPayloadHash(edited, { attachmentSha256: { exf_1: SHA_A } }),
      entryPayloadHash(swapped, { attachmentSha256: { exf_1: SHA_A } }),
      entryPayloadHash(notesReordered, { attachmentSha256: { exf_1: SHA_A } }),
      entryPayloadHash(small, { attachmentSha256: { exf_1: SHA_B } }),
      entryPayloadHash(small),
    ]
    expect(new Set([base, ...hashes]).size).toBe(6)
  })

  it('keeps the hash when only metadata changes: modifiedAt, review state, URLs', () => {
    const changed = structuredClone(small)
    changed.modifiedAt = '2025-02-01T00:00:00.000Z'
    changed.reviewRecord = { status: 'ACCEPTED' }
    changed.webURL = 'https://elsewhere.invalid/x'
    changed.days[0].notes[0].links![0].webURL = 'https://elsewhere.invalid/bat_1'
    expect(entryPayloadHash(changed)).toBe(entryPayloadHash(small))
  })

  it('writes an attachment without a known digest as id:unknown', () => {
    expect(canonicalEntryJson(small)).toContain('"attachment":"exf_1:unknown"')
    expect(canonicalEntryJson(small, { attachmentSha256: { exf_1: 'not-a-digest' } })).toContain('"attachment":"exf_1:unknown"')
  })

  it('builds external_version as <payload_hash>@<modifiedAt>', () => {
    const hash = entryPayloadHash(small)
    expect(externalVersion(hash, small.modifiedAt)).toBe(`${hash}@2025-01-15T10:00:00.000Z`)
    expect(() => externalVersion('abc', small.modifiedAt)).toThrow(TypeError)
  })

  it('builds target_ref as eln_provider:entry:<id>@<12 hex of the payload hash>', () => {
    const hash = entryPayloadHash(small)
    const ref = targetRef('etr_1', hash)
    expect(ref).toMatch(/^eln_provider:entry:etr_1@[0-9a-f]{12}$/)
    expect(ref.endsWith(`@${hash.slice(0, 12)}`)).toBe(true)
    expect(parseTargetRef(ref)).toEqual({ entryId: 'etr_1', hashPrefix: hash.slice(0, 12) })
    expect(parseTargetRef('eln_provider:entry:etr_1@abc')).toBeNull()
    expect(() => targetRef('etr@1', hash)).toThrow(TypeError)
  })

  it('flattens an entry into text in document order and keeps the days structure in content_json', () => {
    const entry = sampleEntry()
    const { text, content_json } = flattenEntry(entry, { attachmentSha256: { exf_1: SHA_A } })
    expect(text.split('\n').slice(0, 3)).toEqual(['Illustrative Sample', '', '## 2025-01-15'])
    expect(text).toContain('[batch:bat_illustrative_1, user:ent_illustrative_user]')
    expect(text).toContain('1. Weigh illustrative reagent A (10.0 mg).')
    expect(text).toContain('2. Dissolve in 10 mL illustrative buffer.')
    expect(text).toContain('[x] Balance calibration checked')
    expect(text).toContain('Sample | pH | Temperature (°C)')
    expect(text).toContain('IllustrativeBatch-1 <batch:bat_illustrative_1> | 7.2 | 21.5')
    expect(text).toContain('[attachment exf_1] Illustrative plate reader export')
    expect(text.indexOf('Weigh')).toBeLessThan(text.indexOf('Blank'))
    expect(content_json.days).toHaveLength(1)
    expect(content_json.days[0].date).toBe('2025-01-15')
    expect(content_json.days[0].notes.map((n) => n.type)).toEqual(['text', 'list_number', 'list_number', 'list_checkbox', 'table', 'external_file'])
    expect(JSON.stringify(content_json)).not.toContain('webURL')
  })

  it('hashes part types it has no rule for by their own fields, without URLs', () => {
    const withRun = structuredClone(small)
    withRun.days[0].notes.push({ type: 'assay_run', indentation: 0, assayRunId: 'run_1', apiURL: 'https://x.invalid' })
    const otherRun = structuredClone(small)
    otherRun.days[0].notes.push({ type: 'assay_run', indentation: 0, assayRunId: 'run_2', apiURL: 'https://y.invalid' })
    const sameRunOtherUrl = structuredClone(withRun)
    sameRunOtherUrl.days[0].notes[3].apiURL = 'https://z.invalid'
    expect(entryPayloadHash(withRun)).not.toBe(entryPayloadHash(otherRun))
    expect(entryPayloadHash(withRun)).toBe(entryPayloadHash(sameRunOtherUrl))
  })
})
