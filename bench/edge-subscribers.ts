// Owns the edge bench's subscribers: graphql-ws clients through the gateway, in a process of their own (forked by
// bench/edge.ts over IPC), so the bench process's descriptors and memory are the server side's alone and the clients'
// JSON parsing does not run on the gateway's event loop. Receive times are this process's wall clock in milliseconds
// (performance.timeOrigin + performance.now()); the parent measures the offset between the two clocks first.
import fs from 'node:fs'
import { createClient, type Client } from 'graphql-ws'
import WebSocket from 'ws'

/** What the parent sends. */
export type ToSubscribers =
  | { type: 'open'; url: string; tokens: string[]; subscribers: number; query: string; batch: number }
  | { type: 'clock'; t: number }
  | { type: 'stats' }
  | { type: 'dispose' }

/** What this process answers. */
export type FromSubscribers =
  | { type: 'opened'; connected: number; ms: number }
  | { type: 'clock'; t: number; at: number }
  | { type: 'got'; seq: number; at: number }
  | { type: 'stats'; errorMessages: number; extraDeliveries: number; socketClosedAbnormally: number; firstError?: string; fds: number | null; rssMb: number }
  | { type: 'disposed' }

const now = () => performance.timeOrigin + performance.now()
const send = (m: FromSubscribers) => process.send!(m)
const clients: Client[] = []
let errorMessages = 0
let extraDeliveries = 0
let socketClosedAbnormally = 0
let firstError: string | undefined

async function open(m: Extract<ToSubscribers, { type: 'open' }>) {
  const t0 = performance.now()
  let connected = 0
  for (let start = 0; start < m.subscribers; start += m.batch) {
    const batch: Promise<void>[] = []
    for (let i = start; i < Math.min(m.subscribers, start + m.batch); i++) {
      const token = m.tokens[i % m.tokens.length]
      batch.push(new Promise<void>((resolve) => {
        const client = createClient({
          url: m.url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {},
          connectionParams: { authorization: `Bearer ${token}` },
          on: {
            connected: () => { connected++; resolve() },
            closed: (ev: any) => { if (ev?.code !== 1000) socketClosedAbnormally++; resolve() },
          },
        })
        clients.push(client)
        client.subscribe<{ inboxChanged: { title: string } }>({ query: m.query }, {
          next: (r) => {
            const at = now()
            if (r.errors?.length || !r.data) { errorMessages++; firstError ??= JSON.stringify(r.errors).slice(0, 300); return }
            const seq = Number(/^bench#(\d+)$/.exec(r.data.inboxChanged.title)?.[1])
            if (!Number.isInteger(seq)) { extraDeliveries++; return }
            send({ type: 'got', seq, at })
          },
          error: (e) => { errorMessages++; firstError ??= JSON.stringify(Array.isArray(e) ? e : String((e as { code?: number })?.code ?? e)).slice(0, 300) },
          complete: () => {},
        })
      }))
    }
    await Promise.all(batch)
  }
  send({ type: 'opened', connected, ms: performance.now() - t0 })
}

function openFiles(): number | null {
  try { return fs.readdirSync('/proc/self/fd').length } catch { return null }
}

process.on('message', (m: ToSubscribers) => {
  if (m.type === 'open') void open(m)
  else if (m.type === 'clock') send({ type: 'clock', t: m.t, at: now() })
  else if (m.type === 'stats') {
    send({ type: 'stats', errorMessages, extraDeliveries, socketClosedAbnormally, firstError, fds: openFiles(), rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) })
  } else if (m.type === 'dispose') {
    void Promise.all(clients.splice(0).map((c) => c.dispose())).then(() => {
      send({ type: 'disposed' })
      process.disconnect()
    })
  }
})
// the parent went away (a crash): nothing to wait for
process.on('disconnect', () => process.exit(0))
