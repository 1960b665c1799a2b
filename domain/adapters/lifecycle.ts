// Owns the one signal from adapters to the runtime: a connection's cached client, token, budget gate and webhook view
// must be dropped (disconnected, credentials or base URL changed). Lets a provider say so without importing the runtime.
type Listener = (connectionId: string) => void

const listeners = new Set<Listener>()

export function onConnectionForgotten(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function forgetConnection(connectionId: string): void {
  for (const listener of listeners) listener(connectionId)
}
