// Owns the SDL artifacts: each subgraph's printed SDL and the composed static supergraph the gateway serves (npm run
// schema writes them; a test checks they are current). It builds every subgraph's schema, so it sits above the
// subgraphs, and the gateway only reads the result (gateway/supergraph.ts).
import { parse } from 'graphql'
import { printSubgraphSchema } from '@apollo/subgraph'
import { composeServices } from '@apollo/composition'
import { DEFAULT_SUBGRAPH_URLS, SUBGRAPH_NAMES, type SubgraphName } from '../core/config'
import { buildConnectorsSchema } from './connectors/schema'
import { buildWorkbenchSchema } from './workbench/schema'
import { buildTwinsSchema } from './twins/schema'

const printingOnly = {
  get inboxEvents(): never { throw new Error('schema printing does not run resolvers') },
  get twinRunEvents(): never { throw new Error('schema printing does not run resolvers') },
  get stageGateEvents(): never { throw new Error('schema printing does not run resolvers') },
}

export function printSubgraphs(): Record<SubgraphName, string> {
  return {
    connectors: printSubgraphSchema(buildConnectorsSchema()),
    workbench: printSubgraphSchema(buildWorkbenchSchema()),
    twins: printSubgraphSchema(buildTwinsSchema(printingOnly)),
  }
}

export function composeSupergraph(sdls: Record<SubgraphName, string>): string {
  const result = composeServices(SUBGRAPH_NAMES.map((name) => ({ name, url: DEFAULT_SUBGRAPH_URLS[name], typeDefs: parse(sdls[name]) })))
  if (result.errors?.length) throw new Error(`Composition failed:\n${result.errors.map((e) => `  - ${e.message}`).join('\n')}`)
  return result.supergraphSdl!
}

/** The artifacts as they should be committed. */
export function buildSchemaArtifacts(): Record<string, string> {
  const sdls = printSubgraphs()
  const files: Record<string, string> = {}
  for (const name of SUBGRAPH_NAMES) files[`${name}.graphql`] = sdls[name].trimEnd() + '\n'
  files['supergraph.graphql'] = composeSupergraph(sdls).trimEnd() + '\n'
  return files
}
