// Workbench roles through the gateway as a person uses them: the picker's setting (every row of the document's
// settings table), a lead's assignment and 'Set by <Name> on <date>. Change', the fallback for multi-persona people
// audited once, the role home's four regions filled from all three subgraphs in one query, source statuses, the
// harness fixed for a run, the footers of a role's proposal and of the record it wrote, the home's decisions read in
// the same SQL statements however many there are, and isolation of assignment between programs.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useStack, gql, waitFor } from '../helpers/stack'
import { addMember, createProgram, createTenant, createTwoOrganizations, createUser, expectRowsExist, type Tenant } from '../helpers/factories'
import { mintDevToken } from '../../core/identity'
import { contextForUser } from '../../core/jobs'
import { loadSession } from '../../core/identity'
import { WORKBENCH } from '../../core/text'
import { env, setEnv } from '../../core/config'
import { applyRecordChange } from '../../domain/records'
import { keepMemoryNote } from '../../domain/memory'
import { fileProposal } from '../../domain/proposals'
import { runTwinCycle } from '../../domain/twins'
import { effectiveToolset } from '../../subgraphs/twins/tools/toolset'
import { mintRunToken } from '../../subgraphs/twins/tools/run-tokens'
import { ToolClient } from '../../subgraphs/twins/harness/tool-client'
import { recordingHarness, seedTwin } from '../twins/twin-helpers'

const stack = useStack()
const db = () => stack.db.db
const url = () => `${stack.current.gatewayUrl}/graphql`
const ERR = `__typename ... on Error { code message field }`

const SET = `mutation($input: UserSettingsUpdate!) { updateMySettings(input: $input) {
  ${ERR} ... on MutationUpdateMySettingsSuccess { settings { settings workbenchRoles { programId workbenchRoleKey workbenchRole { name } } } } } }`
const ASSIGN = `mutation($p: ID!, $u: ID!, $k: String!, $reason: String) { assignWorkbenchRole(programId: $p, userId: $u, input: { workbenchRoleKey: $k, reason: $reason }) {
  ${ERR} ... on MutationAssignWorkbenchRoleSuccess { assignment { userId programId workbenchRoleKey setByUserId setAt reason } } } }`
const HOME = `query($p: ID!) { workbench(programId: $p) {
  programId workbenchRoleKey name harnessKey fallback personaKey prompt pickerSentence regions recordTypes
  setBy { name line user { id } }
} }`
const ME = `{ me { settings workbenchRoles { programId workbenchRoleKey } programs { program { id } personas } } }`

const as = async (token: string, query: string, variables: Record<string, unknown> = {}) => gql(url(), query, variables, token)
const tok = (t: Tenant, p: Parameters<Tenant['token']>[0]) => t.token(p)
const settingsOf = async (userId: string) => ((await db().user.findUniqueOrThrow({ where: { id: userId } })).settings as any)
const audits = (programId: string, targetId: string, action?: string) =>
  db().auditEvent.findMany({ where: { programId, targetId, ...(action ? { action } : { action: { startsWith: 'workbench_role.' } }) }, orderBy: { entrySeq: 'asc' } })
const longDate = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

describe('the picker and GET /workbench-roles', () => {
  it('lists the fifteen workbench roles with status and version, each saying whether the caller may pick it in a program', async () => {
    const t = await createTenant(db())
    const r = await as(await tok(t, 'quality_reviewer'), `query($p: ID) { workbenchRoles(programId: $p) { key name personas recordTypes rail harnessKey status labelMapKey version pickable } }`, { p: t.program.id })
    expect(r.body.errors).toBeUndefined()
    const roles = r.body.data.workbenchRoles
    expect(roles).toHaveLength(15)
    expect(roles.every((x: any) => x.version === 1 && x.status === 'designed')).toBe(true)
    expect(roles.filter((x: any) => x.pickable).map((x: any) => x.key)).toEqual(['qa_reviewer'])
    expect(roles.find((x: any) => x.key === 'qa_reviewer')).toMatchObject({ name: 'Quality reviewer (QA)', personas: ['quality_reviewer'], harnessKey: 'quality_reviewer', rail: ['review'] })
  })
})

