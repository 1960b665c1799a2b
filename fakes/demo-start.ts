// Owns how npm start's demos (./demos.ts) start a fake vendor: on its configured port, and when that fails (a port in
// use, most often) a warning that says why and no demo, so start-up goes on without it.
import { log } from '../core/config'
import { listenFailure } from '../core/config'

/** The started fake, or null after `<name>.not_started` was logged with the port and the reason. */
export async function startDemoFake<F>(name: string, port: number, start: (port: number) => Promise<F>): Promise<F | null> {
  try {
    return await start(port)
  } catch (error) {
    log.warn(`${name}.not_started`, { port, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
}
