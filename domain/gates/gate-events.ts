// Owns the live stage-gate readiness topic: a program's gates whose readiness or status changed, for whoever may read
// stage gates there now (progress.stages.read), checked when subscribing and again for every event.
import type { StageGate } from '../../generated/prisma/client'
import type { Db } from '../../core/database'
import type { PgListener } from '../../core/database'
import { assertCan, can, type Session } from '../../core/identity'
import { LiveTopic } from '../../core/http'

/** The gates one batch of notifications names: a batch serves every organisation's subscribers, each filtered by visible. */
function gatesAcrossOrganisations(db: Db, ids: string[]) {
  return db.stageGate.findMany({ where: { id: { in: ids } } })
}

export class StageGateEvents extends LiveTopic<'stage_gate_readiness_changed', StageGate> {
  constructor(db: Db, listener: PgListener) {
    super(db, listener, {
      channel: 'stage_gate_readiness_changed',
      audience: (n) => n.programId,
      key: (n) => n.id,
      read: gatesAcrossOrganisations,
      keyOf: (gate) => gate.id,
      matches: (gate, n) => gate.programId === n.programId && gate.organizationId === n.organizationId,
      visible: (gate, session) => gate.organizationId === session.organizationId && can(session, 'progress.stages.read', gate.programId),
    })
  }

  /** Gates of a program; FORBIDDEN unless the person may read stage gates there. */
  subscribeProgram(session: Session, programId: string) {
    assertCan(session, 'progress.stages.read', programId)
    return this.subscribe(session, programId)
  }
}
