// Owns the SDL artifacts: each subgraph's printed SDL and the composed static supergraph the gateway serves.
import fs from 'node:fs/promises'
import path from 'node:path'
import { parse } from 'graphql'
import { printSubgraphSchema } from '@apollo/subgraph'
import { composeServices } from '@apollo/composition'
import { ROOT_DIR } from '../core/env'
import { buildConnectorsSchema } from '../subgraphs/connectors/schema'
import { buildWorkbenchSchema } from '../subgraphs/workbench/schema'
import { buildTwinsSchema } from '../subgraphs/twins/schema'

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

export async function readSupergraph(): Promise<string> {
  return fs.readFile(SUPERGRAPH_FILE, 'utf8')
}