describe('workbench roles of a later release', () => {
  it('keeps the four roles the catalogue marks R5 designed when the R4 gate list passes, while the R4 roles read preview', async () => {
    const t = await createTenant(db())
    const before = env()
    setEnv({ ...before, R4_GATE_PASSED: true })
    try {
      const r = await as(await tok(t, 'scientist'), `query($p: ID) { workbenchRoles(programId: $p) { key status release pickable } }`, { p: t.program.id })
      expect(r.body.errors).toBeUndefined()
      const roles = r.body.data.workbenchRoles as { key: string; status: string; release: string; pickable: boolean }[]
      const r5 = roles.filter((x) => x.release === 'R5')
      expect(r5.map((x) => x.key).sort()).toEqual(['biostatistician', 'computational_biologist', 'formulation_scientist', 'portfolio_head'])
      expect(r5.every((x) => x.status === 'designed')).toBe(true)
      expect(roles.filter((x) => x.release === 'R4').every((x) => x.status === 'preview')).toBe(true)
      // Still pickable by a person holding the persona: the gate list counts fifteen roles.
      expect(roles.find((x) => x.key === 'biostatistician')!.pickable).toBe(true)
    } finally {
      setEnv(before)
    }
  })
})

describe('the workbench role setting (PATCH /me/settings)', () => {
  it('stores a held key per person and program, audited workbench_role.set, and GET /me returns it in the settings', async () => {
    const t = await createTenant(db())
    const token = await tok(t, 'scientist')
    const r = await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'medicinal_chemist' }] } })
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.updateMySettings.settings.workbenchRoles).toEqual([{ programId: t.program.id, workbenchRoleKey: 'medicinal_chemist', workbenchRole: { name: 'Medicinal chemist' } }])
    expect((await settingsOf(t.users.scientist.id)).workbench_role).toEqual({ [t.program.id]: 'medicinal_chemist' })
    // Other settings are kept.
    expect(await settingsOf(t.users.scientist.id)).toMatchObject({ timezone: expect.any(String) })
    const [event] = await audits(t.program.id, t.users.scientist.id)
    expect(event).toMatchObject({ action: 'workbench_role.set', actorUserId: t.users.scientist.id, targetType: 'user', details: { workbench_role_key: 'medicinal_chemist', previous: null } })
    const me = await as(token, ME)
    expect(me.body.data.me.settings.workbench_role).toEqual({ [t.program.id]: 'medicinal_chemist' })
    expect(me.body.data.me.workbenchRoles).toEqual([{ programId: t.program.id, workbenchRoleKey: 'medicinal_chemist' }])
    // Setting the same key again changes nothing and audits nothing.
    await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'medicinal_chemist' }] } })
    expect(await audits(t.program.id, t.users.scientist.id)).toHaveLength(1)
  })

  it('refuses a key outside the personas held with workbench_role_not_held beside the picker, writing nothing of the request', async () => {
    const t = await createTenant(db())
    const other = await createProgram(db(), t.organization.id)
    await addMember(db(), other, t.users.scientist.id, ['scientist'])
    const token = await tok(t, 'scientist')
    const r = await as(token, SET, { input: { workbenchRoles: [
      { programId: other.id, workbenchRoleKey: 'biostatistician' },
      { programId: t.program.id, workbenchRoleKey: 'qa_reviewer' },
    ] } })
    expect(r.body.data.updateMySettings).toMatchObject({ __typename: 'WorkbenchRoleNotHeld', code: 'workbench_role_not_held', field: 'input.workbenchRoles.1.workbenchRoleKey' })
    expect((await settingsOf(t.users.scientist.id)).workbench_role ?? {}).toEqual({})
    expect(await db().auditEvent.count({ where: { targetId: t.users.scientist.id, action: { startsWith: 'workbench_role.' } } })).toBe(0)
    // Not a member of the program: no persona intersects.
    const outsider = await createProgram(db(), t.organization.id)
    const o = await as(token, SET, { input: { workbenchRoles: [{ programId: outsider.id, workbenchRoleKey: 'medical_writer' }] } })
    expect(o.body.data.updateMySettings.code).toBe('workbench_role_not_held')
    const bad = await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'quality_reviewer' }] } })
    expect(bad.body.data.updateMySettings).toMatchObject({ __typename: 'InvalidInput', field: 'input.workbenchRoles.0.workbenchRoleKey' })
  })

  it('removes the entry on null (audited with new null) and the home returns to the persona home, prompting again', async () => {
    const t = await createTenant(db())
    const token = await tok(t, 'program_lead')
    await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'program_manager' }] } })
    const worn = await as(token, HOME, { p: t.program.id })
    expect(worn.body.data.workbench).toMatchObject({ workbenchRoleKey: 'program_manager', name: 'Program manager', fallback: false, prompt: null, harnessKey: 'program_lead' })
    const r = await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: null }] } })
    expect(r.body.data.updateMySettings.settings.workbenchRoles).toEqual([])
    expect((await settingsOf(t.users.program_lead.id)).workbench_role).toEqual({})
    const events = await audits(t.program.id, t.users.program_lead.id, 'workbench_role.set')
    expect(events.map((e) => e.details)).toEqual([{ workbench_role_key: 'program_manager', previous: null }, { workbench_role_key: null, previous: 'program_manager' }])
    const back = await as(token, HOME, { p: t.program.id })
    expect(back.body.data.workbench).toMatchObject({ workbenchRoleKey: null, name: 'Program lead', fallback: true, prompt: 'Choose your workbench role', harnessKey: 'program_lead' })
  })
})

