// Twins read documents (issue 29, item 9): entries arrive from the fake notebook through the real webhook and sync
// pipeline, SOP versions as the QMS review leaves them, and a twin reads them over MCP with documents.list_assets and
// documents.read_table_rows: sanitised text with its source and version. The NCA skill takes a table read that way,
// the citation carried through, for a twin over MCP and for a person through the gateway. The injection fixture goes
// through both tools (the notebook provider handler's agent-facing read, as production calls it). Untrusted tools are
// absent from a hand-off run (item 10), and a call to one is handled as harness_denied.
import { afterAll, describe, expect, it } from 'vitest'
import { createTenant, type Tenant } from '../helpers/factories'
import { gql } from '../helpers/stack'
import { INJECTION_FIXTURES, describeInjectionFixture } from '../fixtures/injection'
import { FOLDER, entryUpdated, useNotebookStack } from '../connectors/helpers'
import { connect, runningRun } from './tools-helpers'

const { stack, fake, db, work, connect: connectNb } = useNotebookStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const tools = () => stack.current.toolsUrl

/** A table part as the vendor's v2 entry carries it. */
const table = (name: string, columns: string[], rows: string[][]) => ({
  type: 'table', table: { name, columnLabels: columns, rows: rows.map((r) => ({ cells: r.map((text) => ({ text })) })) },
})
/** An entry with a text note and a table, stored by the fake and synced by the worker after its webhook. */
async function syncEntries(nb: Awaited<ReturnType<typeof connectNb>>, entries: { id: string; name: string; text: string; table: ReturnType<typeof table> }[]) {
  for (const e of entries) {
    fake.control.upsertEntry({ id: e.id, name: e.name, folderId: FOLDER, days: [{ date: '2026-11-23', notes: [{ type: 'text', text: e.text }, e.table] }] as never })
  }
  for (const e of entries) expect((await nb.send(entryUpdated(e.id))).status).toBe(202)
  await work()
}
const PK_ROWS = [['0', 'BLQ'], ['0.5', '4.2'], ['1', '7.9'], ['2', '9.1'], ['4', '6.3'], ['8', '3.1'], ['12', '1.5'], ['24', '0.36']]
const PK = (name = 'Rat PK, 10 mg oral') => table(name, ['Time (h)', 'Conc (mg/L)'], PK_ROWS)

async function tenantWithEntry(name: string, entryId: string) {
  const t = await createTenant(db(), name)
  const nb = await connectNb(t)
  await syncEntries(nb, [{ id: entryId, name: 'Rat PK study day 1', text: 'Weighed 12 mg of the salt form.', table: PK() }])
  fake.control.putAttachment(entryId, { id: `exf_${entryId}`, name: 'plate.csv', content: 'well,abs\nA1,0.1\n', appendToEntry: true })
  expect((await nb.send(entryUpdated(entryId))).status).toBe(202)
  await work()
  const doc = await db().document.findFirstOrThrow({ where: { programId: t.program.id, source: { externalId: entryId } } })
  return { t, nb, doc }
}

async function localSop(t: Tenant, text: string) {
  const sop = await db().sop.create({ data: { organizationId: t.organization.id, programId: t.program.id, origin: 'local', documentNumber: 'SOP-BA-007', documentType: 'sop', title: 'Bioanalytical run acceptance' } })
  return db().sopVersion.create({ data: { organizationId: t.organization.id, programId: t.program.id, sopId: sop.id, major: 2, minor: 1, lifecycleState: 'effective', text, textSource: 'local' } as never })
}

