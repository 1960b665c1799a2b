// The write path as jobs and twins use it (no transport): a person's context, live permissions, the actor in the
// audit trail, every input issue, and publishes and enqueues that exist only when the write commits.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { command, contextForUser } from '../../core/jobs'
import { TenancyViolation } from '../../core/database'
import { InvalidInput, LastOwner } from '../../core/errors'
import * as programs from '../../domain/programs'
import { useTestDatabase } from '../helpers/db'
import { createTenant, createUser } from '../helpers/factories'

const t = useTestDatabase()
const db = () => t.current.db
const jobs = async (task: string) =>
  Number((await db().$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE task_identifier = ${task}`)[0].n)

describe('the write path for jobs and twins', () => {
  it('lets a job act for a person under their live personas, and refuses once that persona is gone', async () => {
    const tenant = await createTenant(db())
    const lead = tenant.users.program_lead
    const ctx = await contextForUser(db(), lead.id, tenant.organization.id)
    await programs.assignPersona(ctx, { programId: tenant.program.id, userId: tenant.users.viewer.id, persona: 'scientist' })
    // The lead is now only a viewer: still reads the program, no longer manages its members.
    await db().roleAssignment.updateMany({ where: { programId: tenant.program.id, userId: lead.id }, data: { personaKey: 'viewer' } })
    const later = await contextForUser(db(), lead.id, tenant.organization.id)
    await expect(programs.assignPersona(later, { programId: tenant.program.id, userId: tenant.users.viewer.id, persona: 'manufacturing_specialist' }))
      .rejects.toMatchObject({ extensions: { code: 'FORBIDDEN', permission: 'program.members.manage' } })
  })

  it('records a twin acting under a person as the twin, with the person as the acting user', async () => {
    const tenant = await createTenant(db())
    const twinId = randomUUID()
    const newcomer = await createUser(db(), tenant.organization.id, { name: 'Tina Twin-added' })
    const ctx = await contextForUser(db(), tenant.users.program_lead.id, tenant.organization.id, { twinId })
    await programs.addMember(ctx, { programId: tenant.program.id, userId: newcomer.id, personas: ['viewer'] })
    const [event] = await db().auditEvent.findMany({ where: { programId: tenant.program.id, action: 'role_assignment.create', twinId } })
    expect(event).toMatchObject({ actorType: 'twin', actorUserId: tenant.users.program_lead.id, twinId, organizationId: tenant.organization.id })
  })

  it('refuses to build a context for a person of another organisation', async () => {
    const a = await createTenant(db(), 'A')
    const b = await createTenant(db(), 'B')
    await expect(contextForUser(db(), b.users.program_owner.id, a.organization.id)).rejects.toBeInstanceOf(TenancyViolation)
  })

  it('reports every issue of the input, each with its field, before anything is read or written', async () => {
    const tenant = await createTenant(db())
    const ctx = await contextForUser(db(), tenant.users.org_admin.id, tenant.organization.id)
    const refused = await programs.createProgram(ctx, { slug: 'Bad Slug!', name: '  ' }).catch((e) => e)
    expect(refused).toBeInstanceOf(InvalidInput)
    expect(refused.issues).toEqual([
      { field: 'slug', message: 'use 2 to 63 lower-case letters, digits and hyphens' },
      { field: 'name', message: 'a name is required' },
    ])
  })

  it('commits the audit row, the NOTIFY and the job with the write, and none of them when it fails', async () => {
    const tenant = await createTenant(db())
    const ctx = await contextForUser(db(), tenant.users.program_owner.id, tenant.organization.id)
    const touch = command({
      permission: 'program.settings.update',
      input: z.object({ programId: z.string().uuid(), fail: z.boolean() }),
      program: (input) => input.programId,
      audit: ['program.update'],
      async run(w, input) {
        await w.audit('program.update', { type: 'program', id: input.programId })
        await w.publish('inbox_changed', { id: randomUUID(), userId: tenant.users.program_owner.id, organizationId: tenant.organization.id })
        await w.enqueue('inbox_expire', {}, { jobKey: `test:${input.programId}` })
        if (input.fail) throw new LastOwner()
        return 'done'
      },
    })
    const before = await jobs('inbox_expire')
    await expect(touch(ctx, { programId: tenant.program.id, fail: true })).rejects.toBeInstanceOf(LastOwner)
    expect(await jobs('inbox_expire')).toBe(before)
    expect(await db().auditEvent.count({ where: { programId: tenant.program.id, action: 'program.update' } })).toBe(0)
    expect(await touch(ctx, { programId: tenant.program.id, fail: false })).toBe('done')
    expect(await jobs('inbox_expire')).toBe(before + 1)
    const [event] = await db().auditEvent.findMany({ where: { programId: tenant.program.id, action: 'program.update' } })
    expect(event).toMatchObject({ actorType: 'user', actorUserId: tenant.users.program_owner.id })
  })
})
