// Fake notebook (ELN) vendor: a real HTTP server speaking the vendor's v2 shapes (VENDORS.md), with a control API to seed
// content, rotate signing keys, misbehave and send signed webhooks. Everything it serves is labelled illustrative.
// Composes state.ts (what the vendor holds), vendor-api.ts (/api) and control.ts (/_control and the in-process control).
// createFakeNotebook() has no side effects; startFakeNotebook() listens (port 0 in tests); main.ts runs the demo on 8190.
// Like a real vendor, it imports nothing of the connector.
import express from 'express'
import { listen } from '../common/listen'
import { FakeNotebookControl, controlRouter } from './control'
import type { FakeNotebookOptions } from './state'
import { vendorApiRouter } from './vendor-api'

export { signDelivery, generateSigningKey, type SigningKey, type SignedDelivery } from './signing'
export * from './state'
export { FakeNotebookControl } from './control'

// ---------------------------------------------------------------------------------------------------------------
// Assembly

export interface FakeNotebook {
  url: string
  port: number
  control: FakeNotebookControl
  close(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** The express app and its control, without listening. Set `control.baseUrl` once the address is known. */
export function createFakeNotebook(options: FakeNotebookOptions = {}) {
  const control = new FakeNotebookControl(options)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use('/_control', controlRouter(control))
  app.use('/api', vendorApiRouter(control))
  app.get('/', (_req, res) => {
    res.json({ service: 'fake notebook (ELN)', illustrative: true, api: '/api/v2', control: '/_control/state' })
  })
  return { app, control }
}

export async function startFakeNotebook(options: FakeNotebookOptions = {}): Promise<FakeNotebook> {
  const { app, control } = createFakeNotebook(options)
  const listening = await listen(app, { port: options.port ?? 0, host: options.host ?? '127.0.0.1' })
  control.baseUrl = listening.url
  return {
    url: listening.url,
    port: listening.port,
    control,
    close: listening.close,
    [Symbol.asyncDispose]: listening.close,
  }
}