describe('documents.list_assets and documents.read_table_rows over MCP', () => {
  it('lists notebook entries with their tables, attachments, source and version, and SOP versions, and reads a table with its citation', async () => {
    const entryId = `etr_pk_${Date.now()}`
    const { t, doc } = await tenantWithEntry('Documents list', entryId)
    const sopVersion = await localSop(t, 'Accept a run when 2/3 of QCs are within 15 %.')
    const client = await connect(tools(), await runningRun(db(), t, 'scientist'))
    expect(client.has('documents.list_assets')).toBe(true)
    expect(client.has('documents.read_table_rows')).toBe(true)
    const listed: any = await client.call('documents.list_assets', {})
    expect(listed.ok).toBe(true)
    const entry = listed.value.assets.find((a: { kind: string }) => a.kind === 'notebook_entry')
    expect(entry).toMatchObject({
      ref: `document:${doc.id}@v${doc.version}`, title: 'Illustrative Rat PK study day 1', version: doc.version,
      source: { system: 'eln_provider', type: 'eln_entry', externalId: entryId, targetRef: doc.targetRef, externalVersion: doc.externalVersion },
      tables: [{ table: 0, date: '2026-11-23', name: 'Rat PK, 10 mg oral', columns: ['Time (h)', 'Conc (mg/L)'], rowCount: 8, citation: `document:${doc.id}@v${doc.version}#table=0` }],
      attachments: [expect.objectContaining({ name: 'Illustrative plate.csv', sizeBytes: 16, fetchable: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })],
    })
    expect(entry.text).toContain('Weighed 12 mg of the salt form.')
    expect(listed.value.assets.find((a: { kind: string }) => a.kind === 'sop_version')).toMatchObject({
      ref: `sop_version:${sopVersion.id}`, title: 'SOP-BA-007 Bioanalytical run acceptance', version: '2.1', lifecycleState: 'effective',
      source: { system: 'local', documentNumber: 'SOP-BA-007' }, text: 'Accept a run when 2/3 of QCs are within 15 %.',
    })
    const files: any = await client.call('documents.list_assets', { kind: 'attachment' })
    expect(files.value.assets).toEqual([expect.objectContaining({ kind: 'attachment', name: 'Illustrative plate.csv', entry: `eln_entry:${doc.sourceId}` })])

    const read: any = await client.call('documents.read_table_rows', { asset: entry.ref, table: 0, offset: 1, first: 3 })
    expect(read.value).toMatchObject({
      asset: entry.ref, citation: `${entry.ref}#table=0`, version: doc.version, source: { system: 'eln_provider', externalId: entryId },
      table: { table: 0, columns: ['Time (h)', 'Conc (mg/L)'] }, rows: [['0.5', '4.2'], ['1', '7.9'], ['2', '9.1']], offset: 1, total: 8, hasMore: true,
    })
    // Each read is a tool call on the run's trail, like every other.
    expect(await db().toolCall.count({ where: { runId: (await db().toolCall.findFirstOrThrow({ where: { tool: 'documents.read_table_rows', programId: t.program.id } })).runId, status: 'ok' } })).toBe(3)
    const byRef: any = await client.call('documents.list_assets', { ref: entry.ref })
    expect(byRef.value.assets.map((a: { ref: string }) => a.ref)).toEqual([entry.ref])
    const oldRef: any = await client.call('documents.list_assets', { ref: `document:${doc.id}@v${doc.version + 5}` })
    expect(oldRef.error).toMatchObject({ code: 'invalid_input', field: 'ref' })
    // A table that does not exist, and an asset of no document of this program, are refused with their field.
    const missing: any = await client.call('documents.read_table_rows', { asset: entry.ref, table: 3 })
    expect(missing.error).toMatchObject({ code: 'invalid_input', field: 'table' })
    const other = await createTenant(db(), 'Documents other')
    const foreign: any = await client.call('documents.read_table_rows', { asset: `document:${other.program.id}` })
    expect(foreign.error).toMatchObject({ code: 'invalid_input', field: 'asset' })
    await client.close()
  })

  it("reads one asset by its ref, an SOP version's whole text window by window, and refuses a ref of a version the entry moved on from", async () => {
    const t = await createTenant(db(), 'Documents SOP text')
    const paragraphs = Array.from({ length: 90 }, (_, i) => `${i + 1}. Record the QC result of run ${i + 1} with its acceptance limit and the analyst.`)
    const version = await localSop(t, paragraphs.join('\n'))
    const client = await connect(tools(), await runningRun(db(), t, 'quality_reviewer'))
    const first: any = await client.call('documents.list_assets', { ref: `sop_version:${version.id}` })
    expect(first.value.assets).toHaveLength(1)
    expect(first.value.assets[0]).toMatchObject({ ref: `sop_version:${version.id}`, textOffset: 0, textTruncated: true, textLength: paragraphs.join('\n').length })
    // Window by window (each window passes the sanitiser on its own, so its edges may lose whitespace).
    const windows = [first.value.assets[0].text as string]
    for (let at = first.value.assets[0].nextTextOffset; at !== null;) {
      const next: any = await client.call('documents.list_assets', { ref: `sop_version:${version.id}`, textOffset: at })
      expect(next.value.assets[0].textOffset).toBe(at)
      windows.push(next.value.assets[0].text)
      at = next.value.assets[0].nextTextOffset
    }
    expect(windows.length).toBe(Math.ceil(paragraphs.join('\n').length / 4000))
    expect(windows.join('').replace(/\s+/g, '')).toBe(paragraphs.join('\n').replace(/\s+/g, ''))
    const bad: any = await client.call('documents.list_assets', { ref: 'x' })
    expect(bad.error).toMatchObject({ code: 'invalid_input', field: 'ref' })
    await client.close()
  })

  it('keeps untrusted tools out of a hand-off run: not listed, and a call is handled as harness_denied with its trace', async () => {
    const t = await createTenant(db(), 'Documents handoff')
    const r = await runningRun(db(), t, 'program_lead', { kind: 'twin_handoff' })
    const client = await connect(tools(), r)
    for (const name of ['documents.list_assets', 'documents.read_table_rows', 'evidence.search_literature', 'qa.check_readiness']) expect(client.has(name)).toBe(false)
    const denied: any = await client.call('documents.list_assets', {})
    expect(denied.error).toMatchObject({ code: 'harness_denied', message: "documents.list_assets is not in this run's toolset." })
    expect(await db().toolCall.findMany({ where: { runId: r.run.id }, select: { tool: true, status: true } })).toEqual([{ tool: 'documents.list_assets', status: 'refused' }])
    await client.close()
  })
})