describe('assignment by a lead (PUT /programs/{program_id}/workbench-roles/{user_id})', () => {
  it("writes the member's setting under program.members.manage, audited with the lead as actor and the member as target; the member's home reads 'Set by <Name> on <date>. Change'", async () => {
    const t = await createTenant(db())
    const r = await as(await tok(t, 'program_lead'), ASSIGN, { p: t.program.id, u: t.users.scientist.id, k: 'dmpk_tox_scientist', reason: 'Leads the tox package' })
    expect(r.body.errors).toBeUndefined()
    const a = r.body.data.assignWorkbenchRole.assignment
    expect(a).toMatchObject({ userId: t.users.scientist.id, programId: t.program.id, workbenchRoleKey: 'dmpk_tox_scientist', setByUserId: t.users.program_lead.id, reason: 'Leads the tox package' })
    expect((await settingsOf(t.users.scientist.id)).workbench_role).toEqual({ [t.program.id]: 'dmpk_tox_scientist' })
    const [event] = await audits(t.program.id, t.users.scientist.id)
    expect(event).toMatchObject({ action: 'workbench_role.assign', actorUserId: t.users.program_lead.id, targetType: 'user', targetId: t.users.scientist.id })
    const home = await as(await tok(t, 'scientist'), HOME, { p: t.program.id })
    expect(home.body.data.workbench.setBy).toEqual({
      name: t.users.program_lead.name, user: { id: t.users.program_lead.id },
      line: `Set by ${t.users.program_lead.name} on ${longDate(new Date(a.setAt))}. Change`,
    })
    expect(home.body.data.workbench.setBy.line).toMatch(/^Set by .+ on \d{1,2} [A-Z][a-z]+ \d{4}\. Change$/)
    // The member changes it themselves: the line goes.
    await as(await tok(t, 'scientist'), SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'medical_writer' }] } })
    expect((await as(await tok(t, 'scientist'), HOME, { p: t.program.id })).body.data.workbench.setBy).toBeNull()
  })

  it('refuses a key the member does not hold (workbench_role_not_held) and a caller without program.members.manage (FORBIDDEN), writing nothing', async () => {
    const t = await createTenant(db())
    const notHeld = await as(await tok(t, 'program_lead'), ASSIGN, { p: t.program.id, u: t.users.scientist.id, k: 'qa_reviewer' })
    expect(notHeld.body.data.assignWorkbenchRole).toMatchObject({ code: 'workbench_role_not_held', field: 'input.workbenchRoleKey' })
    const forbidden = await as(await tok(t, 'scientist'), ASSIGN, { p: t.program.id, u: t.users.scientist.id, k: 'medical_writer' })
    expect(forbidden.body.errors?.[0].extensions).toMatchObject({ code: 'FORBIDDEN', permission: 'program.members.manage' })
    const stranger = await createUser(db(), t.organization.id)
    const notMember = await as(await tok(t, 'program_lead'), ASSIGN, { p: t.program.id, u: stranger.id, k: 'medical_writer' })
    expect(notMember.body.data.assignWorkbenchRole).toMatchObject({ __typename: 'NotFound', field: 'userId' })
    expect(await db().auditEvent.count({ where: { programId: t.program.id, action: { startsWith: 'workbench_role.' } } })).toBe(0)
    expect((await settingsOf(t.users.scientist.id)).workbench_role ?? {}).toEqual({})
  })

  it('keeps assignment inside its program: a lead of program A cannot assign in program B of the same or another organisation', async () => {
    const { a, b } = await createTwoOrganizations(db())
    const programB = await createProgram(db(), a.organization.id)
    const memberB = await createUser(db(), a.organization.id)
    await addMember(db(), programB, memberB.id, ['scientist'])
    // The rows that must stay untouched exist.
    await expectRowsExist(db(), 'role_assignments', b.organization.id)
    expect(await db().roleAssignment.count({ where: { programId: programB.id } })).toBe(1)
    const leadA = await tok(a, 'program_lead')
    const sameOrg = await as(leadA, ASSIGN, { p: programB.id, u: memberB.id, k: 'medical_writer' })
    expect(sameOrg.body.data.assignWorkbenchRole).toMatchObject({ __typename: 'NotFound', field: 'programId' })
    const otherOrg = await as(leadA, ASSIGN, { p: b.program.id, u: b.users.scientist.id, k: 'medical_writer' })
    expect(otherOrg.body.data.assignWorkbenchRole).toMatchObject({ __typename: 'NotFound', field: 'programId' })
    // Nor can the lead reach B's person through A's program.
    const intoA = await as(leadA, ASSIGN, { p: a.program.id, u: b.users.scientist.id, k: 'medical_writer' })
    expect(intoA.body.data.assignWorkbenchRole).toMatchObject({ __typename: 'NotFound', field: 'userId' })
    expect((await settingsOf(memberB.id)).workbench_role ?? {}).toEqual({})
    expect((await settingsOf(b.users.scientist.id)).workbench_role ?? {}).toEqual({})
    expect(await db().auditEvent.count({ where: { action: 'workbench_role.assign', organizationId: { in: [a.organization.id, b.organization.id] } } })).toBe(0)
    // And the home of another organisation's program reads as nothing.
    expect((await as(leadA, HOME, { p: b.program.id })).body.data.workbench).toBeNull()
  })
})

