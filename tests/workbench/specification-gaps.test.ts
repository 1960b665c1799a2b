// The last specification gaps (issue 40) through the gateway: the picker's suggested first choices, and whether a
// person may keep a note across programs, known before they try (MemoryRecord.viewerCanKeepAcrossPrograms: the very
// check promoteMemory makes).
import { describe, expect, it } from 'vitest'
import { useStack, gql } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { KEEP, PROMOTE } from '../memory/helpers'
import { SUGGESTED_FIRST_CHOICES } from '../../core/identity'
import { contentHash, namespaceFor } from '../../domain/memory'

const stack = useStack()
const url = () => `${stack.current.gatewayUrl}/graphql`
const as = async (t: Tenant, persona: keyof Tenant['users'], query: string, variables: Record<string, unknown> = {}) =>
  gql(url(), query, variables, await t.token(persona))

describe('the workbench role picker', () => {
  it("marks the specification's suggested first choices (qa_reviewer, program_manager, portfolio_head, cmc_process_scientist) and no other role", async () => {
    const t = await createTenant(stack.db.db, 'Suggested')
    const r = await as(t, 'program_lead', `query($p: ID) { workbenchRoles(programId: $p) { key suggestedFirst } }`, { p: t.program.id })
    expect(r.body.errors).toBeUndefined()
    const suggested = r.body.data.workbenchRoles.filter((x: any) => x.suggestedFirst).map((x: any) => x.key)
    expect(suggested.sort()).toEqual(['cmc_process_scientist', 'portfolio_head', 'program_manager', 'qa_reviewer'])
    expect([...SUGGESTED_FIRST_CHOICES].sort()).toEqual(suggested)
  })
})

describe('keeping a note across programs', () => {
  const FIELD = `query($p: ID) { myMemory(programId: $p) { nodes { id summary viewerCanKeepAcrossPrograms } } }`

  it('says a scientist may keep their own note across programs, and the promotion they then ask for succeeds', async () => {
    const t = await createTenant(stack.db.db, 'KeepAcrossYes')
    const kept = await as(t, 'scientist', KEEP, { input: { programId: t.program.id, kind: 'preference', summary: 'Prefers tables sorted by species.' } })
    const id = kept.body.data.keepMemoryNote.record.id
    const mine = await as(t, 'scientist', FIELD, { p: t.program.id })
    expect(mine.body.data.myMemory.nodes).toEqual([{ id, summary: 'Prefers tables sorted by species.', viewerCanKeepAcrossPrograms: true }])
    const promoted = await as(t, 'scientist', PROMOTE, { p: t.program.id, id })
    expect(promoted.body.data.promoteMemory.__typename).toBe('MutationPromoteMemorySuccess')
  })

  it('says a quality reviewer may not keep their note across programs, before they try, and the promotion is refused as it says', async () => {
    const t = await createTenant(stack.db.db, 'KeepAcrossNo')
    // A note of theirs from the program (kept while they held another persona): quality reviewers lack
    // program.agent_memory.manage at persona version 4.
    const user = t.users.quality_reviewer
    const summary = 'Prefers deviations listed by date.'
    const note = await stack.db.db.memoryRecord.create({
      data: {
        organizationId: t.organization.id, userId: user.id, programId: t.program.id, tier: 'individual', kind: 'preference', summary,
        origin: 'human', status: 'kept', passageRefs: [], contentHash: contentHash(summary),
        namespace: namespaceFor({ organizationId: t.organization.id, userId: user.id, tier: 'individual', programId: t.program.id }),
      },
    })
    const mine = await as(t, 'quality_reviewer', FIELD, { p: t.program.id })
    expect(mine.body.data.myMemory.nodes).toEqual([{ id: note.id, summary, viewerCanKeepAcrossPrograms: false }])
    const promoted = await as(t, 'quality_reviewer', PROMOTE, { p: t.program.id, id: note.id })
    expect(promoted.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN')
    expect(await stack.db.db.memoryRecord.count({ where: { userId: user.id, tier: 'person' } })).toBe(0)
  })
})

describe('user settings the service never reads', () => {
  it('serves neither inbox_shortcuts nor illustrative, even when a row still holds them, and keeps every setting it reads', async () => {
    const t = await createTenant(stack.db.db, 'Unserved')
    const user = t.users.scientist
    await stack.db.db.user.update({
      where: { id: user.id },
      data: { settings: { timezone: 'Europe/Paris', digest_time: '07:30', quiet_hours: null, inbox_shortcuts: true, illustrative: true, workbench_role: {} } },
    })
    const me = await as(t, 'scientist', `{ me { settings } }`)
    expect(me.body.errors).toBeUndefined()
    expect(me.body.data.me.settings).toEqual({ timezone: 'Europe/Paris', digest_time: '07:30', quiet_hours: null, workbench_role: {} })
    const updated = await as(t, 'scientist', `mutation($p: ID!) { updateMySettings(input: { workbenchRoles: [{ programId: $p, workbenchRoleKey: "medicinal_chemist" }] }) { __typename ... on MutationUpdateMySettingsSuccess { settings { settings } } } }`, { p: t.program.id })
    const served = updated.body.data.updateMySettings.settings.settings
    expect(Object.keys(served).sort()).toEqual(['digest_time', 'quiet_hours', 'timezone', 'workbench_role'])
  })
})
