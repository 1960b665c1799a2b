// Test helpers for twins: a twin with an approved trigger written directly (for job and run tests), a harness that
// records what it was given, and waiting for a run to reach a status.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll } from 'vitest'
import { env, setEnv } from '../../core/config'
import { gql, useStack } from '../helpers/stack'
import type { Db } from '../../core/database'
import type { RunContext, RunOutcome } from '../../domain/twins'
import { registerHarness } from '../../subgraphs/twins/harness/registry'
import type { Tenant, PersonaKey } from '../helpers/factories'

export async function seedTwin(db: Db, tenant: Tenant, persona: PersonaKey, opts: {
  kind?: 'schedule' | 'event'; eventAction?: string; userId?: string; harness?: string; duty?: string; approved?: boolean; rrule?: string; nextRunAt?: Date | null
} = {}) {
  const user = opts.userId ? Object.values(tenant.users).find((u) => u.id === opts.userId)! : tenant.users[persona]
  const twin = await db.twinDefinition.create({
    data: { organizationId: tenant.organization.id, programId: tenant.program.id, userId: user.id, personaKey: persona, duties: [opts.duty ?? 'blocker_scan'] },
  })
  const plan = { duty: opts.duty ?? 'blocker_scan', reads: ['console.list_decisions_waiting'] }
  const trigger = await db.twinTrigger.create({
    data: {
      organizationId: tenant.organization.id, programId: tenant.program.id, twinId: twin.id, dutyKey: opts.duty ?? 'blocker_scan',
      kind: opts.kind ?? 'schedule', eventAction: opts.kind === 'event' ? (opts.eventAction ?? 'experiment.update') : null,
      spec: opts.harness ? { harness: opts.harness } : {}, standingPlanJson: plan,
      standingPlanHash: createHash('sha256').update(JSON.stringify(plan)).digest('hex'),
      standingPlanApprovedAt: opts.approved === false ? null : new Date('2026-11-20T10:00:00Z'),
      standingPlanApprovedBy: opts.approved === false ? null : user.id,
    },
  })
  const schedule = (opts.kind ?? 'schedule') === 'schedule'
    ? await db.twinSchedule.create({
      data: {
        organizationId: tenant.organization.id, twinId: twin.id, triggerId: trigger.id,
        rrule: opts.rrule ?? 'DTSTART:20261101T080000Z\nRRULE:FREQ=DAILY;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
        nextRunAt: opts.nextRunAt === undefined ? new Date(Date.now() - 60_000) : opts.nextRunAt,
      },
    })
    : null
  return { twin, trigger, schedule, user }
}

/** A harness under `key` that records each run it was given and answers `outcome` (or throws `fail`). */
export function recordingHarness(key: string, behaviour: { outcome?: RunOutcome; fail?: Error; wait?: Promise<void> } = {}) {
  const seen: RunContext[] = []
  const off = registerHarness({
    key,
    async execute(run) {
      seen.push(run)
      if (behaviour.wait) await behaviour.wait
      if (behaviour.fail) throw behaviour.fail
      return behaviour.outcome ?? { summary: { proposals_filed: 0 } }
    },
  })
  return { seen, off }
}

/** Polls until the run reaches one of `statuses` (the worker runs asynchronously); no fixed sleeps. */
export async function waitForRun(db: Db, runId: string, statuses: string[], timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    const run = await db.agentRun.findUniqueOrThrow({ where: { id: runId } })
    if (statuses.includes(run.status)) return run
    if (Date.now() > until) throw new Error(`run ${runId} stayed ${run.status}, expected ${statuses.join('|')}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * The stack at release R3 (the twins, hand-off and delegation tests run there), the release configuration before it
 * (`before`, to derive other settings from), and a gateway call as a tenant's persona.
 */
export function useStackAtR3() {
  const stack = useStack()
  const before = env()
  beforeAll(() => { setEnv({ ...before, RELEASE: 'R3' }) })
  afterAll(() => { setEnv(before) })
  const url = () => `${stack.current.gatewayUrl}/graphql`
  const as = async (t: Tenant, p: PersonaKey, q: string, v: Record<string, unknown> = {}) => gql(url(), q, v, await t.token(p))
  return { stack, before, url, db: () => stack.db.db, as }
}
