// The board, decision metrics and the twins export through the gateway: permissions, cursor pages, what each carries
// (metrics: no inbox feedback or memory; export: never tool_calls.arguments), baseline_missing, and two-organisation
// and two-program isolation (the other tenant's rows shown to exist first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { buildSchema, getNamedType, isObjectType, type GraphQLObjectType } from 'graphql'
import { env, setEnv } from '../../core/config'
import { contextForUser } from '../../core/jobs'
import { loadSession } from '../../core/identity'
import { applyRecordChange } from '../../domain/records'
import { fileProposal } from '../../domain/proposals'
import { decideProposal } from '../../domain/proposals'
import { decisionMetrics } from '../../domain/collaboration'
import { createHandoff } from '../../domain/collaboration'
import { forOrganization } from '../../core/database'
import { SCHEMA_DIR } from '../../gateway/supergraph'
import { useStack, gql } from '../helpers/stack'
import { addMember, createProgram, createTenant, expectRowsExist, type Tenant } from '../helpers/factories'
import { runningRun } from './tools-helpers'

const stack = useStack()
const before = env()
beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
afterAll(() => { setEnv(before) })

const url = () => `${stack.current.gatewayUrl}/graphql`
const db = () => stack.db.db
type Persona = Parameters<Tenant['token']>[0]
const as = async (t: Tenant, p: Persona, q: string, v: Record<string, unknown> = {}) => gql(url(), q, v, await t.token(p))

const BOARD = `query($p: ID!, $first: Int, $after: String) { board(programId: $p, first: $first, after: $after) {
  nodes { kind id title status personaKey user { id } } pageInfo { endCursor hasNextPage } } }`
const COUNTS = 'filed approvedUnchanged edited declined declinedByReason { reason count } refused expired'
const METRICS = `query($p: ID!, $bs: DateTime, $bu: DateTime) { decisionMetrics(programId: $p, baselineSince: $bs, baselineUntil: $bu) {
  since until perPersona { personaKey ${COUNTS} } byUser { user { id } personaKey ${COUNTS} } baseline { perPersona { personaKey filed } } } }`
const EXPORT = `query($first: Int, $after: String) { twinsExport(first: $first, after: $after) {
  nodes { kind id programId status metadata } pageInfo { endCursor hasNextPage } } }`

/** Proposals of the scientist's and the lead's twins, decided every way, one expired, one refused tool call. */
async function seed(t: Tenant) {
  const lead = await contextForUser(db(), t.users.program_lead.id, t.organization.id)
  const hyp = await applyRecordChange(lead, { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title: 'H', fields: { confidence: 'low' } })
  const sci = await runningRun(db(), t, 'scientist')
  const ld = await runningRun(db(), t, 'program_lead')
  const file = async (r: typeof sci, who: Persona, title: string) => fileProposal(await contextForUser(db(), t.users[who].id, t.organization.id, { twinId: r.twin.id }), {
    runId: r.run.id, change: { kind: 'create', programId: t.program.id, recordType: 'evidence.hypotheses', title }, draft: 'x', basisRecordIds: [hyp.recordId],
  })
  const decide = (id: string, decision: string, extra: Record<string, unknown> = {}) => decideProposal(lead, { id, decision, ...extra })
  await decide((await file(sci, 'scientist', 'A')).proposalId, 'approve')
  await decide((await file(sci, 'scientist', 'B')).proposalId, 'approve_with_edits', { edits: { title: 'B edited' } })
  await decide((await file(sci, 'scientist', 'C')).proposalId, 'decline', { reason: 'Not supported by data', reasonCode: 'incorrect' })
  await decide((await file(sci, 'scientist', 'D')).proposalId, 'decline', { reason: 'Seen before', reasonCode: 'duplicate' })
  const expired = await file(sci, 'scientist', 'E')
  await db().runInterrupt.update({ where: { id: expired.proposalId }, data: { expiresAt: new Date(Date.now() - 60_000) } })
  await decide((await file(ld, 'program_lead', 'F')).proposalId, 'approve')
  await db().toolCall.create({ data: { organizationId: t.organization.id, programId: t.program.id, runId: sci.run.id, twinId: sci.twin.id, userId: t.users.scientist.id, tool: 'evidence.propose_finding', status: 'refused', arguments: { marker: 'ARGUMENT-MARKER-7f3a' } } })
  // Inbox feedback and memory exist, so a metric that read them would show it.
  await db().inboxItem.updateMany({ where: { organizationId: t.organization.id }, data: { feedback: 'not_useful' } })
  await db().memoryRecord.create({
    data: { organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id, tier: 'individual', kind: 'preference', summary: 'MEMORY-MARKER', origin: 'human', status: 'kept', contentHash: 'h', namespace: `org/${t.organization.id}/programs/${t.program.id}/users/${t.users.scientist.id}` },
  })
  return { sci, ld, hyp }
}

