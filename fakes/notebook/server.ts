// Fake notebook (ELN) vendor: a real HTTP server speaking the vendor's v2 shapes (VENDORS.md), with a control API to seed
// content, rotate signing keys, misbehave and send signed webhooks. Everything it serves is labelled illustrative.
// Composes state.ts (what the vendor holds), vendor-api.ts (/api) and control.ts (/_control and the in-process control).
// createFakeNotebook() has no side effects; startFakeNotebook() listens (port 0 in tests); main.ts runs the demo on 8190.
// Like a real vendor, it imports nothing of the connector.
import { fakeVendorApp, listenFake, type ListeningFake } from '../common/listen'
import { FakeNotebookControl, controlRouter } from './control'
import type { FakeNotebookOptions } from './state'
import { vendorApiRouter } from './vendor-api'

export { signDelivery, generateSigningKey, type SigningKey, type SignedDelivery } from './signing'
export * from './state'
export { FakeNotebookControl } from './control'

// ---------------------------------------------------------------------------------------------------------------
// Assembly

export interface FakeNotebook extends ListeningFake {
  control: FakeNotebookControl
}

/** The express app and its control, without listening. Set `control.baseUrl` once the address is known. */
export function createFakeNotebook(options: FakeNotebookOptions = {}) {
  const control = new FakeNotebookControl(options)
  const app = fakeVendorApp()
  app.use('/_control', controlRouter(control))
  app.use('/api', vendorApiRouter(control))
  app.get('/', (_req, res) => {
    res.json({ service: 'fake notebook (ELN)', illustrative: true, api: '/api/v2', control: '/_control/state' })
  })
  return { app, control }
}

export async function startFakeNotebook(options: FakeNotebookOptions = {}): Promise<FakeNotebook> {
  const { app, control } = createFakeNotebook(options)
  const listening = await listenFake(app, options)
  control.baseUrl = listening.url
  return { ...listening, control }
}
