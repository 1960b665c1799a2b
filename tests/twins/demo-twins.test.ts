import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { seedIllustrative } from '../../subgraphs/seed'
import { seedIllustrativeTwins } from '../../domain/twins'
import { claimDueSchedules } from '../../domain/twins'
import { runFooter } from '../../domain/twins'
import { forOrganization } from '../../core/database'

const t = useTestDatabase()

describe('demo twins (npm start)', () => {
  it('gives the illustrative program active twins whose schedules fire within a minute of start, idempotently', async () => {
    const seed = await seedIllustrative(t.current.db)
    const now = new Date()
    const first = await seedIllustrativeTwins(t.current.db, seed, now)
    expect(first.personas).toEqual(['program_owner', 'program_lead', 'scientist', 'quality_reviewer'])
    await seedIllustrativeTwins(t.current.db, seed, now)
    expect(await t.current.db.twinDefinition.count({ where: { programId: seed.program.id, status: 'active' } })).toBe(4)
    expect(await t.current.db.twinTrigger.count({ where: { programId: seed.program.id } })).toBe(5)
    // The worker's twin_schedule a minute after start: every demo twin gets a run started by its schedule.
    const r = await claimDueSchedules(t.current.db, { now: new Date(now.getTime() + 60_000) })
    expect(r.enqueued).toBe(4)
    const run = await t.current.db.agentRun.findFirstOrThrow({ where: { programId: seed.program.id, initiatedBy: 'schedule' } })
    expect(await runFooter(forOrganization(t.current.db, run.organizationId), run)).toMatch(/^started by schedule, under .+'s standing plan \(approved \d{4}-\d{2}-\d{2}, plan [0-9a-f]{12}\)$/)
    // A restart within the hour keeps the cadence floor: nothing is due again a minute later.
    await seedIllustrativeTwins(t.current.db, seed, new Date(now.getTime() + 120_000))
    expect((await claimDueSchedules(t.current.db, { now: new Date(now.getTime() + 180_000) })).enqueued).toBe(0)
  })
})
