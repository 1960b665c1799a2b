// Owns what a test file leaves running: a registry every stack/worker factory of tests/helpers registers with, and a
// look at the process's live handles (listening servers, sockets to PostgreSQL) that catches what no factory made.
// tests/setup/leak-guard.ts fails the file in its last afterAll when either is not empty.
import net from 'node:net'

interface Tracked {
  label: string
  close(): Promise<void>
}

const open = new Set<Tracked>()

/**
 * Registers a running resource; its close unregisters it. The answer is AsyncDisposable so a test can write
 * `await using stack = await startTestStack(...)`; close is idempotent.
 */
export function track<T extends object>(label: string, resource: T, close: () => Promise<void>): T & AsyncDisposable & { close(): Promise<void> } {
  let closing: Promise<void> | undefined
  const entry: Tracked = {
    label,
    close: () => (closing ??= close().finally(() => open.delete(entry))),
  }
  open.add(entry)
  return Object.assign(resource, { close: entry.close, [Symbol.asyncDispose]: entry.close })
}

/** Labels of tracked resources that are still open. */
export function stillOpen(): string[] {
  return [...open].map((t) => t.label)
}

type Handle = object & { constructor?: { name?: string } }
const activeHandles = (): Handle[] => (process as unknown as { _getActiveHandles(): Handle[] })._getActiveHandles()

/** The handles alive now (taken before a file's first test). */
export function snapshotHandles(): Set<Handle> {
  return new Set(activeHandles())
}

/** Servers listening, and open sockets to PostgreSQL (worker runners, pools), created since `before`. */
export function leakedHandles(before: Set<Handle>, databasePort?: number): { description: string; close(): void }[] {
  const out: { description: string; close(): void }[] = []
  for (const h of activeHandles()) {
    if (before.has(h)) continue
    if (h instanceof net.Server && h.listening) {
      const a = h.address()
      const where = typeof a === 'string' ? a : a ? `${a.address}:${a.port}` : 'unknown address'
      out.push({
        description: `a server listening on ${where}`,
        close: () => { h.close(); (h as { closeAllConnections?: () => void }).closeAllConnections?.() },
      })
    } else if (databasePort && h instanceof net.Socket && !h.destroyed && h.remotePort === databasePort) {
      out.push({ description: `a PostgreSQL connection to port ${databasePort} (a worker runner or pool left open)`, close: () => h.destroy() })
    }
  }
  return out
}

/** What a file left running; closes it all (so the run can go on) and returns the descriptions, empty when clean. */
export async function collectLeaks(before: Set<Handle>, databasePort?: number): Promise<string[]> {
  const labels = stillOpen()
  await Promise.allSettled([...open].map((t) => t.close()))
  // A tracked resource's own servers and sockets are reported once, under its label.
  const handles = labels.length ? [] : leakedHandles(before, databasePort)
  for (const h of handles) h.close()
  return [...labels.map((l) => `${l} (never closed)`), ...handles.map((h) => h.description)]
}
