// Owns the worker's small HTTP listener (WORKER_METRICS_PORT): liveness, readiness (the database answers) and
// Prometheus metrics (jobs by task and outcome, durations, process figures). Bound to HOST (127.0.0.1 by default).
import http from 'node:http'
import type { Db } from '../core/database'
import { databaseAnswers } from '../core/sql'
import { env } from '../core/config'
import { enableDefaultMetrics, registry } from '../core/config'
import { log } from '../core/config'

export async function startWorkerProbes(port: number, db: Db) {
  enableDefaultMetrics('worker')
  const server = http.createServer((req, res) => {
    const send = (status: number, body: string, type = 'application/json') => { res.writeHead(status, { 'content-type': type }); res.end(body) }
    if (req.url === '/healthz') return send(200, '{"ok":true}')
    if (req.url === '/readyz') {
      return void databaseAnswers(db).then((ok) => (ok ? send(200, '{"ok":true}') : send(503, '{"ok":false,"checks":{"database":false}}')))
    }
    if (req.url === '/metrics') return void registry.metrics().then((m) => send(200, m, registry.contentType), () => send(500, ''))
    send(404, '')
  })
  // A port in use rejects here (the caller says so in one sentence); unheard, the 'error' event would crash with a stack.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, env().HOST, () => { server.off('error', reject); resolve() })
  })
  log.info('worker.probes_listening', { port })
  return { close: () => server.close() }
}
