// State machines as data: guarded transitions on the real database (illegal ones refused with invalid_transition and
// the row unchanged, concurrent ones racing safely), every forbidden pair of every stored machine refused, and the
// declarations against the documents and the database enums (final states and the generated transition tables of
// docs/contributors.md: tests/platform/state-machine-rules.test.ts).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, createTwoOrganizations, type Tenant } from '../helpers/factories'
import { DomainError, InvalidTransition } from '../../core/errors'
import { defineMachine, transition, transitionAll, type Machine, type StatefulModel } from '../../core/states'
import { MACHINES, agentRunStatus, connectionStatus, inboxItemStatus, requirementSetStatus, toolCallStatus, twinStatus } from '../../core/states'
import { runQueuedSkill } from '../../domain/skills'
import { sweepInbox } from '../../domain/inbox'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const SPEC_DIR = path.resolve(ROOT, '../shared/spec')

const stack = useStack()
const db = () => stack.db.db

// ---- rows in a given state, written directly (the factories of the features that own them come later) ----------

async function connectionIn(t: Tenant, status: 'active' | 'disconnected') {
  return db().connection.create({
    data: {
      organizationId: t.organization.id, programId: t.program.id, providerId: 'eln_provider', name: 'Notebook', status,
      credentialClass: 'service', apiVersion: 'v2', consentedBy: t.users.program_owner.id, consentedAt: new Date(),
      createdByUserId: t.users.program_owner.id,
    },
  })
}
const inboxItemIn = (t: Tenant, status: 'open' | 'snoozed' | 'done', extra: { dueAt?: Date; snoozedUntil?: Date } = {}) => db().inboxItem.create({
  data: { organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id, kind: 'information', sourceType: 'test', sourceId: 'x', status, ...extra },
})
const agentRunIn = (t: Tenant, status: 'queued' | 'succeeded') => db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'chat', status } })
async function requirementSetIn(t: Tenant, status: 'draft' | 'superseded') {
  const sop = await db().sop.create({ data: { organizationId: t.organization.id, programId: t.program.id, origin: 'local', documentNumber: 'SOP-T', documentType: 'sop', title: 'T' } })
  const version = await db().sopVersion.create({ data: { organizationId: t.organization.id, programId: t.program.id, sopId: sop.id, major: 1, minor: 0, lifecycleState: 'draft' } })
  return db().requirementSet.create({ data: { organizationId: t.organization.id, programId: t.program.id, sopVersionId: version.id, status, title: 'T', textHash: 'h', extractedFrom: 'local', createdByUserId: t.users.quality_reviewer.id } })
}
const toolCallIn = (t: Tenant, status: 'running' | 'refused', tool = 'tox.fih_dose_projection', args: object = {}) => db().toolCall.create({
  data: { organizationId: t.organization.id, programId: t.program.id, userId: t.users.scientist.id, tool, status, arguments: args },
})

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(() => null, (err: unknown) => err)
  expect(e, 'the transition should have been refused').toBeInstanceOf(DomainError)
  return e as DomainError
}

// Inputs of a skill that runs anywhere; the job runs whatever skill its tool_calls row names.
const FIH_INPUTS = { route: 'oral', noael: [{ species: 'rat', dose: { value: 50, unit: 'mg/kg' }, citation: 'tox-report:rat#noael' }] }

// Each applied machine: a row in a state that forbids `illegal`, and a row in a state that allows `legal`.
const APPLIED = [
  { machine: connectionStatus, model: 'connection', illegal: ['disconnect', 'disconnected'], legal: ['disconnect', 'active'],
    forbidden: (t: Tenant) => connectionIn(t, 'disconnected'), allowed: (t: Tenant) => connectionIn(t, 'active') },
  { machine: inboxItemStatus, model: 'inboxItem', illegal: ['snooze', 'done'], legal: ['resolve', 'open'],
    forbidden: (t: Tenant) => inboxItemIn(t, 'done'), allowed: (t: Tenant) => inboxItemIn(t, 'open') },
  { machine: agentRunStatus, model: 'agentRun', illegal: ['start', 'succeeded'], legal: ['start', 'queued'],
    forbidden: (t: Tenant) => agentRunIn(t, 'succeeded'), allowed: (t: Tenant) => agentRunIn(t, 'queued') },
  { machine: toolCallStatus, model: 'toolCall', illegal: ['complete', 'refused'], legal: ['complete', 'running'],
    forbidden: (t: Tenant) => toolCallIn(t, 'refused'), allowed: (t: Tenant) => toolCallIn(t, 'running') },
  { machine: requirementSetStatus, model: 'requirementSet', illegal: ['accept', 'superseded'], legal: ['supersede', 'draft'],
    forbidden: (t: Tenant) => requirementSetIn(t, 'superseded'), allowed: (t: Tenant) => requirementSetIn(t, 'draft') },
] as const