describe('decision metrics', () => {
  it('aggregates per persona under program.audit.read, byUser only under program.twins.read, and carries no inbox feedback or memory', async () => {
    const t = await createTenant(db(), 'Metrics')
    const { sci, ld } = await seed(t)
    const r = await as(t, 'program_lead', METRICS, { p: t.program.id })
    expect(r.body.errors).toBeUndefined()
    const m = r.body.data.decisionMetrics
    expect(m.perPersona).toEqual([
      { personaKey: 'program_lead', filed: 1, approvedUnchanged: 1, edited: 0, declined: 0, declinedByReason: [], refused: 0, expired: 0 },
      { personaKey: 'scientist', filed: 5, approvedUnchanged: 1, edited: 1, declined: 2, declinedByReason: [{ reason: 'duplicate', count: 1 }, { reason: 'incorrect', count: 1 }], refused: 1, expired: 1 },
    ])
    expect(m.byUser.map((u: any) => [u.user.id, u.personaKey, u.filed]).sort()).toEqual([[t.users.program_lead.id, 'program_lead', 1], [t.users.scientist.id, 'scientist', 5]].sort())
    expect(sci.twin.id).not.toBe(ld.twin.id)
    // The answer carries neither feedback nor memory.
    const text = JSON.stringify(r.body)
    for (const marker of ['not_useful', 'helpful', 'MEMORY-MARKER', 'feedback', 'memory']) expect(text).not.toContain(marker)

    // Without program.audit.read: refused. With it but without program.twins.read (persona version 2): no byUser.
    expect((await as(t, 'scientist', METRICS, { p: t.program.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    const session = { ...(await loadSession(db(), t.users.program_lead.id)), personaVersion: 2 }
    const v2 = await decisionMetrics({ session, db: db(), tdb: forOrganization(db(), t.organization.id) }, t.program.id, {})
    expect(v2.byUser).toBeNull()
    expect(v2.perPersona.map((p) => p.filed)).toEqual([1, 5])
  })

  it('pins that no field of the metrics answer can carry inbox feedback or memory', async () => {
    const schema = buildSchema(fs.readFileSync(path.join(SCHEMA_DIR, 'twins.graphql'), 'utf8'), { assumeValidSDL: true })
    const seen = new Set<string>()
    const names: string[] = []
    const walk = (type: GraphQLObjectType) => {
      if (seen.has(type.name)) return
      seen.add(type.name)
      for (const [name, field] of Object.entries(type.getFields())) {
        names.push(`${type.name}.${name}`)
        const inner = getNamedType(field.type)
        // Program and User are entities owned elsewhere; the metrics reach them by key only.
        if (isObjectType(inner) && !['Program', 'User'].includes(inner.name)) walk(inner)
      }
    }
    walk(schema.getType('DecisionMetrics') as GraphQLObjectType)
    expect(names.length).toBeGreaterThan(10)
    expect(names.filter((n) => /feedback|memory|helpful|useful|note|inbox/i.test(n))).toEqual([])
  })

  it('answers baseline_missing for a baseline window without proposals, and compares against one that has them', async () => {
    const t = await createTenant(db(), 'Baseline')
    await seed(t)
    const empty = await as(t, 'program_lead', METRICS, { p: t.program.id, bs: '2020-01-01T00:00:00Z', bu: '2020-02-01T00:00:00Z' })
    expect(empty.body.errors?.[0]?.extensions).toMatchObject({ code: 'BASELINE_MISSING', errorCode: 'baseline_missing', field: 'baselineSince' })
    const full = await as(t, 'program_lead', METRICS, { p: t.program.id, bs: new Date(Date.now() - 86_400_000).toISOString(), bu: new Date(Date.now() + 60_000).toISOString() })
    expect(full.body.data.decisionMetrics.baseline.perPersona).toEqual([{ personaKey: 'program_lead', filed: 1 }, { personaKey: 'scientist', filed: 5 }])
  })

  it("counts only the caller's organisation and program (the other tenant's proposals exist)", async () => {
    const a = await createTenant(db(), 'MetIsoA')
    const b = await createTenant(db(), 'MetIsoB')
    await seed(b)
    await expectRowsExist(db(), 'run_interrupts', b.organization.id)
    expect((await as(a, 'program_lead', METRICS, { p: a.program.id })).body.data.decisionMetrics.perPersona).toEqual([])
    expect((await as(a, 'program_lead', METRICS, { p: b.program.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    const second = await createProgram(db(), b.organization.id, { slug: 'met-second' })
    await addMember(db(), second, b.users.program_lead.id, ['program_lead'])
    expect((await as(b, 'program_lead', METRICS, { p: second.id })).body.data.decisionMetrics.perPersona).toEqual([])
  })
})

describe('the program board', () => {
  it("shows a lead the program's open decisions, hand-offs and twins in cursor pages; others and other tenants see nothing", async () => {
    const t = await createTenant(db(), 'Board')
    const { hyp } = await seed(t)
    const sciCtx = await contextForUser(db(), t.users.scientist.id, t.organization.id)
    const handoff = await createHandoff(sciCtx, { programId: t.program.id, toPersonaKey: 'program_lead', kind: 'review', linkedType: 'program_record', linkedId: hyp.recordId, messageMd: 'Look' })
    const all: any[] = []
    let after: string | null = null
    for (let page = 0; page < 10; page++) {
      const r = await as(t, 'program_lead', BOARD, { p: t.program.id, first: 2, after })
      expect(r.body.errors).toBeUndefined()
      all.push(...r.body.data.board.nodes)
      if (!r.body.data.board.pageInfo.hasNextPage) break
      after = r.body.data.board.pageInfo.endCursor
    }
    // One open decision (E expired stays open until inbox_expire; it counts as waiting), one hand-off, two twins.
    const kinds = all.reduce((acc: Record<string, number>, n) => ({ ...acc, [n.kind]: (acc[n.kind] ?? 0) + 1 }), {})
    expect(kinds).toEqual({ decision: 1, handoff: 1, twin: 2 })
    expect(new Set(all.map((n) => n.id)).size).toBe(all.length)
    expect(all.find((n) => n.kind === 'handoff')).toMatchObject({ id: handoff.id, status: 'sent', personaKey: 'program_lead', title: 'review: H' })
    expect(all.filter((n) => n.kind === 'twin').map((n) => n.status)).toEqual(['active', 'active'])

    expect((await as(t, 'scientist', BOARD, { p: t.program.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    const other = await createTenant(db(), 'BoardOther')
    await expectRowsExist(db(), 'twin_definitions', t.organization.id)
    expect((await as(other, 'program_lead', BOARD, { p: t.program.id })).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    expect((await as(other, 'program_lead', BOARD, { p: other.program.id })).body.data.board.nodes).toEqual([])
    const second = await createProgram(db(), t.organization.id, { slug: 'board-second' })
    await addMember(db(), second, t.users.program_lead.id, ['program_lead'])
    expect((await as(t, 'program_lead', BOARD, { p: second.id })).body.data.board.nodes).toEqual([])
  })
})

describe('the twins export', () => {
  it('exports metadata only under org.audit.read, in pages, never tool_calls.arguments, and only the caller\'s organisation', async () => {
    const a = await createTenant(db(), 'ExportA')
    const b = await createTenant(db(), 'ExportB')
    await seed(a)
    await seed(b)
    await expectRowsExist(db(), 'tool_calls', b.organization.id)
    expect((await as(a, 'program_owner', EXPORT)).body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    const rows: any[] = []
    let after: string | null = null
    for (let page = 0; page < 20; page++) {
      const r = await as(a, 'org_admin', EXPORT, { first: 3, after })
      expect(r.body.errors).toBeUndefined()
      rows.push(...r.body.data.twinsExport.nodes)
      if (!r.body.data.twinsExport.pageInfo.hasNextPage) break
      after = r.body.data.twinsExport.pageInfo.endCursor
    }
    const kinds = new Set(rows.map((r) => r.kind))
    for (const k of ['twin', 'trigger', 'run', 'tool_call']) expect(kinds.has(k), k).toBe(true)
    const refused = rows.find((r) => r.kind === 'tool_call' && r.status === 'refused')
    expect(refused.metadata).toMatchObject({ tool: 'evidence.propose_finding' })
    expect(Object.keys(refused.metadata)).not.toContain('arguments')
    const text = JSON.stringify(rows)
    expect(text).not.toContain('ARGUMENT-MARKER-7f3a')
    expect(await db().toolCall.count({ where: { organizationId: a.organization.id, arguments: { path: ['marker'], equals: 'ARGUMENT-MARKER-7f3a' } } })).toBe(1)
    // Only organisation A's rows.
    const bIds = new Set((await db().twinDefinition.findMany({ where: { organizationId: b.organization.id } })).map((x) => x.id))
    expect(rows.some((r) => bIds.has(r.id))).toBe(false)
    expect(rows.every((r) => r.programId === null || r.programId === a.program.id)).toBe(true)
    expect((await as(a, 'org_admin', EXPORT, { first: 301 })).body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'first' })

    // The same export as a streamed NDJSON download at the gateway's REST edge (bearer, org.audit.read).
    const download = (token?: string) => fetch(`${stack.current.gatewayUrl}/orgs/current/twins/export`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
    const res = await download(await a.token('org_admin'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/x-ndjson')
    expect(res.headers.get('content-disposition')).toContain('attachment')
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.at(-1)).toEqual({ end: true, rows: rows.length })
    expect(lines.slice(0, -1).map((l) => l.id).sort()).toEqual(rows.map((r) => r.id).sort())
    expect(JSON.stringify(lines)).not.toContain('ARGUMENT-MARKER-7f3a')
    const refusedDownload = await download(await a.token('program_owner'))
    expect(refusedDownload.status).toBe(403)
    expect(await refusedDownload.json()).toMatchObject({ error: { code: 'forbidden' } })
    expect((await download()).status).toBe(401)
  })
})
