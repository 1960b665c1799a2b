// The connectors subgraph as its own process: `tsx subgraphs/connectors/main.ts` (CONNECTORS_PORT on HOST).
import { runComponent } from '../../core/jobs'
import { createConnectorsSubgraph } from './server'
import { installDomain } from '../install'

installDomain()

await runComponent('connectors', async ({ db, env }) => {
  const server = createConnectorsSubgraph(db)
  const url = await server.listen(env.CONNECTORS_PORT, env.HOST)
  return { url, stop: () => server.close() }
})
