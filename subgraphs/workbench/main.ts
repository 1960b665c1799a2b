// The workbench subgraph as its own process: `tsx subgraphs/workbench/main.ts` (WORKBENCH_PORT on HOST).
import { runComponent } from '../../core/jobs'
import { createWorkbenchSubgraph } from './server'
import { installDomain } from '../install'

installDomain()

await runComponent('workbench', async ({ db, env }) => {
  const server = createWorkbenchSubgraph(db)
  const url = await server.listen(env.WORKBENCH_PORT, env.HOST)
  return { url, stop: () => server.close() }
})
