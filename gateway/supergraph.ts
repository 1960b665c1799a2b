// Owns reading the static supergraph the gateway serves (composed and committed by npm run schema:
// subgraphs/supergraph.ts). The gateway imports no subgraph code.
import fs from 'node:fs/promises'
import { SUPERGRAPH_FILE } from '../core/config'

export { SUBGRAPH_NAMES, DEFAULT_SUBGRAPH_URLS, SCHEMA_DIR, SUPERGRAPH_FILE, type SubgraphName } from '../core/config'

export async function readSupergraph(): Promise<string> {
  return fs.readFile(SUPERGRAPH_FILE, 'utf8')
}
