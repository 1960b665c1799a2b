import { afterEach, describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { auditHooksFor, recordAudit, registerAuditHook, PAUSE_ACTIONS, TRIGGERABLE_ACTIONS, type AuditAction } from '../../core/audit'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'

const t = useTestDatabase()
const unhook: (() => void)[] = []
afterEach(() => { while (unhook.length) unhook.pop()!() })

describe('audit recorder', () => {
  it('refuses a row that carries a twin id together with a signature id (CHECK constraint)', async () => {
    const { organization, users } = await createTenant(t.current.db)
    await expect(t.current.db.$transaction((tx) => recordAudit(tx, {
      organizationId: organization.id, action: 'approval.create', actor: { type: 'user', userId: users.program_owner.id },
      target: { type: 'approval', id: randomUUID() }, twinId: randomUUID(), signatureId: randomUUID(),
    }))).rejects.toThrow(/audit_events_signature_exclusive/)
    for (const column of ['batch_id', 'trigger_id', 'delegated_from_user_id']) {
      await expect(t.current.db.$executeRawUnsafe(
        `INSERT INTO audit_events (organization_id, action, actor_type, target_type, target_id, ${column}, signature_id)
         VALUES ($1::uuid, 'x', 'user', 't', '1', gen_random_uuid(), gen_random_uuid())`, organization.id,
      )).rejects.toThrow(/audit_events_signature_exclusive/)
    }
  })

  it('numbers entries with a monotonic entry_seq', async () => {
    const { organization, users } = await createTenant(t.current.db)
    const seqs: bigint[] = []
    for (let i = 0; i < 5; i++) {
      const e = await t.current.db.$transaction((tx) => recordAudit(tx, {
        organizationId: organization.id, action: 'program.update', actor: { type: 'user', userId: users.program_lead.id },
        target: { type: 'program', id: randomUUID() },
      }))
      seqs.push(e.entrySeq)
    }
    expect([...seqs].sort((a, b) => (a < b ? -1 : 1))).toEqual(seqs)
    expect(new Set(seqs).size).toBe(5)
  })

  it('keeps the record write when a post-flush hook fails, and rolls back only what the hook wrote', async () => {
    const { organization, users, program } = await createTenant(t.current.db)
    unhook.push(registerAuditHook({ name: 'writes-then-fails', actions: ['role_assignment.delete'], run: async (tx, event) => {
      await tx.notification.create({ data: { organizationId: event.organizationId, userId: users.scientist.id, kind: 'mention', payload: { from: 'failing hook' } } })
      throw new Error('hook exploded')
    } }))
    let hookSaw = ''
    unhook.push(registerAuditHook({ name: 'healthy', actions: ['role_assignment.delete'], run: async (_tx, event) => { hookSaw = event.action } }))
    const event = await t.current.db.$transaction(async (tx) => {
      const e = await recordAudit(tx, {
        organizationId: organization.id, programId: program.id, action: 'role_assignment.delete',
        actor: { type: 'user', userId: users.program_owner.id }, target: { type: 'role_assignment', id: randomUUID() },
      })
      await tx.artifact.create({ data: { organizationId: organization.id, kind: 'note', content: { after: 'hook' } } })
      return e
    })
    expect(await t.current.db.auditEvent.findUnique({ where: { id: event.id } })).not.toBeNull()
    expect(await t.current.db.artifact.count({ where: { organizationId: organization.id } })).toBe(1)
    expect(await t.current.db.notification.count({ where: { organizationId: organization.id } })).toBe(0)
    expect(hookSaw).toBe('role_assignment.delete')
  })

  it('runs a hook only for the actions it declares: a write of another action opens no savepoint for it', async () => {
    const { organization, users, program } = await createTenant(t.current.db)
    const saw: string[] = []
    unhook.push(registerAuditHook({ name: 'experiments-only', actions: ['experiment.update'], run: async (_tx, event) => { saw.push(event.action) } }))
    const savepoints = { 'stage_gate.open': 0, 'experiment.update': 0 }
    const write = (action: keyof typeof savepoints) => t.current.db.$transaction((tx) => {
      // The transaction as recordAudit sees it, counting the savepoints it opens.
      const counted = new Proxy(tx, {
        get(target, key) {
          const value = Reflect.get(target, key)
          if (key === '$executeRawUnsafe') return (sql: string, ...args: unknown[]) => { if (sql.startsWith('SAVEPOINT')) savepoints[action]++; return tx.$executeRawUnsafe(sql, ...args) }
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      return recordAudit(counted, {
        organizationId: organization.id, programId: program.id, action: action as AuditAction,
        actor: { type: 'user', userId: users.program_lead.id }, target: { type: 'program_record', id: randomUUID() },
      })
    })
    await write('stage_gate.open')
    await write('experiment.update')
    expect(saw).toEqual(['experiment.update'])
    expect(auditHooksFor('stage_gate.open')).toEqual([])
    expect(auditHooksFor('experiment.update')).toContain('experiments-only')
    expect(savepoints).toEqual({ 'stage_gate.open': 0, 'experiment.update': auditHooksFor('experiment.update').length })
  })

  it('rolls the audit row back with the caller when the caller fails', async () => {
    const { organization, users } = await createTenant(t.current.db)
    const target = randomUUID()
    await expect(t.current.db.$transaction(async (tx) => {
      await recordAudit(tx, { organizationId: organization.id, action: 'program.update', actor: { type: 'user', userId: users.program_lead.id }, target: { type: 'program', id: target } })
      throw new Error('caller failed')
    })).rejects.toThrow('caller failed')
    expect(await t.current.db.auditEvent.count({ where: { targetId: target } })).toBe(0)
  })

  it('names the pause actions and the closed set of triggerable actions of the twins document', () => {
    expect(PAUSE_ACTIONS).toEqual(['role_assignment.delete', 'user.deactivate'])
    expect(TRIGGERABLE_ACTIONS).toHaveLength(7)
  })
})
