// Owns npm start's demo vendors: every provider's demo hook (its adapter's startDemo), in registry order. A provider
// with a fake gets it started and the illustrative program connected to it; the others answer null.
import type { DemoContext, DemoService } from './adapters/contract'
import { allAdapters } from './adapters'

export async function startConnectorDemos(ctx: DemoContext): Promise<DemoService[]> {
  const started: DemoService[] = []
  for (const adapter of allAdapters()) {
    const demo = await adapter.startDemo(ctx)
    if (demo) started.push(demo)
  }
  return started
}
