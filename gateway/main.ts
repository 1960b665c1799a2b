// The gateway as its own process: `tsx gateway/main.ts` (GATEWAY_PORT on GATEWAY_HOST); subgraphs at
// CONNECTORS_URL, WORKBENCH_URL and TWINS_URL (default: 127.0.0.1 on their ports).
import { runComponent } from '../core/jobs'
import { createGateway } from './server'

await runComponent('gateway', async ({ db, databaseUrl, env }) => {
  const local = (port: number) => `http://127.0.0.1:${port}/graphql`
  const gateway = await createGateway({
    db, databaseUrl, dataDir: env.DATA_DIR, production: env.NODE_ENV === 'production',
    subgraphUrls: {
      connectors: env.CONNECTORS_URL ?? local(env.CONNECTORS_PORT),
      workbench: env.WORKBENCH_URL ?? local(env.WORKBENCH_PORT),
      twins: env.TWINS_URL ?? local(env.TWINS_PORT),
    },
  })
  const url = await gateway.listen(env.GATEWAY_PORT, env.GATEWAY_HOST)
  return { url, stop: () => gateway.close() }
})
