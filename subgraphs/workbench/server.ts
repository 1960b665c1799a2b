// Builds the workbench subgraph server (no side effects until listen).
import type { Db } from '../../core/db'
import { createSubgraphServer } from '../shared/server'
import { buildWorkbenchSchema } from './schema'
import { installTwinAuditHooks } from '../twins/domain/audit-hooks'

export function createWorkbenchSubgraph(db: Db) {
  installTwinAuditHooks() // role_assignment.delete (and other audited writes here) reach twins through the audit hooks
  return createSubgraphServer({ name: 'workbench', schema: buildWorkbenchSchema(), db })
}
