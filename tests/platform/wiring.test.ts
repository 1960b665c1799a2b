// Explicit wiring: each entry point installs the domain once (subgraphs/install.ts), no module switches behaviour on by
// being imported, and what needs no installation is a list read where it is used. A fresh Node process shows it:
// importing changes nothing, installDomain() installs everything, and the lists are whole whatever was imported.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ROOT_DIR } from '../../core/config'
import { AUDIT_ACTIONS, PAUSE_ACTIONS, TRIGGERABLE_ACTIONS } from '../../core/audit'
import { QA_TEMPLATES } from '../../subgraphs/twins/harness/duties'
import { INBOX_PRODUCER_ACTIONS } from '../../domain/inbox'

/** Every process's entry: the service, the worker, each subgraph, the tool server, the benches, the test stack. */
const ENTRY_POINTS = [
  'main.ts', 'jobs/main.ts', 'subgraphs/connectors/main.ts', 'subgraphs/workbench/main.ts', 'subgraphs/twins/main.ts',
  'subgraphs/twins/tools/main.ts', 'bench/run.ts', 'tests/setup/domain.ts', 'scripts/soak.ts', 'scripts/seed.ts',
]
const PRODUCT = ['core', 'domain', 'subgraphs', 'jobs', 'gateway', 'clients', 'fakes', 'main.ts', 'services.ts']

function sources(entry: string): string[] {
  const full = path.join(ROOT_DIR, entry)
  if (statSync(full).isFile()) return full.endsWith('.ts') ? [full] : []
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name === 'generated' ? [] : sources(path.join(entry, name))))
}
const relative = (file: string) => path.relative(ROOT_DIR, file)
/** The installDomain() calls of a file: code lines, not comments or the definition. */
const installCalls = (file: string) => readFileSync(file, 'utf8').split('\n')
  .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && !/function installDomain\(/.test(line) && /\binstallDomain\(\)/.test(line)).length

/** Runs `script` (an ES module body) in a fresh Node process with tsx; answers what it printed as JSON. */
function inFreshProcess(script: string): any {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT_DIR, encoding: 'utf8', timeout: 120_000 })
  if (r.status !== 0) throw new Error(`the fresh process failed (${r.status}):\n${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!)
}
const url = (file: string) => JSON.stringify(pathToFileURL(path.join(ROOT_DIR, file)).href)

describe('explicit wiring', () => {
  it('installs the domain exactly once at every entry point, and nowhere else', () => {
    for (const entry of ENTRY_POINTS) {
      expect([entry, installCalls(path.join(ROOT_DIR, entry))]).toEqual([entry, 1])
    }
    const callers = PRODUCT.flatMap(sources).filter((f) => installCalls(f) > 0)
    expect(callers.map(relative).sort()).toEqual(ENTRY_POINTS.filter((e) => PRODUCT.some((p) => e === p || e.startsWith(`${p}/`))).sort())
  })

  it('has no module that switches behaviour on by being imported (no import without bindings of our own code)', () => {
    const sideEffects = PRODUCT.flatMap(sources).flatMap((f) =>
      readFileSync(f, 'utf8').split('\n').filter((line) => /^\s*import\s+['"]\.{1,2}\//.test(line)).map((line) => `${relative(f)}: ${line.trim()}`))
    expect(sideEffects).toEqual([])
  })

  it('in a fresh process: importing installs nothing, installDomain() installs the hooks for their actions and the vendor errors, and the duty catalogue and harnesses are whole', () => {
    const seen = inFreshProcess(`
      const audit = await import(${url('core/audit/audit.ts')})
      const errors = await import(${url('core/errors/errors.ts')})
      const duties = await import(${url('domain/twins/index.ts')})
      const harnesses = await import(${url('subgraphs/twins/harness/registry.ts')})
      const install = await import(${url('subgraphs/install.ts')})
      await import(${url('domain/adapters/errors.ts')})
      await import(${url('domain/audit/audit-hooks.ts')})
      const state = () => ({
        hooks: Object.fromEntries(audit.AUDIT_ACTIONS.map((a) => [a, audit.auditHooksFor(a)])),
        rateLimited: new errors.DomainError('RateLimited', undefined, { details: { source: 'eln', retryAfterSeconds: 5 } }).constructor.name,
      })
      const imported = state()
      install.installDomain()
      install.installDomain()
      console.log(JSON.stringify({
        imported, installed: state(),
        qa: ${JSON.stringify(QA_TEMPLATES)}.map((k) => duties.dutyRefusal(k, 'quality_reviewer', null, {})),
        harnesses: harnesses.registeredHarnesses(),
      }))
    `)
    expect(Object.values(seen.imported.hooks).flat()).toEqual([])
    expect(seen.imported.rateLimited).toBe('DomainError')
    expect(seen.installed.rateLimited).toBe('RateLimited')
    for (const action of AUDIT_ACTIONS) {
      const expected = [
        ...((TRIGGERABLE_ACTIONS as readonly string[]).includes(action) ? ['twins.events'] : []),
        ...((PAUSE_ACTIONS as readonly string[]).includes(action) ? ['twins.pause_causes'] : []),
        ...(action.startsWith('stage_gate.') ? [] : ['gates.readiness']),
        ...(INBOX_PRODUCER_ACTIONS.includes(action) ? ['inbox.producers'] : []),
      ]
      expect([action, seen.installed.hooks[action]]).toEqual([action, expected])
    }
    expect(seen.qa).toEqual(QA_TEMPLATES.map(() => null))
    expect(seen.harnesses).toEqual(['deterministic', 'model'])
  }, 150_000)
})
