import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { startTestWorker } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'
import { createTwinRun, finishRun, formatRunFooter, runFooter, startRun } from '../../domain/twins'
import { ABANDONED_RUN_ERROR, CRASHED_RUN_ERROR, failAbandonedRuns, runTwinCycle } from '../../domain/twins'
import { pauseTwin } from '../../domain/twins'
import { systemActor } from '../../core/audit'
import { recordingHarness, seedTwin, waitForRun } from './twin-helpers'
import { forOrganization } from '../../core/database'

const t = useTestDatabase()
let tenant: Tenant
let worker: Awaited<ReturnType<typeof startTestWorker>>
beforeAll(async () => {
  tenant = await createTenant(t.current.db, 'Runs')
  worker = await startTestWorker(t.current)
})
afterAll(async () => { await worker?.close() })

describe('twin runs', () => {
  it('runs a queued twin_cycle through the worker and the harness of its trigger, and ends succeeded with the outcome', async () => {
    const h = recordingHarness('test-runs-ok', { outcome: { summary: { proposals_filed: 1 } } })
    try {
      const { twin, trigger } = await seedTwin(t.current.db, tenant, 'scientist', { harness: 'test-runs-ok', nextRunAt: null })
      const { run, created } = await t.current.db.$transaction((tx) => createTwinRun(tx, {
        organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'schedule',
      }))
      expect(created).toBe(true)
      const done = await waitForRun(t.current.db, run.id, ['succeeded', 'failed'])
      expect(done).toMatchObject({ status: 'succeeded', kind: 'twin_cycle', initiatedBy: 'schedule', outcome: { proposals_filed: 1 } })
      expect(done.startedAt).not.toBeNull()
      expect(done.finishedAt).not.toBeNull()
      expect(h.seen).toHaveLength(1)
      expect(h.seen[0].duties).toEqual(['blocker_scan'])
      expect(h.seen[0].ctx.actor).toEqual({ type: 'twin', userId: tenant.users.scientist.id, twinId: twin.id })
      expect(h.seen[0].footer).toBe(`started by schedule, under ${tenant.users.scientist.name}'s standing plan (approved 2026-11-20, plan ${trigger.standingPlanHash!.slice(0, 12)})`)
      expect(h.seen[0].footer).not.toMatch(/Requested by/)
    } finally { h.off() }
  })

  it('coalesces: a trigger has one queued run, a second create answers it without writing', async () => {
    const { twin, trigger } = await seedTwin(t.current.db, tenant, 'program_lead', { nextRunAt: null })
    const [a, b] = await t.current.db.$transaction(async (tx) => {
      // Held back a minute so the worker does not take it during the test.
      const first = await createTwinRun(tx, { organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'event', runAt: new Date(Date.now() + 60_000) })
      const second = await createTwinRun(tx, { organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'event' })
      return [first, second]
    })
    expect(a.created).toBe(true)
    expect(b).toMatchObject({ created: false, run: { id: a.run.id } })
    expect(await t.current.db.agentRun.count({ where: { triggerId: trigger.id } })).toBe(1)
    const jobs = await t.current.db.$queryRaw<{ n: bigint }[]>`SELECT count(*)::bigint AS n FROM graphile_worker.jobs WHERE key = ${'twin_cycle:' + a.run.id}`
    expect(Number(jobs[0].n)).toBe(1)
    await finishRun(t.current.db, a.run, 'cancelled')
  })

  it('cancels the run of a paused twin instead of running it, and its queued runs when it pauses', async () => {
    const h = recordingHarness('test-runs-paused')
    try {
      const { twin, trigger } = await seedTwin(t.current.db, tenant, 'quality_reviewer', { harness: 'test-runs-paused', nextRunAt: null })
      const { run } = await t.current.db.$transaction((tx) => createTwinRun(tx, {
        organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'schedule', runAt: new Date(Date.now() + 60_000),
      }))
      await t.current.db.$transaction((tx) => pauseTwin(tx, twin, 'user', { actor: { type: 'user', userId: twin.userId }, pausedBy: twin.userId }))
      expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'cancelled' })
      // A run created while paused (e.g. a stale job) is cancelled when picked up.
      const late = await t.current.db.agentRun.create({ data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'twin_cycle', initiatedBy: 'user', twinId: twin.id } })
      expect(await runTwinCycle(t.current.db, late.id)).toEqual({ ran: false, why: 'twin_paused' })
      expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: late.id } })).toMatchObject({ status: 'cancelled', error: 'twin_paused' })
      expect(h.seen).toHaveLength(0)
      const note = await t.current.db.notification.findFirstOrThrow({ where: { userId: twin.userId, kind: 'twin_paused' } })
      expect(note.payload).toMatchObject({ reason: 'user', message: 'Paused. Nothing runs until you resume.' })
      expect(await t.current.db.auditEvent.count({ where: { action: 'twin.pause', targetId: twin.id, twinId: twin.id } })).toBe(1)
    } finally { h.off() }
  })

  it('fails a run a retried job finds running (a crash part-way), never running it twice', async () => {
    const h = recordingHarness('test-runs-crash')
    try {
      const { twin, trigger } = await seedTwin(t.current.db, tenant, 'manufacturing_specialist', { harness: 'test-runs-crash', nextRunAt: null })
      const run = await t.current.db.agentRun.create({ data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id, triggerId: trigger.id } })
      await startRun(t.current.db, run) // the crashed attempt got this far
      expect(await runTwinCycle(t.current.db, run.id)).toEqual({ ran: false, why: 'crashed' })
      expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'failed', error: CRASHED_RUN_ERROR })
      expect(await runTwinCycle(t.current.db, run.id)).toEqual({ ran: false, why: 'finished' })
      expect(h.seen).toHaveLength(0)
    } finally { h.off() }
  })

  it('fails a run left running an hour after its job gave up, and leaves a run whose job still retries', async () => {
    const { twin } = await seedTwin(t.current.db, await createTenant(t.current.db, 'Abandoned'), 'scientist', { nextRunAt: null })
    const old = new Date(Date.now() - 2 * 3600_000)
    const lost = await t.current.db.agentRun.create({ data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'twin_cycle', status: 'running', initiatedBy: 'schedule', twinId: twin.id, startedAt: old, createdAt: old } })
    const retrying = await t.current.db.agentRun.create({ data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'twin_cycle', status: 'running', initiatedBy: 'schedule', twinId: twin.id, startedAt: old, createdAt: old } })
    await t.current.db.$executeRaw`SELECT graphile_worker.add_job('twin_cycle', json_build_object('runId', ${retrying.id}::text), job_key => ${'twin_cycle:' + retrying.id}, run_at => now() + interval '1 day')`
    expect(await failAbandonedRuns(t.current.db)).toBe(1)
    expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: lost.id } })).toMatchObject({ status: 'failed', error: ABANDONED_RUN_ERROR })
    expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: retrying.id } })).toMatchObject({ status: 'running' })
    await t.current.db.$executeRaw`DELETE FROM graphile_worker._private_jobs WHERE key = ${'twin_cycle:' + retrying.id}`
    await finishRun(t.current.db, retrying, 'failed')
  })

  it('fails a run whose harness outlives its time limit and aborts its signal', async () => {
    let aborted = false
    const h = recordingHarness('test-runs-slow', { wait: new Promise(() => {}) })
    try {
      const { twin, trigger } = await seedTwin(t.current.db, await createTenant(t.current.db, 'Slow'), 'scientist', { harness: 'test-runs-slow', nextRunAt: null })
      const run = await t.current.db.agentRun.create({ data: { organizationId: twin.organizationId, programId: twin.programId, kind: 'twin_cycle', initiatedBy: 'schedule', twinId: twin.id, triggerId: trigger.id } })
      const r = await runTwinCycle(t.current.db, run.id, { timeLimitMs: 300 })
      aborted = h.seen[0].signal?.aborted ?? false
      expect(r).toEqual({ ran: true, status: 'failed' })
      expect(await t.current.db.agentRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'failed', error: 'The run took longer than 300 ms and was stopped.' })
      expect(aborted).toBe(true)
    } finally { h.off() }
  })

  it('fails the run with the harness error and keeps the twin active', async () => {
    const h = recordingHarness('test-runs-throws', { fail: new Error('tool server unreachable') })
    try {
      const { twin, trigger } = await seedTwin(t.current.db, tenant, 'program_owner', { harness: 'test-runs-throws', nextRunAt: null })
      const { run } = await t.current.db.$transaction((tx) => createTwinRun(tx, { organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, triggerId: trigger.id, initiatedBy: 'user', startedByUserId: twin.userId }))
      const done = await waitForRun(t.current.db, run.id, ['succeeded', 'failed'])
      expect(done).toMatchObject({ status: 'failed', error: 'tool server unreachable' })
      expect(await runFooter(forOrganization(t.current.db, done.organizationId), done)).toMatch(/^started by the person, under .+'s standing plan \(approved 2026-11-20, plan [0-9a-f]{12}\)$/)
    } finally { h.off() }
  })

  it('words the footer for each initiator and a missing plan', () => {
    const plan = { approvedAt: new Date('2026-11-23T09:00:00Z'), hash: 'abcdef0123456789' }
    expect(formatRunFooter({ initiatedBy: 'handoff', personName: 'Olivia Owner', plan })).toBe("started by hand-off, under Olivia Owner's standing plan (approved 2026-11-23, plan abcdef012345)")
    expect(formatRunFooter({ initiatedBy: 'event', personName: 'Olivia Owner', plan })).toMatch(/^started by event, /)
    expect(formatRunFooter({ initiatedBy: 'user', personName: 'Liam Lead', plan: null })).toBe("started by the person, under Liam Lead's standing plan (no plan approved)")
    void systemActor
  })
})
