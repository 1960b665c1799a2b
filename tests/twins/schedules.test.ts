import { beforeAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { startTestWorker } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { claimDueSchedules } from '../../domain/twins'
import { BACKPRESSURE_OPEN_DECISIONS } from '../../domain/inbox'
import { recordingHarness, seedTwin, waitForRun } from './twin-helpers'

const t = useTestDatabase()
let tenant: Tenant
beforeAll(async () => { tenant = await createTenant(t.current.db, 'Schedules') })

const db = () => t.current.db

async function manyDueSchedules(n: number) {
  const org = await createTenant(db(), 'Many')
  const users = await Promise.all(Array.from({ length: n }, (_, i) => db().user.create({ data: { organizationId: org.organization.id, email: `many-${i}-${org.organization.slug}@test.example`, name: `Many ${i}` } })))
  for (const u of users) await db().roleAssignment.create({ data: { organizationId: org.organization.id, programId: org.program.id, userId: u.id, personaKey: 'scientist' } })
  await db().$executeRaw`
    WITH d AS (
      INSERT INTO twin_definitions (organization_id, program_id, user_id, persona_key, duties)
      SELECT ${org.organization.id}::uuid, ${org.program.id}::uuid, u, 'scientist', '["blocker_scan"]' FROM unnest(${users.map((u) => u.id)}::uuid[]) u
      RETURNING id
    ), t AS (
      INSERT INTO twin_triggers (organization_id, program_id, twin_id, duty_key, kind, standing_plan_json, standing_plan_hash, standing_plan_approved_at)
      SELECT ${org.organization.id}::uuid, ${org.program.id}::uuid, d.id, 'blocker_scan', 'schedule', '{}', 'abc', now() FROM d
      RETURNING id, twin_id
    )
    INSERT INTO twin_schedules (organization_id, twin_id, trigger_id, rrule, next_run_at)
    SELECT ${org.organization.id}::uuid, t.twin_id, t.id, E'DTSTART:20261101T080000Z\nRRULE:FREQ=DAILY', now() - interval '1 minute' FROM t`
  return org
}

describe('twin_schedule', () => {
  it('claims each due schedule exactly once with two workers claiming at the same time', async () => {
    const org = await manyDueSchedules(300)
    const now = new Date()
    const [a, b] = await Promise.all([claimDueSchedules(db(), { now, batch: 50 }), claimDueSchedules(db(), { now, batch: 50 })])
    expect(a.claimed + b.claimed).toBe(300)
    expect(a.enqueued + b.enqueued).toBe(300)
    const runs = await db().$queryRaw<{ trigger_id: string; n: number }[]>`
      SELECT trigger_id, count(*)::int AS n FROM agent_runs WHERE organization_id = ${org.organization.id}::uuid GROUP BY trigger_id`
    expect(runs).toHaveLength(300)
    expect(runs.every((r) => r.n === 1)).toBe(true)
    const jobs = await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM graphile_worker.jobs j JOIN agent_runs r ON j.key = 'twin_cycle:' || r.id WHERE r.organization_id = ${org.organization.id}::uuid`
    expect(jobs[0].n).toBe(300)
    const sample = await db().agentRun.findFirstOrThrow({ where: { organizationId: org.organization.id } })
    expect(sample).toMatchObject({ kind: 'twin_cycle', status: 'queued', initiatedBy: 'schedule' })
    // Every schedule moved to its next occurrence (tomorrow 08:00 UTC), none is due again.
    expect(await db().twinSchedule.count({ where: { organizationId: org.organization.id, nextRunAt: { lte: now } } })).toBe(0)
    const again = await claimDueSchedules(db(), { now })
    expect(again.claimed).toBe(0)
    await db().$executeRaw`DELETE FROM graphile_worker._private_jobs WHERE key LIKE 'twin_cycle:%'`
  })

  it('honours the cadence floor: a schedule due within an hour of its last run moves on without a run', async () => {
    const { schedule, trigger } = await seedTwin(db(), tenant, 'program_owner')
    await db().twinSchedule.update({ where: { id: schedule!.id }, data: { lastRunAt: new Date(Date.now() - 10 * 60_000) } })
    const r = await claimDueSchedules(db())
    expect(r).toMatchObject({ floored: 1, enqueued: 0 })
    expect(await db().agentRun.count({ where: { triggerId: trigger.id } })).toBe(0)
    const moved = await db().twinSchedule.findUniqueOrThrow({ where: { id: schedule!.id } })
    expect(moved.nextRunAt!.getTime()).toBeGreaterThanOrEqual(moved.lastRunAt!.getTime() + 3600_000 - 1000)
  })

  it('defers a person with 25 open decisions (backpressure): the schedule moves on and nothing is queued', async () => {
    const { schedule, trigger, user } = await seedTwin(db(), tenant, 'program_lead')
    await db().inboxItem.createMany({ data: Array.from({ length: BACKPRESSURE_OPEN_DECISIONS }, (_, i) => ({
      organizationId: tenant.organization.id, programId: tenant.program.id, userId: user.id, kind: 'decision' as const, sourceType: 'proposal', sourceId: `p-${i}`, title: `Decision ${i}`,
    })) })
    const r = await claimDueSchedules(db())
    expect(r).toMatchObject({ deferred: 1, enqueued: 0 })
    expect(await db().agentRun.count({ where: { triggerId: trigger.id } })).toBe(0)
    expect((await db().twinSchedule.findUniqueOrThrow({ where: { id: schedule!.id } })).nextRunAt!.getTime()).toBeGreaterThan(Date.now())
    // One decision resolved: under the threshold again, the next due pass fires.
    await db().inboxItem.updateMany({ where: { userId: user.id, sourceId: 'p-0' }, data: { status: 'done' } })
    await db().twinSchedule.update({ where: { id: schedule!.id }, data: { nextRunAt: new Date(Date.now() - 1000) } })
    expect(await claimDueSchedules(db())).toMatchObject({ enqueued: 1 })
    await db().agentRun.updateMany({ where: { triggerId: trigger.id }, data: { status: 'cancelled' } })
  })

  it('never fires a schedule whose standing plan is not approved, or of a paused twin', async () => {
    const unapproved = await seedTwin(db(), tenant, 'quality_reviewer', { approved: false })
    const paused = await seedTwin(db(), tenant, 'manufacturing_specialist')
    await db().twinDefinition.update({ where: { id: paused.twin.id }, data: { status: 'paused', pausedReason: 'user' } })
    const r = await claimDueSchedules(db())
    expect(r.claimed).toBe(0)
    expect(await db().agentRun.count({ where: { triggerId: { in: [unapproved.trigger.id, paused.trigger.id] } } })).toBe(0)
  })

  it('runs through the real worker: the twin_schedule job queues the run and twin_cycle executes it under the schedule', async () => {
    const h = recordingHarness('test-schedules-worker', { outcome: { summary: { proposals_filed: 1 } } })
    const worker = await startTestWorker(t.current)
    try {
      const other = await createTenant(db(), 'Worker')
      const { trigger, twin } = await seedTwin(db(), other, 'scientist', { harness: 'test-schedules-worker' })
      await db().$executeRaw`SELECT graphile_worker.add_job('twin_schedule', '{}'::json)`
      let run = null
      for (let i = 0; i < 200 && !run; i++) {
        run = await db().agentRun.findFirst({ where: { triggerId: trigger.id } })
        if (!run) await new Promise((r) => setTimeout(r, 50))
      }
      expect(run).not.toBeNull()
      const done = await waitForRun(db(), run!.id, ['succeeded', 'failed'])
      expect(done).toMatchObject({ status: 'succeeded', initiatedBy: 'schedule', twinId: twin.id })
      expect(h.seen[0].footer).toMatch(/^started by schedule, under .+'s standing plan \(approved 2026-11-20, plan [0-9a-f]{12}\)$/)
      expect((await db().twinTrigger.findUniqueOrThrow({ where: { id: trigger.id } })).fireCount).toBe(1)
    } finally { h.off(); await worker.close() }
  })
})
