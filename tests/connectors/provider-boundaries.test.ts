// A new provider touches its own folder, its provider entry (domain/adapters/providers.ts) and one registry line
// (the installDomain composition, subgraphs/install.ts): the generic connector modules name no provider, import no provider folder and read no
// provider's settings by name, and npm start's services start no fake by hand (each adapter's demo hook does).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROVIDERS } from '../../domain/adapters'
import { allAdapters } from '../../domain/adapters'

const ROOT = path.resolve(__dirname, '../..')
const DOMAIN = 'domain'
/** The provider concepts under domain/ (each provider's own code). */
const PROVIDER_FOLDERS = ['notebook', 'qms', 'literature']
/** The generic connector concepts: the adapter contract, budgets, connections, documents and webhooks. */
const GENERIC_CONCEPTS = ['adapters', 'budgets', 'connections', 'documents', 'webhooks']
/** The two places that list providers: the provider entries and the adapter registry installDomain hands in. */
const PROVIDER_ENTRIES = `${DOMAIN}/adapters/providers.ts`
const REGISTRY = 'subgraphs/install.ts'
const REGISTRIES = [PROVIDER_ENTRIES, REGISTRY]

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`
    if (e.isDirectory()) return tsFiles(rel)
    return e.name.endsWith('.ts') ? [rel] : []
  })
}

/** The generic modules: the connectors domain outside the provider folders and registries, its HTTP routes, its jobs. */
const GENERIC = [
  ...GENERIC_CONCEPTS.flatMap((c) => tsFiles(`${DOMAIN}/${c}`)).filter((f) => !REGISTRIES.includes(f)),
  ...tsFiles('subgraphs/connectors/http'),
  ...fs.readdirSync(path.join(ROOT, 'jobs/tasks')).filter((f) => /^connector_/.test(f)).map((f) => `jobs/tasks/${f}`),
]

/** Source without comments (a comment may give a provider as an example; code may not depend on one). */
const code = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')

describe('provider boundaries', () => {
  it('keeps provider ids, provider folders and provider settings out of every generic connector module', () => {
    expect(GENERIC.length).toBeGreaterThan(15)
    const ids = PROVIDERS.map((p) => p.id)
    const settings = PROVIDERS.flatMap((p) => [p.settings.httpTimeout, p.settings.baseUrl].filter((s): s is NonNullable<typeof s> => !!s))
    const found: string[] = []
    for (const file of GENERIC) {
      const text = code(file)
      for (const id of ids) if (text.includes(id)) found.push(`${file} names ${id}`)
      for (const s of settings) if (text.includes(s)) found.push(`${file} reads ${s}`)
      for (const m of text.matchAll(/from '([^']+)'|import\('([^']+)'\)/g)) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1] ?? m[2]))
        if (PROVIDER_FOLDERS.some((f) => target === `${DOMAIN}/${f}` || target.startsWith(`${DOMAIN}/${f}/`))) found.push(`${file} imports ${target}`)
      }
    }
    expect(found).toEqual([])
  })

  it('lists each provider once in the provider entries and once in the adapter registry, in the same order', () => {
    expect(allAdapters().map((a) => a.spec)).toEqual([...PROVIDERS])
    const registry = code(REGISTRY)
    for (const p of PROVIDERS) expect(registry.match(new RegExp(`^\\s*${p.id}:`, 'gm')), p.id).toHaveLength(1)
  })

  it('starts no fake vendor by hand in services.ts: each provider\'s demo hook does', () => {
    const services = code('services.ts')
    expect(services).not.toMatch(/fakes\//)
    expect(services).not.toMatch(new RegExp(`${DOMAIN}/(${PROVIDER_FOLDERS.join('|')})\\b`))
    expect(allAdapters().every((a) => typeof a.startDemo === 'function')).toBe(true)
  })
})
