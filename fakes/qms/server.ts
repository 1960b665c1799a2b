// Fake QMS (document vault): a real HTTP server speaking the vault's shapes (VENDORS.md), labelled illustrative, with
// an in-process control (state.ts: documents, versions, lifecycle labels, faults, request log) and a read-only
// /_control/state. startFakeQms() listens (port 0 in tests); main.ts runs the demo on 8191. Imports nothing of the service.
import express from 'express'
import { listen } from '../common/listen'
import { FakeQmsState, NO_QMS_FAULTS, type FakeQmsOptions } from './state'
import { vendorApiRouter } from './vendor-api'

export * from './state'

export interface FakeQms {
  url: string
  port: number
  state: FakeQmsState
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

export function createFakeQms(options: FakeQmsOptions = {}) {
  const state = new FakeQmsState(options)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
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
  const listening = await listen(app, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' })
  return { url: listening.url, port: listening.port, state, close: listening.close, [Symbol.asyncDispose]: listening.close }
}

export const clearQmsFaults = (s: FakeQmsState) => { s.faults = { ...NO_QMS_FAULTS } }
