// Builds the workbench subgraph server (no side effects until listen).
import type { Db } from '../../core/database'
import { createSubgraphServer } from '../shared/server'
import { buildWorkbenchSchema } from './schema'

export function createWorkbenchSubgraph(db: Db) {
  return createSubgraphServer({ name: 'workbench', schema: buildWorkbenchSchema(), db })
}
