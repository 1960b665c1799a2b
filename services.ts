// Starts the network-facing components for `npm start` (fakes, subgraphs, gateway) and reports their URLs.
import type { Db } from './core/db'
import type { seedIllustrative } from './core/seed'

export interface ServiceContext {
  db: Db
  databaseUrl: string
  seed: Awaited<ReturnType<typeof seedIllustrative>>
}

export async function startServices(_ctx: ServiceContext) {
  const stoppables: { name: string; stop: () => Promise<unknown> }[] = []
  const urls: [string, string][] = []
  return { stoppables, urls }
}
