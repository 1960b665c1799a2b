// Fake QMS (document vault): a real HTTP server speaking the vault's shapes (VENDORS.md), labelled illustrative, with
// an in-process control (state.ts: documents, versions, lifecycle labels, faults, request log) and a read-only
// /_control/state. startFakeQms() listens (port 0 in tests); main.ts runs the demo on 8191. Imports nothing of the service.
import { fakeVendorApp, listenFake, type ListeningFake } from '../common/listen'
import { FakeQmsState, NO_QMS_FAULTS, type FakeQmsOptions } from './state'
import { vendorApiRouter } from './vendor-api'

export * from './state'

export interface FakeQms extends ListeningFake {
  state: FakeQmsState
}

export function createFakeQms(options: FakeQmsOptions = {}) {
  const state = new FakeQmsState(options)
  const app = fakeVendorApp()
  app.use('/api', vendorApiRouter(state))
  app.get('/_control/state', (_req, res) => {
    res.json({ illustrative: true, vaultId: state.vaultId, documents: state.documents.size, versions: state.allRows().length, lifecycleLabels: state.lifecycleLabels, faults: state.faults })
  })
  app.get('/', (_req, res) => {
    res.json({ service: 'fake QMS (document vault)', illustrative: true, api: '/api/v26.2', control: '/_control/state' })
  })
  return { app, state }
}

export async function startFakeQms(options: FakeQmsOptions = {}): Promise<FakeQms> {
  const { app, state } = createFakeQms(options)
  return { ...await listenFake(app, options), state }
}

export const clearQmsFaults = (s: FakeQmsState) => { s.faults = { ...NO_QMS_FAULTS } }
