import { afterAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort } from '../../core/database'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { gql } from '../helpers/stack'

const t = useTestDatabase()
const children: ChildProcess[] = []
afterAll(async () => {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve()
    c.once('exit', () => resolve())
    c.kill('SIGTERM')
  })))
})


/** Starts `file` as its own Node process and resolves when it logs component.ready. */
function startComponent(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return new Promise<void>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`${file} did not start:\n${output}`)), 90_000) // generous: a loaded 2-core machine takes over 30 s to import a subgraph
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('"component.ready"')) { clearTimeout(timer); resolve() }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${file} exited with ${code}:\n${output}`)) })
  })
}

describe('components as separate processes', () => {
  it('serves a cross-subgraph query when the gateway and each subgraph run in their own process, and stops on SIGTERM', async () => {
    const ports = { GATEWAY_PORT: await freePort(), CONNECTORS_PORT: await freePort(), WORKBENCH_PORT: await freePort(), TWINS_PORT: await freePort() }
    const env = { DATABASE_URL: t.current.url, DATA_DIR: t.current.dataDir, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) }
    await Promise.all(['subgraphs/connectors/main.ts', 'subgraphs/workbench/main.ts', 'subgraphs/twins/main.ts'].map((f) => startComponent(f, env)))
    await startComponent('gateway/main.ts', env)
    const tenant = await createTenant(t.current.db)
    const r = await gql(`http://127.0.0.1:${ports.GATEWAY_PORT}/graphql`,
      '{ me { user { name } programs { program { name connections { nodes { id } } myOpenInboxCount } } } }', {}, await tenant.token('program_lead'))
    expect(r.body.errors).toBeUndefined()
    expect(r.body.data.me.programs[0].program).toEqual({ name: tenant.program.name, connections: { nodes: [] }, myOpenInboxCount: 0 })
    const codes = await Promise.all(children.map((c) => new Promise<number | null>((resolve) => { c.once('exit', (code) => resolve(code)); c.kill('SIGTERM') })))
    expect(codes).toEqual([0, 0, 0, 0])
  }, 240_000)
})
