// Owns the live twin-runs topic: a program's run status changes, for whoever may see the run's twin now
// (program.twins.read for every twin, read_own for one's own), checked when subscribing and for every event.
import type { AgentRun } from '../../generated/prisma/client'
import type { Db } from '../../core/database'
import type { PgListener } from '../../core/database'
import { assertCan, can, type Session } from '../../core/identity'
import { LiveTopic } from '../../core/http'

export type TwinRunRow = AgentRun & { twinUserId: string | null }

function mayRead(session: Session, run: { programId: string | null; twinUserId: string | null; organizationId: string }) {
  if (!run.programId || run.organizationId !== session.organizationId) return false
  return can(session, 'program.twins.read', run.programId)
    || (run.twinUserId === session.userId && can(session, 'program.twins.read_own', run.programId))
}

/**
 * The runs one batch of notifications names, each with its twin's owner: a batch serves every organisation's
 * subscribers, each filtered by visible (mayRead).
 */
async function runsAcrossOrganisations(db: Db, ids: string[]): Promise<TwinRunRow[]> {
  const runs = await db.agentRun.findMany({ where: { id: { in: ids } } })
  const twins = await db.twinDefinition.findMany({ where: { id: { in: runs.flatMap((r) => (r.twinId ? [r.twinId] : [])) } }, select: { id: true, userId: true } })
  const owner = new Map(twins.map((t) => [t.id, t.userId]))
  return runs.map((r) => ({ ...r, twinUserId: r.twinId ? owner.get(r.twinId) ?? null : null }))
}

export class TwinRunEvents extends LiveTopic<'twin_run_updated', TwinRunRow> {
  constructor(db: Db, listener: PgListener) {
    super(db, listener, {
      channel: 'twin_run_updated',
      audience: (n) => n.programId,
      key: (n) => n.id,
      read: runsAcrossOrganisations,
      keyOf: (run) => run.id,
      matches: (run, n) => run.programId === n.programId && run.organizationId === n.organizationId,
      visible: (run, session) => mayRead(session, run),
    })
  }

  /** Run changes in a program; FORBIDDEN unless the person may read twins there (read or read_own). */
  subscribeProgram(session: Session, programId: string) {
    if (!can(session, 'program.twins.read', programId)) assertCan(session, 'program.twins.read_own', programId)
    return this.subscribe(session, programId)
  }
}
