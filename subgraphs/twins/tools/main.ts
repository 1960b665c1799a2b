// The tool server as its own process: `tsx subgraphs/twins/tools/main.ts` (TOOLS_PORT on HOST).
import { runComponent } from '../../../core/component'
import { createToolServer } from './server'

await runComponent('tools', async ({ db, env }) => {
  const server = createToolServer(db)
  const url = await server.listen(env.TOOLS_PORT, env.HOST)
  return { url, stop: () => server.close() }
})
