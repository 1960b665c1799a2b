// The tool server as its own process: `tsx subgraphs/twins/tools/main.ts` (TOOLS_PORT on HOST).
import { runComponent } from '../../../core/jobs'
import { createToolServer } from './server'
import { installDomain } from '../../install'

installDomain() // tool calls are audited writes (tool_call.invoke, proposal filings): the hooks run here too

await runComponent('tools', async ({ db, env }) => {
  const server = createToolServer(db)
  const url = await server.listen(env.TOOLS_PORT, env.HOST)
  return { url, stop: () => server.close() }
})
