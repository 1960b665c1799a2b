// The twins subgraph as its own process: `tsx subgraphs/twins/main.ts` (TWINS_PORT on HOST), with its LISTEN connection.
import { runComponent } from '../../core/jobs'
import { PgListener } from '../../core/database'
import { log } from '../../core/config'
import { createTwinsSubgraph } from './server'
import { installDomain } from '../install'

installDomain()

await runComponent('twins', async ({ db, databaseUrl, env }) => {
  const listener = new PgListener(databaseUrl, () => log.warn('pubsub.reconnected', { note: 'live events sent meanwhile were lost' }))
  const server = createTwinsSubgraph(db, listener)
  await listener.start()
  const url = await server.listen(env.TWINS_PORT, env.HOST)
  return { url, stop: async () => { await server.close(); await listener.stop() } }
})
