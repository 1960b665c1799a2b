// Owns the illustrative twins of the demo (npm start, never production): the program owner, lead, scientist and quality
// reviewer each get an active twin with an hourly blocker_scan schedule under an approved standing plan, due within a
// minute of start, and the owner a pre_read twin trigger on experiment.update. Idempotent across restarts.
import { transactionFor, type Db } from '../../core/database'
import { auditTrailEndAcrossOrganisations } from './sql'
import { log } from '../../core/config'
import { enqueue } from '../../core/jobs'
import { planHash } from './twin-admin'
import { nextRunAt, normaliseSchedule } from './schedules'

const DEMO_PERSONAS = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer'] as const
const FIRST_RUN_DELAY_MS = 20_000

interface DemoSeed { organization: { id: string }; program: { id: string }; users: Record<string, { id: string }> }

export async function seedIllustrativeTwins(db: Db, seed: DemoSeed, now = new Date()) {
  const soon = new Date(now.getTime() + FIRST_RUN_DELAY_MS)
  const made: string[] = []
  for (const persona of DEMO_PERSONAS) {
    const user = seed.users[persona]
    if (!user) continue
    await transactionFor(db, seed.organization.id, async (tx) => {
      const twin = await tx.twinDefinition.upsert({
        where: { programId_userId_personaKey: { programId: seed.program.id, userId: user.id, personaKey: persona } },
        update: {},
        create: { organizationId: seed.organization.id, programId: seed.program.id, userId: user.id, personaKey: persona, duties: ['blocker_scan', 'pre_read'], digestTime: '08:00' },
      })
      if (twin.status !== 'active') return // a person who paused their demo twin keeps it paused
      const plan = { duty: 'blocker_scan', reads: ['console.get_twin', 'console.list_decisions_waiting'], files: 'proposals only', illustrative: true }
      let trigger = await tx.twinTrigger.findFirst({ where: { twinId: twin.id, kind: 'schedule', dutyKey: 'blocker_scan' } })
      if (!trigger) {
        trigger = await tx.twinTrigger.create({
          data: {
            organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, dutyKey: 'blocker_scan', kind: 'schedule',
            priority: 'now', standingPlanJson: plan, standingPlanHash: planHash(plan), standingPlanApprovedAt: now, standingPlanApprovedBy: user.id,
          },
        })
      }
      const s = normaliseSchedule('FREQ=HOURLY;BYMINUTE=0;BYSECOND=0', 'UTC', now)
      const schedule = await tx.twinSchedule.findFirst({ where: { triggerId: trigger.id } })
      // Due within a minute of start unless it ran within the cadence floor (the floor holds in the demo too).
      const floorPassed = !schedule?.lastRunAt || schedule.lastRunAt.getTime() + trigger.minIntervalSeconds * 1000 <= soon.getTime()
      const next = floorPassed ? soon : nextRunAt(s.rrule, { now, lastRunAt: schedule!.lastRunAt, minIntervalSeconds: trigger.minIntervalSeconds })
      if (schedule) await tx.twinSchedule.update({ where: { id: schedule.id }, data: { nextRunAt: next } })
      else await tx.twinSchedule.create({ data: { organizationId: twin.organizationId, twinId: twin.id, triggerId: trigger.id, rrule: s.rrule, timezone: s.timezone, nextRunAt: next } })
      if (persona === 'program_owner' && !(await tx.twinTrigger.findFirst({ where: { twinId: twin.id, kind: 'event' } }))) {
        const prePlan = { duty: 'pre_read', on: 'experiment.update', illustrative: true }
        await tx.twinTrigger.create({
          data: {
            organizationId: twin.organizationId, programId: twin.programId, twinId: twin.id, dutyKey: 'pre_read', kind: 'event', eventAction: 'experiment.update',
            standingPlanJson: prePlan, standingPlanHash: planHash(prePlan), standingPlanApprovedAt: now, standingPlanApprovedBy: user.id,
            lastEntrySeq: await auditTrailEndAcrossOrganisations(tx),
          },
        })
      }
      made.push(persona)
    })
  }
  // The crontab's twin_schedule runs on minute boundaries; one pass at the first due time keeps it within a minute.
  if (made.length) await transactionFor(db, seed.organization.id, (tx) => enqueue(tx, 'twin_schedule', {}, { runAt: soon, jobKey: 'twin_schedule:demo_start' }))
  log.info('demo.twins_seeded', { personas: made, firstRunAt: soon.toISOString() })
  return { personas: made, firstRunAt: soon }
}