const SKILL = `mutation($p: ID!, $i: SkillRunInput!) { runSkill(programId: $p, input: $i) { __typename
  ... on MutationRunSkillSuccess { skillResult { artifactId inputsHash citations outputs } } ... on Error { code message field } } }`
const nca = (tableRef: Record<string, unknown>) => ({ table: tableRef, time_unit: 'h', conc_unit: 'mg/L', dose: { value: 10, unit: 'mg' }, route: 'oral' })

describe('tox.pk_parameter_extraction on rows read through documents.read_table_rows', () => {
  it('computes from the cited table for a twin over MCP and a person through the gateway, the citation carried through to the result', async () => {
    const entryId = `etr_nca_${Date.now()}`
    const { t, nb, doc } = await tenantWithEntry('NCA table', entryId)
    const client = await connect(tools(), await runningRun(db(), t, 'scientist'))
    const read: any = await client.call('documents.read_table_rows', { asset: `document:${doc.id}`, table: 0 })
    const citation = read.value.citation as string
    const byTwin: any = await client.call('tox.pk_parameter_extraction', { inputs: nca({ citation, time_column: 'Time (h)', conc_column: 'conc (mg/l)' }) })
    expect(byTwin.ok).toBe(true)
    expect(byTwin.value.citations).toEqual([{ ref: citation, field: 'citation' }])
    expect(byTwin.value.outputs.cmax).toMatchObject({ value: 9.1, unit_ucum: 'mg/L' })
    expect(byTwin.value.outputs.tmax).toMatchObject({ value: 2 })
    // The recorded inputs are the rows as read (BLQ at time 0) and the table's citation.
    const row = await db().toolCall.findFirstOrThrow({ where: { resultArtifactId: byTwin.value.artifact_id } })
    expect((row.arguments as any).inputs.rows.slice(0, 2)).toEqual([{ time: 0, conc: null, blq: true }, { time: 0.5, conc: 4.2 }])
    expect((row.arguments as any).inputs.citation).toBe(citation)

    const typed = { rows: PK_ROWS.map(([time, conc]) => (conc === 'BLQ' ? { time: 0, conc: null, blq: true } : { time: Number(time), conc: Number(conc) })), time_unit: 'h', conc_unit: 'mg/L', dose: { value: 10, unit: 'mg' }, route: 'oral', citation }
    const byPerson = await gql(url(), SKILL, { p: t.program.id, i: { skillKey: 'tox.pk_parameter_extraction', inputs: nca({ citation, time_column: 0, conc_column: 1 }) } }, await t.token('scientist'))
    const typedRun = await gql(url(), SKILL, { p: t.program.id, i: { skillKey: 'tox.pk_parameter_extraction', inputs: typed } }, await t.token('scientist'))
    expect(byPerson.body.data.runSkill.skillResult.citations).toEqual([{ ref: citation, field: 'citation' }])
    // The same table read through the tool hashes the same as the same rows typed with the same citation.
    expect(byPerson.body.data.runSkill.skillResult.inputsHash).toBe(typedRun.body.data.runSkill.skillResult.inputsHash)
    expect(byPerson.body.data.runSkill.skillResult.inputsHash).toBe(byTwin.value.inputs_hash)

    // Refusals: a column that is not there, another citation beside the table's, and a version the entry moved on from.
    const noColumn = await gql(url(), SKILL, { p: t.program.id, i: { skillKey: 'tox.pk_parameter_extraction', inputs: nca({ citation, time_column: 'Time (min)', conc_column: 1 }) } }, await t.token('scientist'))
    expect(noColumn.body.data.runSkill).toMatchObject({ code: 'invalid_input', field: 'input.inputs.table.time_column' })
    const twoCitations = await gql(url(), SKILL, { p: t.program.id, i: { skillKey: 'tox.pk_parameter_extraction', inputs: { ...nca({ citation, time_column: 0, conc_column: 1 }), citation: 'x' } } }, await t.token('scientist'))
    expect(twoCitations.body.data.runSkill).toMatchObject({ code: 'invalid_input', field: 'input.inputs.citation' })
    fake.control.modifyEntry(entryId, (e: any) => { e.days[0].notes[1].table.rows[3].cells[1].text = '9.4' })
    expect((await nb.send(entryUpdated(entryId))).status).toBe(202)
    await work()
    expect((await db().document.findUniqueOrThrow({ where: { id: doc.id } })).version).toBe(doc.version + 1)
    const stale: any = await client.call('tox.pk_parameter_extraction', { inputs: nca({ citation, time_column: 0, conc_column: 1 }) })
    expect(stale.error).toMatchObject({ code: 'invalid_input', field: 'inputs.table.citation' })
    expect(stale.error.message).toContain(`version ${doc.version + 1} now`)
    await client.close()
  })
})