const reread = (model: string, id: string) => (db() as unknown as Record<string, { findUniqueOrThrow(a: object): Promise<Record<string, unknown>> }>)[model].findUniqueOrThrow({ where: { id } })

describe('state machines', () => {
  it.each(APPLIED)('refuses an illegal $machine.name transition with invalid_transition (from, to) and leaves the row unchanged', async (c) => {
    const t = await createTenant(db(), `Illegal ${c.model}`)
    const row = await c.forbidden(t)
    const before = await reread(c.model, row.id)
    const [name, from] = c.illegal
    const e = await refusal(transition(db(), c.machine as Machine<string, string, typeof c.model>, name, row))
    expect(e.code).toBe('invalid_transition')
    expect(e).toBeInstanceOf(InvalidTransition)
    expect({ status: e.httpStatus, from: (e as InvalidTransition).from, to: (e as InvalidTransition).to }).toMatchObject({ status: 409, from, to: c.machine.transitions[name as never]['to'] })
    expect(e.message).toContain(`is ${from}`)
    expect(await reread(c.model, row.id)).toEqual(before)
  })

  it.each(APPLIED)('applies a legal $machine.name transition and writes its data in the same statement', async (c) => {
    const t = await createTenant(db(), `Legal ${c.model}`)
    const row = await c.allowed(t)
    const [name] = c.legal
    const to = c.machine.transitions[name as never]['to']
    const updated = await transition(db(), c.machine as Machine<string, string, typeof c.model>, name, row)
    expect(updated).toMatchObject({ id: row.id, status: to })
    expect(await reread(c.model, row.id)).toMatchObject({ status: to })
  })

  it('answers not_found for a missing row or another organisation\'s row, and leaves that row alone', async () => {
    const { a, b } = await createTwoOrganizations(db())
    const theirs = await connectionIn(b, 'active')
    const e = await refusal(transition(db(), connectionStatus, 'disconnect', { id: theirs.id, organizationId: a.organization.id }))
    expect(e.code).toBe('not_found')
    expect((await db().connection.findUniqueOrThrow({ where: { id: theirs.id } })).status).toBe('active')
    const missing = await refusal(transition(db(), connectionStatus, 'disconnect', { id: '00000000-0000-4000-8000-000000000000', organizationId: a.organization.id }))
    expect(missing.code).toBe('not_found')
  })

  it('lets exactly one of two concurrent transitions win: the loser waits for the winner\'s commit, then is refused', async () => {
    const t = await createTenant(db(), 'Race')
    const run = await agentRunIn(t, 'queued')
    let release!: () => void
    const held = new Promise<void>((r) => { release = r })
    let moved!: () => void
    const winnerMoved = new Promise<void>((r) => { moved = r })
    const winner = db().$transaction(async (tx) => {
      const row = await transition(tx, agentRunStatus, 'cancel', run)
      moved()
      await held
      return row
    }, { timeout: 20_000 })
    await winnerMoved
    const loser = transition(db(), agentRunStatus, 'start', run).then(() => null, (e: unknown) => e)
    // The loser's UPDATE is really waiting on the winner's row lock (not merely scheduled after it).
    for (let i = 0; ; i++) {
      const [w] = await db().$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`
      if (Number(w.n) > 0) break
      if (i > 200) throw new Error('the second transition never waited for the first')
      await new Promise((r) => setTimeout(r, 10))
    }
    release()
    expect(await winner).toMatchObject({ status: 'cancelled' })
    const e = await loser
    expect(e).toBeInstanceOf(DomainError)
    expect(e).toMatchObject({ code: 'invalid_transition', from: 'cancelled', to: 'running' })
    expect((await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('cancelled')
  })

  it('of eight simultaneous starts of one run, exactly one succeeds and seven are refused', async () => {
    const t = await createTenant(db(), 'Stampede')
    const run = await agentRunIn(t, 'queued')
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => transition(db(), agentRunStatus, 'start', run, { startedAt: new Date() })))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(refused.map((r) => (r.reason as DomainError).code)).toEqual(Array(7).fill('invalid_transition'))
  })

  it('a program owner who disconnects a connection four times at once gets one success, three refusals and one audit row', async () => {
    const t = await createTenant(db(), 'Double disconnect')
    const conn = await connectionIn(t, 'active')
    const token = await t.token('program_owner')
    const mutation = `mutation($id: ID!) { disconnectConnection(id: $id) { __typename
      ... on MutationDisconnectConnectionSuccess { connection { status } } ... on Error { code } } }`
    const answers = await Promise.all(Array.from({ length: 4 }, () => gql(`${stack.current.gatewayUrl}/graphql`, mutation, { id: conn.id }, token)))
    const results = answers.map((a) => a.body.data?.disconnectConnection)
    expect(results.filter((r) => r?.__typename === 'MutationDisconnectConnectionSuccess')).toHaveLength(1)
    // Refused either before the write (already disconnected) or by the guarded update (lost the race).
    const refusals = results.filter((x) => x?.__typename !== 'MutationDisconnectConnectionSuccess')
    expect(refusals).toHaveLength(3)
    for (const r of refusals) expect(['connection_disconnected', 'invalid_transition']).toContain(r.code)
    expect(await db().auditEvent.count({ where: { targetId: conn.id, action: 'connection.disconnect' } })).toBe(1)
  })

  it('a skill job delivered twice at once records one result: the second delivery loses the guarded update', async () => {
    const t = await createTenant(db(), 'Twice delivered')
    const call = await toolCallIn(t, 'running', 'tox.fih_dose_projection', { inputs: FIH_INPUTS, citations: null })
    await Promise.all([runQueuedSkill(db(), call.id), runQueuedSkill(db(), call.id)])
    const row = await db().toolCall.findUniqueOrThrow({ where: { id: call.id } })
    expect(row.status).toBe('ok')
    expect(await db().artifact.count({ where: { organizationId: t.organization.id, kind: 'skill_result' } })).toBe(1)
    expect(row.resultArtifactId).not.toBeNull()
  })

  it('the inbox sweep expires open and snoozed items past due, wakes ended snoozes, and leaves done items alone', async () => {
    const t = await createTenant(db(), 'Sweep')
    const past = new Date(Date.now() - 60_000)
    const open = await inboxItemIn(t, 'open', { dueAt: past })
    const snoozedPastDue = await inboxItemIn(t, 'snoozed', { dueAt: past })
    const snoozed = await inboxItemIn(t, 'snoozed', { snoozedUntil: past })
    const done = await inboxItemIn(t, 'done', { dueAt: past })
    await sweepInbox(db())
    const status = async (id: string) => (await db().inboxItem.findUniqueOrThrow({ where: { id } })).status
    expect(await status(open.id)).toBe('expired')
    expect(await status(snoozedPastDue.id)).toBe('expired')
    expect(await db().inboxItem.findUniqueOrThrow({ where: { id: snoozed.id } })).toMatchObject({ status: 'open', snoozedUntil: null })
    expect(await status(done.id)).toBe('done')
    // Set-based moves only touch rows in a from-state: nothing left to expire.
    expect(await transitionAll(db(), inboxItemStatus, 'expire', { organizationId: t.organization.id, dueAt: { lte: new Date() } })).toEqual([])
  })
})

// ---- every forbidden (state, transition) pair, generated from core/states/ (issue 41, item 4) ---------------------

/** One row of each stored machine's table, created in any state; its status is then set directly for each case. */
const ANY_ROW: Record<string, (t: Tenant) => Promise<{ id: string; organizationId: string }>> = {
  connection: (t) => connectionIn(t, 'active'),
  inboxItem: (t) => inboxItemIn(t, 'open'),
  agentRun: (t) => agentRunIn(t, 'queued'),
  toolCall: (t) => toolCallIn(t, 'running'),
  requirementSet: (t) => requirementSetIn(t, 'draft'),
  memoryRecord: (t) => db().memoryRecord.create({ data: {
    organizationId: t.organization.id, userId: t.users.scientist.id, programId: t.program.id, tier: 'individual', kind: 'preference',
    summary: 'Prefers tables.', origin: 'human', status: 'kept', contentHash: 'h', namespace: `org/${t.organization.id}/user/${t.users.scientist.id}`,
  } }),
  twinDefinition: (t) => db().twinDefinition.create({ data: { organizationId: t.organization.id, programId: t.program.id, userId: t.users.scientist.id, personaKey: 'scientist' } }),
  stageGate: async (t) => {
    const stage = (key: string, position: number) => db().programStage.create({ data: { organizationId: t.organization.id, programId: t.program.id, key, name: key, position } })
    const [from, to] = [await stage('s1', 1), await stage('s2', 2)]
    return db().stageGate.create({ data: { organizationId: t.organization.id, programId: t.program.id, stageId: from.id, nextStageId: to.id } })
  },
  handoffRequest: (t) => db().handoffRequest.create({ data: {
    organizationId: t.organization.id, programId: t.program.id, fromUserId: t.users.scientist.id, toPersonaKey: 'program_lead',
    kind: 'review', linkedType: 'record', linkedId: 'x',
  } }),
  delegation: (t) => db().delegation.create({ data: {
    organizationId: t.organization.id, userId: t.users.program_lead.id, delegateUserId: t.users.scientist.id,
    startsAt: new Date(), endsAt: new Date(Date.now() + 86_400_000),
  } }),
}

const forbiddenPairs = (m: Machine) => m.states.flatMap((state) =>
  Object.entries(m.transitions).filter(([, t]) => !t.from.includes(state)).map(([name]) => ({ state, name })))

describe('every forbidden transition of every stored machine', () => {
  const stored = MACHINES.filter((m) => m.storage.model)

  it('has a row factory for each stored machine', () => {
    expect(stored.map((m) => m.storage.model).sort()).toEqual(Object.keys(ANY_ROW).sort())
  })

  it.each(stored.map((m) => ({ m, name: m.name, pairs: forbiddenPairs(m).length })))('$name: each of its $pairs forbidden (state, transition) pairs is refused with invalid_transition, the row unchanged', async ({ m }) => {
    const t = await createTenant(db(), `Forbidden ${m.name}`)
    const row = await ANY_ROW[m.storage.model!](t)
    const [table, column] = m.name.split('.')
    const enumType = (m.storage as { dbType: string }).dbType.replace(/^enum /, '')
    // This file's own database: the CHECK constraints that tie a status to other columns (a retired twin has
    // retired_at, a forgotten note is blanked) would stop a status being set alone; the guard is what is tested here.
    const checks = await db().$queryRawUnsafe<{ conname: string }[]>(`SELECT conname FROM pg_constraint WHERE contype = 'c' AND conrelid = '${table}'::regclass`)
    for (const c of checks) await db().$executeRawUnsafe(`ALTER TABLE ${table} DROP CONSTRAINT "${c.conname}"`)
    const pairs = forbiddenPairs(m)
    expect(pairs.length).toBeGreaterThan(0)
    for (const { state, name } of pairs) {
      await db().$executeRawUnsafe(`UPDATE ${table} SET ${column} = $1::${enumType} WHERE id = $2::uuid`, state, row.id)
      const before = await reread(m.storage.model!, row.id)
      const e = await refusal(transition(db(), m as Machine<string, string, StatefulModel>, name, row))
      expect({ code: e.code, from: (e as InvalidTransition).from }, `${m.name}: ${name} from ${state}`).toEqual({ code: 'invalid_transition', from: state })
      expect(await reread(m.storage.model!, row.id), `${m.name}: ${name} from ${state}`).toEqual(before)
    }
  })

  it('refuses to resume, pause or retire a retired twin: retired is final', async () => {
    const t = await createTenant(db(), 'Retired twin')
    const twin = await ANY_ROW.twinDefinition(t)
    await transition(db(), twinStatus, 'retire', twin, { retiredAt: new Date() })
    for (const name of ['resume', 'pause', 'retire'] as const) {
      const e = await refusal(transition(db(), twinStatus, name, twin))
      expect(e).toMatchObject({ code: 'invalid_transition', from: 'retired' })
    }
    expect(await db().twinDefinition.findUniqueOrThrow({ where: { id: twin.id } })).toMatchObject({ status: 'retired' })
  })
})

describe('state machine declarations', () => {
  const specFile = (doc: string) => fs.existsSync(SPEC_DIR) ? fs.readdirSync(SPEC_DIR).find((f) => f.startsWith(`${doc}_`)) : undefined
  const quoted = MACHINES.filter((m) => m.quote)

  it.skipIf(!specFile('002'))('declare each state set with exactly the values the documents list (skipped when ../shared/spec is absent)', () => {
    expect(quoted.map((m) => m.name).sort()).toEqual([
      'delegations.status', 'handoff_requests.status', 'inbox_items.status', 'launch_ids', 'memory_records.status',
      'skill status', 'sop_versions.lifecycle_state', 'stage_gates.status', 'twin_definitions.status', 'webhook_deliveries.outcome',
    ])
    for (const m of quoted) {
      const text = fs.readFileSync(path.join(SPEC_DIR, specFile(m.quote!.doc)!), 'utf8')
      expect(text, `${m.name}: the quote is not in spec ${m.quote!.doc}`).toContain(m.quote!.text)
      if (m.name === 'launch_ids') continue // a lifecycle in words, no value list
      // The value list: in parentheses, after a colon, or in the last table cell.
      const q = m.quote!.text
      const list = q.includes('(') ? q.slice(q.indexOf('(') + 1, q.lastIndexOf(')')) : q.includes(':') ? q.slice(q.indexOf(':') + 1) : q.split('|').at(-2)!
      const values = list.replace(/\.$/, '').split(/,|\band\b/).map((v) => v.trim().replace(/^with\s+/, '').replace(/\s+reserved$/, '')).filter(Boolean)
      expect([...m.states].sort(), m.name).toEqual(values.sort())
    }
  })

  it('keep each applied status column a database enum holding exactly the declared states', async () => {
    const applied = MACHINES.filter((m) => m.storage.model)
    expect(applied.map((m) => m.name)).toEqual(['connections.status', 'inbox_items.status', 'agent_runs.status', 'tool_calls.status', 'memory_records.status', 'twin_definitions.status', 'requirement_sets.status', 'stage_gates.status', 'handoff_requests.status', 'delegations.status'])
    for (const m of applied) {
      const [table, column] = m.name.split('.')
      const rows = await db().$queryRaw<{ label: string }[]>`
        SELECT e.enumlabel AS label FROM information_schema.columns c
        JOIN pg_type t ON t.typname = c.udt_name JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE c.table_schema = 'public' AND c.table_name = ${table} AND c.column_name = ${column} ORDER BY e.enumsortorder`
      expect(rows.map((r) => r.label), m.name).toEqual([...m.states])
    }
    const t = await createTenant(db(), 'Enum')
    const call = await toolCallIn(t, 'running')
    await expect(db().$executeRaw`UPDATE tool_calls SET status = 'done' WHERE id = ${call.id}::uuid`).rejects.toThrow(/invalid input value for enum/)
  })

  it('refuse, when they load, a transition that names a state outside the set', () => {
    expect(() => defineMachine({
      name: 'x.status', noun: 'x', states: ['a', 'b'], initial: ['a'], source: 'test',
      storage: { model: null, column: 'status', note: 'test' },
      transitions: { go: { from: ['a'], to: 'c' as 'b', by: 'test', basis: 'designed', source: 'test' } },
    })).toThrow(/unknown state c/)
  })
})