describe('fallback', () => {
  it('uses the neutral persona harness by owner, lead, quality reviewer, manufacturing specialist, scientist; never writes the setting; audits default_applied once per person and program; keeps prompting', async () => {
    const t = await createTenant(db())
    const cases: [string[], string | null, string | null][] = [
      [['scientist', 'quality_reviewer'], 'quality_reviewer', 'Quality reviewer'],
      [['scientist', 'manufacturing_specialist'], 'manufacturing_specialist', 'Manufacturing specialist'],
      [['manufacturing_specialist', 'program_lead', 'scientist'], 'program_lead', 'Program lead'],
      [['quality_reviewer', 'program_owner'], 'program_owner', 'Program owner'],
      [['viewer', 'scientist'], 'scientist', 'Scientist'],
      [['viewer'], null, null],
    ]
    for (const [personas, harness, name] of cases) {
      const person = await createUser(db(), t.organization.id)
      await addMember(db(), t.program, person.id, personas)
      const before = await settingsOf(person.id)
      const token = await mintDevToken(person)
      for (let view = 0; view < 2; view++) {
        const r = await as(token, HOME, { p: t.program.id })
        expect(r.body.errors, personas.join('+')).toBeUndefined()
        // A viewer has no harness and no role to choose, so nothing prompts.
        expect(r.body.data.workbench, personas.join('+')).toMatchObject({ workbenchRoleKey: null, fallback: true, harnessKey: harness, name, prompt: harness ? WORKBENCH.chooseYourWorkbenchRole : null })
      }
      expect(await settingsOf(person.id)).toEqual(before)
      const applied = await audits(t.program.id, person.id, 'workbench_role.default_applied')
      expect(applied, personas.join('+')).toHaveLength(1)
      expect(applied[0]).toMatchObject({ actorUserId: person.id, details: { harness_key: harness } })
    }
    // Concurrent first views still audit once.
    const person = await createUser(db(), t.organization.id)
    await addMember(db(), t.program, person.id, ['scientist'])
    const token = await mintDevToken(person)
    await Promise.all(Array.from({ length: 5 }, () => as(token, HOME, { p: t.program.id })))
    expect(await audits(t.program.id, person.id, 'workbench_role.default_applied')).toHaveLength(1)
  })
})