// The R4 gate item "the injection fixture through every provider handler": notebook entries arrive through the
// webhook and sync pipeline with each case in a text note and in a table cell, and a twin reads them over MCP.
let fixture: Promise<{ t: Tenant; client: Awaited<ReturnType<typeof connect>>; refs: Map<string, string> }> | undefined
async function fixtureEntries() {
  const t = await createTenant(db(), 'Documents fixture')
  const nb = await connectNb(t)
  const stamp = Date.now()
  await syncEntries(nb, INJECTION_FIXTURES.map((c, i) => ({
    id: `etr_fx_${stamp}_${i}`, name: `Fixture case ${String(i).padStart(3, '0')}`, text: `Weighed 12 mg of the salt form.\n${c.text}`,
    table: table('Readings', ['Sample', 'Note'], [['S1', c.text]]),
  })))
  const docs = await db().document.findMany({ where: { programId: t.program.id }, select: { id: true, version: true, title: true } })
  expect(docs).toHaveLength(INJECTION_FIXTURES.length)
  const refs = new Map(docs.map((d) => [INJECTION_FIXTURES[Number(d.title.slice(-3))]!.name, `document:${d.id}@v${d.version}`]))
  return { t, client: await connect(tools(), await runningRun(db(), t, 'scientist', { budget: 100_000 })), refs }
}

afterAll(async () => { if (fixture) await (await fixture).client.close() })

describeInjectionFixture('notebook entry text read by documents.list_assets over MCP', async (_text, c) => {
  fixture ??= fixtureEntries()
  const { client } = await fixture
  const index = INJECTION_FIXTURES.indexOf(c)
  const res: any = await client.call('documents.list_assets', { kind: 'notebook_entry', query: `Fixture case ${String(index).padStart(3, '0')}` })
  expect(res.value.assets).toHaveLength(1)
  return res.value.assets[0].text
}, { kept: 'Weighed 12 mg of the salt form.', timeout: 120_000 })

describeInjectionFixture('notebook table cells read by documents.read_table_rows over MCP', async (_text, c) => {
  fixture ??= fixtureEntries()
  const { client, refs } = await fixture
  const res: any = await client.call('documents.read_table_rows', { asset: refs.get(c.name), table: 0 })
  expect(res.value.rows[0][0]).toBe('S1')
  return res.value.rows[0][1]
}, { timeout: 120_000 })
