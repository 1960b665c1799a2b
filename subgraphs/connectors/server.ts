// Builds the connectors subgraph server (no side effects until listen).
import type { Db } from '../../core/db'
import { createSubgraphServer } from '../shared/server'
import { buildConnectorsSchema } from './schema'

export const createConnectorsSubgraph = (db: Db) => createSubgraphServer({ name: 'connectors', schema: buildConnectorsSchema(), db })