describe('the role home (GET /programs/{program_id}/workbench)', () => {
  it('opens the home of a person with two personas and a workbench role with every region filled from all three subgraphs in one query', async () => {
    const t = await createTenant(db())
    const orgId = t.organization.id
    const programId = t.program.id
    const person = await createUser(db(), orgId, { name: 'Cam Process' })
    await addMember(db(), t.program, person.id, ['scientist', 'manufacturing_specialist'])
    const token = await mintDevToken(person)
    expect((await as(token, SET, { input: { workbenchRoles: [{ programId, workbenchRoleKey: 'cmc_process_scientist' }] } })).body.errors).toBeUndefined()

    const lead = await contextForUser(db(), t.users.program_lead.id, orgId)
    const question = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.questions', title: 'Which salt form goes to tox?', fields: { owner_user_id: person.id } })
    const finding = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Form B is less hygroscopic', fields: { kind: 'observation' } })
    await applyRecordChange(lead, { kind: 'create', programId, recordType: 'progress.milestones', title: 'Tech transfer', fields: {} }).catch(() => null)
    const me = await contextForUser(db(), person.id, orgId)
    await keepMemoryNote(me, { programId, kind: 'preference', summary: 'Prefers batch tables sorted by date.' })

    // Twins subgraph: the person's twins, and two proposals waiting: one on a role type, one outside the role.
    // One active twin per person and program: the scientist twin waits paused.
    const twinSci = await db().twinDefinition.create({ data: { organizationId: orgId, programId, userId: person.id, personaKey: 'scientist', duties: ['blocker_scan'], status: 'paused', pausedReason: 'user' } })
    const twinMs = await db().twinDefinition.create({ data: { organizationId: orgId, programId, userId: person.id, personaKey: 'manufacturing_specialist', duties: ['blocker_scan'] } })
    const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId: twinSci.id, initiatedBy: 'user', startedByUserId: person.id, harnessKey: 'scientist', workbenchRoleKey: 'cmc_process_scientist' } })
    const twin = await contextForUser(db(), person.id, orgId, { twinId: twinSci.id })
    const inRole = await fileProposal(twin, { runId: run.id, change: { kind: 'update', recordId: finding.recordId, fields: { summary: 'Lower uptake at 75% RH.' } }, basisRecordIds: [], draft: 'Form B data.' })
    const outside = await fileProposal(twin, { runId: run.id, change: { kind: 'create', programId, recordType: 'evidence.gaps', title: 'No photostability data', fields: { severity: 'medium' } }, basisRecordIds: [], draft: 'Gap.' })

    // Connectors subgraph: one provider connected and verified, one degraded, one not connected.
    const connection = (providerId: string, health: object, healthCheckedAt: Date | null) => db().connection.create({
      data: {
        organizationId: orgId, programId, providerId, name: providerId, credentialClass: 'service', apiVersion: 'v1', consentedBy: t.users.program_owner.id,
        consentedAt: new Date(), createdByUserId: t.users.program_owner.id, health, healthCheckedAt,
      },
    })
    await connection('eln_provider', { status: 'ok' }, new Date('2026-11-20T09:00:00Z'))
    await connection('qms_provider', { status: 'failing' }, new Date('2026-11-21T09:00:00Z'))

    const r = await as(token, `query($p: ID!) { workbench(programId: $p) {
      workbenchRoleKey name fallback personaKey prompt regions recordTypes
      decisions { id kind title proposal { id } }
      otherDecisionCount
      questions { id title }
      pins { id recordType title }
      statusLines { text recordType asOf recordRef { recordType recordId href record { id } } }
      memorySummary { id summary tier }
      twin { id personaKey }
      sources { provider status verifiedOn }
      setBy { line }
      workbenchRole { name rail }
    } }`, { p: programId })
    expect(r.body.errors).toBeUndefined()
    const home = r.body.data.workbench
    expect(home).toMatchObject({ workbenchRoleKey: 'cmc_process_scientist', name: 'CMC / process scientist', fallback: false, personaKey: 'manufacturing_specialist', prompt: null, setBy: null })
    expect(home.regions).toEqual(["Today's decisions", 'My open questions', 'My evidence board', "My program in this role's terms"])
    // Both personas are held, so every section of the role appears.
    expect(home.recordTypes).toEqual(['plans.plans', 'progress.milestones', 'progress.dependencies', 'plans.protocols', 'evidence.findings'])
    // From the twins subgraph.
    expect(home.decisions.map((d: any) => d.proposal?.id)).toEqual([inRole.proposalId])
    expect(home.decisions[0]).toMatchObject({ kind: 'decision' })
    expect(home.otherDecisionCount).toBe(1)
    expect(home.twin).toEqual({ id: twinMs.id, personaKey: 'manufacturing_specialist' })
    expect(outside.proposalId).not.toBe(inRole.proposalId)
    // From the workbench subgraph.
    expect(home.questions).toEqual([{ id: question.recordId, title: 'Which salt form goes to tox?' }])
    expect(home.pins.map((p: any) => p.id)).toEqual([finding.recordId])
    const findings = home.statusLines.find((l: any) => l.recordType === 'evidence.findings')
    expect(findings).toMatchObject({ text: '1 finding: 1 draft', recordRef: { recordType: 'evidence.findings', recordId: finding.recordId, href: `/p/${t.program.slug}/records/${finding.recordId}`, record: { id: finding.recordId } } })
    expect(new Date(findings.asOf).getTime()).toBeGreaterThan(0)
    expect(home.statusLines.map((l: any) => l.recordType)).toEqual(home.recordTypes)
    expect(home.memorySummary).toEqual([expect.objectContaining({ summary: 'Prefers batch tables sorted by date.', tier: 'individual' })])
    // From the connectors subgraph.
    expect(home.sources).toEqual([
      { provider: 'eln_provider', status: 'connected', verifiedOn: '2026-11-20' },
      { provider: 'qms_provider', status: 'degraded', verifiedOn: null },
      { provider: 'literature_search', status: 'connected', verifiedOn: null },
    ])
    // The same person holding only the scientist persona sees only the scientist's sections of the role.
    await db().roleAssignment.deleteMany({ where: { programId, userId: person.id, personaKey: 'manufacturing_specialist' } })
    const narrowed = await as(token, `query($p: ID!) { workbench(programId: $p) { workbenchRoleKey personaKey recordTypes twin { personaKey } } }`, { p: programId })
    expect(narrowed.body.data.workbench).toEqual({ workbenchRoleKey: 'cmc_process_scientist', personaKey: 'scientist', recordTypes: ['plans.plans', 'plans.protocols', 'evidence.findings'], twin: { personaKey: 'scientist' } })
  })

  it('shows at most three memory records, and Program.workbench answers the same home', async () => {
    const t = await createTenant(db())
    const me = await contextForUser(db(), t.users.scientist.id, t.organization.id)
    for (const s of ['One preference.', 'Two preference.', 'Three preference.', 'Four preference.']) await keepMemoryNote(me, { programId: t.program.id, kind: 'preference', summary: s })
    const r = await as(await tok(t, 'scientist'), `query($p: ID!) { program(id: $p) { workbench { memorySummary { summary } sources { status } decisions { id } otherDecisionCount twin { id } } } }`, { p: t.program.id })
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.program.workbench.memorySummary.map((m: any) => m.summary)).toEqual(['Four preference.', 'Three preference.', 'Two preference.'])
    expect(r.body.data.program.workbench).toMatchObject({ decisions: [], otherDecisionCount: 0, twin: null })
    expect(r.body.data.program.workbench.sources.map((s: any) => s.status)).toEqual(['not_connected', 'not_connected', 'connected'])
  })
})

