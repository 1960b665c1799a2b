// Owns npm start's demo vendors: each provider with a fake (notebook, QMS, literature sources) gets it started and the
// illustrative program connected to it, in the providers' registry order. Above the connectors domain (it starts the
// fakes, which the domain never imports); services.ts calls it outside production.
import type { DemoContext, DemoService } from '../domain/adapters'
import { allAdapters } from '../domain/adapters'
import type { ProviderId } from '../domain/adapters'
import { startNotebookDemo } from './notebook/demo'
import { startQmsDemo } from './qms/demo'
import { startLiteratureDemo } from './literature/demo'
import { startModelDemo } from './model/demo'

/** The demo of each provider that has a fake. */
const DEMOS: Partial<Record<ProviderId, (ctx: DemoContext) => Promise<DemoService | null>>> = {
  eln_provider: startNotebookDemo,
  qms_provider: startQmsDemo,
  literature_search: startLiteratureDemo,
}

export async function startConnectorDemos(ctx: DemoContext): Promise<DemoService[]> {
  const started: DemoService[] = []
  for (const adapter of allAdapters()) {
    const demo = await (DEMOS[adapter.spec.id as ProviderId] ?? adapter.startDemo.bind(adapter))(ctx)
    if (demo) started.push(demo)
  }
  // Not a connector: the fake model provider for the model-backed twin harness, with MODEL_PROVIDER=fake only.
  const model = await startModelDemo(ctx)
  if (model) started.push(model)
  return started
}
