// Issue 26: a start that cannot take its port (a second npm start, a component beside another) exits non-zero with one
// sentence on stderr: which port, held by what, and what to do (stop it, or the variable that moves it). No stack.
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, removeEmbeddedData } from '../../core/database'
import { useTestDatabase } from '../helpers/db'
import { runEntry } from '../helpers/processes'

const t = useTestDatabase()

/** A plain TCP server holding a port, as another program would (it hangs up on whoever connects: a probe, a pg client). */
let holder: net.Server
let held: number
beforeAll(async () => {
  holder = net.createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()))
  held = (holder.address() as net.AddressInfo).port
})
afterAll(async () => { await new Promise((resolve) => holder.close(resolve)) })

/** Every port variable on a free port, then `variable` on the held one. */
async function ports(variable: string) {
  const names = ['GATEWAY_PORT', 'CONNECTORS_PORT', 'WORKBENCH_PORT', 'TWINS_PORT', 'TOOLS_PORT', 'FAKE_NOTEBOOK_PORT', 'FAKE_QMS_PORT', 'FAKE_LITERATURE_PORT']
  const env: Record<string, string> = {}
  for (const name of names) env[name] = String(await freePort())
  env[variable] = String(held)
  return env
}

function expectOneSentence(r: { code: number | null; stderr: string }, variable: string) {
  expect(r.code, r.stderr).not.toBe(0)
  const line = r.stderr.split('\n').find((l) => l.startsWith(`Cannot listen on port ${held}:`))
  expect(line, r.stderr).toBeDefined()
  // which port, held by whom (this test process, from /proc), and what to do
  expect(line).toMatch(new RegExp(`^Cannot listen on port ${held}: it is in use by process ${process.pid} \\(.+\\); stop that process, or set ${variable} to a free port\\.$`))
  expect(r.stderr).not.toMatch(/\n\s+at /) // no stack
  expect(r.stderr).not.toContain('EADDRINUSE')
  expect(r.stderr).not.toContain('Internal error emitted on the WebSocket server')
}
describe('a port held by another process', () => {
  it('stops each component started on its own (gateway, subgraphs, tool server, worker probes, the fakes run alone) with exit 1 and one sentence naming the port, its holder and the variable', async () => {
    const base = { DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir }
    const entries: [string, string][] = [
      ['gateway/main.ts', 'GATEWAY_PORT'],
      ['subgraphs/connectors/main.ts', 'CONNECTORS_PORT'],
      ['subgraphs/workbench/main.ts', 'WORKBENCH_PORT'],
      ['subgraphs/twins/main.ts', 'TWINS_PORT'],
      ['subgraphs/twins/tools/main.ts', 'TOOLS_PORT'],
      ['jobs/main.ts', 'WORKER_METRICS_PORT'],
      ['fakes/notebook/main.ts', 'FAKE_NOTEBOOK_PORT'],
      ['fakes/qms/main.ts', 'FAKE_QMS_PORT'],
      ['fakes/literature/main.ts', 'FAKE_LITERATURE_PORT'],
    ]
    const results = await Promise.all(entries.map(async ([file, variable]) =>
      [variable, await runEntry(file, { env: { ...base, ...(await ports(variable)) } })] as const))
    for (const [variable, r] of results) expectOneSentence(r, variable)
  }, 300_000) // nine processes starting at once on a shared machine

  it('stops npm start with exit 1 (not 0) and the same sentence when a port it needs is taken, as by a second npm start', async () => {
    const r = await runEntry('main.ts', { env: { DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, ...(await ports('CONNECTORS_PORT')) } })
    expectOneSentence(r, 'CONNECTORS_PORT')
    expect(r.stdout).not.toContain('Evidence workspace is running')
  }, 180_000)

  it('stops a script using the embedded PostgreSQL with exit 1 and one sentence naming EMBEDDED_PG_PORT when another program holds that port', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-pgport-'))
    try {
      const r = await runEntry('scripts/seed.ts', { env: { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(held) } })
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr.trim()).toMatch(new RegExp(`^Cannot listen on port ${held}: it is in use by process ${process.pid} \\(.+\\); stop that process, or set EMBEDDED_PG_PORT to a free port, or set DATABASE_URL to a PostgreSQL of your own\\.$`))
    } finally {
      await removeEmbeddedData(dataDir)
    }
  }, 120_000)
})
