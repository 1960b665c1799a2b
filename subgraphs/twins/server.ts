// Builds the twins subgraph server with its live inbox events and the signed inbox-link routes (no side effects until listen).
import type { Db } from '../../core/database'
import type { PgListener } from '../../core/database'
import { createSubgraphServer } from '../shared/server'
import { InboxEvents } from '../../domain/inbox'
import { TwinRunEvents } from '../../domain/twins'
import { StageGateEvents } from '../../domain/gates'
import { createInboxLinkRoutes } from './http/links'
import { buildTwinsSchema } from './schema'

export function createTwinsSubgraph(db: Db, listener: PgListener) {
  const inboxEvents = new InboxEvents(db, listener)
  const twinRunEvents = new TwinRunEvents(db, listener)
  const stageGateEvents = new StageGateEvents(db, listener)
  const server = createSubgraphServer({ name: 'twins', schema: buildTwinsSchema({ inboxEvents, twinRunEvents, stageGateEvents }), db, readiness: () => ({ listen: listener.connected }) })
  server.app.use(createInboxLinkRoutes(db))
  const close = server.close
  server.close = async () => { inboxEvents.close(); twinRunEvents.close(); stageGateEvents.close(); await close() }
  return Object.assign(server, { inboxEvents, twinRunEvents, stageGateEvents })
}
