// Owns what the gateway and the schema composition (subgraphs/supergraph.ts) agree on about the supergraph: the
// subgraphs' names, the default URLs written into the composed SDL, and where the committed SDL artifacts live.
import path from 'node:path'
import { ROOT_DIR } from './env'

export const SUBGRAPH_NAMES = ['connectors', 'workbench', 'twins'] as const
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number]

/** Default URLs written into the supergraph; a running gateway maps names to the real addresses. */
export const DEFAULT_SUBGRAPH_URLS: Record<SubgraphName, string> = {
  connectors: 'http://127.0.0.1:4001/graphql',
  workbench: 'http://127.0.0.1:4002/graphql',
  twins: 'http://127.0.0.1:4003/graphql',
}

export const SCHEMA_DIR = path.join(ROOT_DIR, 'schema')
export const SUPERGRAPH_FILE = path.join(SCHEMA_DIR, 'supergraph.graphql')