describe('runs and footers', () => {
  it('fixes the harness when a run starts: choosing another workbench role mid-run changes neither the run nor its toolset', async () => {
    const t = await createTenant(db())
    const token = await tok(t, 'scientist')
    await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'medicinal_chemist' }] } })
    const key = `roles-wait-${randomUUID()}`
    let release!: () => void
    const gate = new Promise<void>((r) => { release = r })
    const harness = recordingHarness(key, { wait: gate })
    try {
      const { twin, trigger } = await seedTwin(db(), t, 'scientist', { harness: key, nextRunAt: null })
      const queued = () => db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'queued', twinId: twin.id, triggerId: trigger.id, initiatedBy: 'schedule' } })
      const run = await queued()
      const cycle = runTwinCycle(db(), run.id)
      await waitFor(async () => (await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).status === 'running', 10_000, 'the run to start')
      expect(await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ harnessKey: 'medicinal_chemist', workbenchRoleKey: 'medicinal_chemist' })
      const toolsOf = async (id: string) => effectiveToolset(await loadSession(db(), t.users.scientist.id), await db().agentRun.findUniqueOrThrow({ where: { id } }) as never).map((x) => x.name)
      expect(await toolsOf(run.id)).toContain('chem.sar_table_build')

      // Mid-run the person picks another role: the running harness stays.
      expect((await as(token, SET, { input: { workbenchRoles: [{ programId: t.program.id, workbenchRoleKey: 'dmpk_tox_scientist' }] } })).body.errors).toBeUndefined()
      expect(await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ harnessKey: 'medicinal_chemist', workbenchRoleKey: 'medicinal_chemist' })
      expect(await toolsOf(run.id)).toContain('chem.sar_table_build')
      expect(await toolsOf(run.id)).not.toContain('tox.fih_dose_projection')
      // The tool server answers from the same function: what the run lists and may call is the medicinal chemist's.
      const runToken = await mintRunToken({ runId: run.id, twinId: twin.id, userId: t.users.scientist.id, organizationId: t.organization.id })
      const client = await ToolClient.connect(new URL(`/runs/${run.id}/mcp`, stack.current.toolsUrl), runToken)
      try {
        expect(client.has('chem.sar_table_build')).toBe(true)
        expect(client.has('tox.fih_dose_projection')).toBe(false)
        expect(client.has('plans.propose_report')).toBe(false)
        const denied = await client.call('tox.fih_dose_projection', { inputs: {} })
        expect(denied).toMatchObject({ ok: false, error: { code: 'harness_denied' } })
      } finally {
        await client.close()
      }
      release()
      expect(await cycle).toEqual({ ran: true, status: 'succeeded' })
      expect(await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ harnessKey: 'medicinal_chemist', workbenchRoleKey: 'medicinal_chemist' })

      // The next run starts under the new role.
      const next = await queued()
      expect(await runTwinCycle(db(), next.id)).toEqual({ ran: true, status: 'succeeded' })
      expect(await db().agentRun.findUniqueOrThrow({ where: { id: next.id } })).toMatchObject({ harnessKey: 'dmpk_tox_scientist', workbenchRoleKey: 'dmpk_tox_scientist' })
      expect(await toolsOf(next.id)).toContain('tox.fih_dose_projection')
    } finally {
      release()
      harness.off()
    }
  })

  it('starts a run of a person with nothing set under the neutral persona harness, auditing default_applied once with the twin as actor', async () => {
    const t = await createTenant(db())
    const key = `roles-fallback-${randomUUID()}`
    const harness = recordingHarness(key)
    try {
      const { twin, trigger } = await seedTwin(db(), t, 'quality_reviewer', { harness: key, nextRunAt: null, duty: 'pre_read' })
      for (let i = 0; i < 2; i++) {
        const run = await db().agentRun.create({ data: { organizationId: t.organization.id, programId: t.program.id, kind: 'twin_cycle', status: 'queued', twinId: twin.id, triggerId: trigger.id, initiatedBy: 'schedule' } })
        expect(await runTwinCycle(db(), run.id)).toEqual({ ran: true, status: 'succeeded' })
        expect(await db().agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ harnessKey: 'quality_reviewer', workbenchRoleKey: null })
      }
      const applied = await audits(t.program.id, t.users.quality_reviewer.id, 'workbench_role.default_applied')
      expect(applied).toHaveLength(1)
      expect(applied[0]).toMatchObject({ actorType: 'twin', twinId: twin.id })
      expect((await settingsOf(t.users.quality_reviewer.id)).workbench_role ?? {}).toEqual({})
    } finally {
      harness.off()
    }
  })

  it("writes 'Proposed by <Name>'s twin (agent, working as <workbench role>); decided by <Name>' and, under a neutral harness, the persona name, on the decision and on the record it wrote alike", async () => {
    const t = await createTenant(db())
    const orgId = t.organization.id
    const programId = t.program.id
    const lead = await contextForUser(db(), t.users.program_lead.id, orgId)
    const DECIDE = `mutation($id: ID!) { decideProposal(id: $id, decision: APPROVE) { ${ERR} ... on MutationDecideProposalSuccess { proposal { decision { footer recordId } } } } }`
    const RECORD = `query($id: ID!) { record(id: $id) { footer history { version footer } } }`
    // The twin's own person decides (only they, or their delegate, may decide their twin's proposal).
    const deciderToken = await tok(t, 'scientist')
    // The decision's footer and the record's (read from the version the decision wrote) say the same.
    const footerFor = async (harness: { harnessKey: string | null; workbenchRoleKey: string | null }) => {
      const twinId = randomUUID()
      const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: t.users.scientist.id, ...harness } })
      const finding = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: `Finding ${twinId.slice(0, 6)}`, fields: { kind: 'observation' } })
      const twin = await contextForUser(db(), t.users.scientist.id, orgId, { twinId })
      const filed = await fileProposal(twin, { runId: run.id, change: { kind: 'update', recordId: finding.recordId, fields: { summary: 'More.' } }, basisRecordIds: [], draft: 'Draft.' })
      const r = await as(deciderToken, DECIDE, { id: filed.proposalId })
      expect(r.body.errors).toBeUndefined()
      const { footer, recordId } = r.body.data.decideProposal.proposal.decision
      const record = await as(deciderToken, RECORD, { id: recordId })
      expect(record.body.errors).toBeUndefined()
      // Version 1 the lead wrote in person keeps no footer; version 2 applied from the proposal carries the decision's.
      expect(record.body.data.record).toEqual({ footer, history: [{ version: 2, footer }, { version: 1, footer: null }] })
      return footer
    }
    const scientist = t.users.scientist.name
    expect(await footerFor({ harnessKey: 'medicinal_chemist', workbenchRoleKey: 'medicinal_chemist' })).toBe(`Proposed by ${scientist}'s twin (agent, working as Medicinal chemist); decided by ${scientist}`)
    expect(await footerFor({ harnessKey: 'scientist', workbenchRoleKey: null })).toBe(`Proposed by ${scientist}'s twin (agent, working as Scientist); decided by ${scientist}`)
    // A run that recorded no harness (filed before runs recorded one): the twins document's phrase, on both.
    expect(await footerFor({ harnessKey: null, workbenchRoleKey: null })).toBe(`Proposed by ${scientist}'s twin (agent); decided by ${scientist}`)
  })
})

describe("the cost of the home's decisions", () => {
  it('shows fresh and stale proposals side by side and reads them in the same SQL statements for 2 decisions as for 6 (no query per decision)', async () => {
    const pg = (await import('pg')).default
    const t = await createTenant(db())
    const orgId = t.organization.id
    const programId = t.program.id
    const lead = await contextForUser(db(), t.users.program_lead.id, orgId)
    const steady = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Steady finding', fields: { kind: 'observation' } })
    const moving = await applyRecordChange(lead, { kind: 'create', programId, recordType: 'evidence.findings', title: 'Moving finding', fields: { kind: 'observation' } })
    const twinId = randomUUID()
    const run = await db().agentRun.create({ data: { organizationId: orgId, programId, kind: 'twin_cycle', status: 'running', twinId, initiatedBy: 'user', startedByUserId: t.users.scientist.id, harnessKey: 'scientist' } })
    const twin = await contextForUser(db(), t.users.scientist.id, orgId, { twinId })
    const file = (i: number, basis: string) => fileProposal(twin, { runId: run.id, change: { kind: 'create', programId, recordType: 'evidence.findings', title: `Proposal ${i}`, fields: { kind: 'observation' } }, basisRecordIds: [basis], draft: 'Draft.' })
    const token = await tok(t, 'scientist')
    const Q = `query($p: ID!) { workbench(programId: $p) { decisions { id title proposal { id stale card } } otherDecisionCount } }`

    /** The home through the gateway, with the SQL statements on proposals and records the subgraphs sent for it. */
    const open = async () => {
      const statements: string[] = []
      const query = pg.Client.prototype.query
      pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text ?? ''
        if (/run_interrupts|program_records/.test(text)) statements.push(text)
        return (query as (...a: unknown[]) => unknown).apply(this, args)
      } as typeof query
      try {
        const r = await as(token, Q, { p: programId })
        expect(r.body.errors).toBeUndefined()
        return { home: r.body.data.workbench, statements }
      } finally {
        pg.Client.prototype.query = query
      }
    }

    await file(0, steady.recordId)
    await file(1, moving.recordId)
    await applyRecordChange(lead, { kind: 'update', recordId: moving.recordId, fields: { summary: 'Changed after the twin looked.' } })
    await open() // the first view audits the fallback once; count from the second
    const two = await open()
    const cards = (home: any) => Object.fromEntries(home.decisions.map((d: any) => [d.title, d.proposal.card]))
    expect(cards(two.home)).toEqual({ 'Proposal 0': null, 'Proposal 1': 'Changed since proposed' })

    for (let i = 2; i < 6; i++) await file(i, i % 2 ? moving.recordId : steady.recordId)
    await applyRecordChange(lead, { kind: 'update', recordId: steady.recordId, fields: { summary: 'Changed too.' } })
    const six = await open()
    expect(six.home.decisions).toHaveLength(6)
    // 0, 2 and 4 rest on the steady finding changed since; 1 on the moving one changed before; 3 and 5 saw its change.
    const changed = 'Changed since proposed'
    expect(cards(six.home)).toEqual({ 'Proposal 0': changed, 'Proposal 1': changed, 'Proposal 2': changed, 'Proposal 3': null, 'Proposal 4': changed, 'Proposal 5': null })
    expect(six.statements.length).toBe(two.statements.length)
    // The items' record types, the proposals, and the current versions of every basis record: one statement each.
    expect(six.statements.filter((s) => s.includes('run_interrupts'))).toHaveLength(2)
  })
})
