// The shape of the code, read from the source itself (the TypeScript compiler's program and module resolution:
// tests/helpers/import-graph.ts): no import cycles, nothing imports upward, concepts depend on each other only in the
// declared order, and code outside a concept folder reaches it through its face. The layers, lowest first:
//   core/ (and the generated Prisma client)                      the platform: database, audit, errors, jobs catalogue
//   domain/<concept>/                                            the domain: decides; one face (index.ts) per concept
//   subgraphs/shared/                                            what every subgraph's server and schema share
//   subgraphs/<name>/{schema,http,tools,harness}/, server, main  translation and serving, over the domain
//   subgraphs/*.ts                                               composition of the subgraphs (install, seed, supergraph)
//   gateway/, jobs/, prisma/, main.ts, services.ts               entry points; scripts/, bench/, tests/, fakes/ on top
import { beforeAll, describe, expect, it } from 'vitest'
import { cycles, importGraph, type ImportEdge } from '../helpers/import-graph'

let edges: ImportEdge[]
let files: string[]

beforeAll(() => {
  ({ edges, files } = importGraph())
}, 180_000)

const show = (list: ImportEdge[]) => list.map((e) => `${e.from} imports ${e.to} (${e.kind})`)

/**
 * The domain's concepts, lowest first: a concept imports only concepts listed before it (docs/contributors.md shows
 * the same order). The connector platform (adapters … webhooks) sits below the providers that implement its contract;
 * the people's side (programs, records, inbox) below the twins' work on it (twins, gates, collaboration, proposals).
 */
export const CONCEPT_ORDER = [
  'citations', 'adapters', 'documents', 'signatures', 'programs', 'records', 'budgets', 'connections', 'webhooks',
  'qms', 'notebook', 'literature', 'skills', 'inbox', 'twins', 'gates', 'collaboration', 'memory', 'home', 'audit',
  'proposals',
] as const

/** The concept folder of a file (domain/<concept>/…), or null outside the domain. */
const conceptName = (file: string) => /^domain\/([^/]+)\//.exec(file)?.[1] ?? null
/** The folder with one face a file sits in: a domain concept, or a group of core/ (config, database, identity …). */
const conceptOf = (file: string) => /^(domain|core)\/[^/]+(?=\/)/.exec(file)?.[0] ?? null

/** core/'s groups, by concern; each is a folder with a face (index.ts), as the domain's concepts are. */
const CORE_GROUPS = ['audit', 'config', 'database', 'errors', 'http', 'identity', 'jobs', 'permissions', 'sql', 'states', 'text']

const subgraphOf = (file: string) => /^subgraphs\/(connectors|workbench|twins)\//.exec(file)?.[1] ?? null
const isDomain = (file: string) => file.startsWith('domain/')
const under = (file: string, ...roots: string[]) => roots.some((r) => file.startsWith(r))

/**
 * Cycles being taken apart on another branch; each is a strongly connected component, its modules sorted. Nothing
 * may be added.
 */
const CYCLES_BEING_REMOVED: string[] = []

/** Each rule: which importers it governs, and which of their imports it refuses. */
const RULES: { name: string; from: (f: string) => boolean; refuses: (to: string, from: string) => boolean }[] = [
  { name: 'core imports only core and the generated client', from: (f) => under(f, 'core/'), refuses: (to) => !under(to, 'core/', 'generated/') },
  {
    name: 'domain code imports core and domain code only (no subgraph, schema, tools, servers, jobs or gateway)',
    from: isDomain,
    refuses: (to) => !under(to, 'core/', 'generated/', 'domain/'),
  },
  {
    name: 'subgraphs/shared imports only core, the domain and itself',
    from: (f) => under(f, 'subgraphs/shared/'),
    refuses: (to) => !under(to, 'core/', 'generated/', 'domain/', 'subgraphs/shared/'),
  },
  {
    name: 'subgraphs import neither the gateway nor the worker, and no other subgraph\'s code',
    from: (f) => under(f, 'subgraphs/'),
    refuses: (to, from) => under(to, 'gateway/', 'jobs/', 'prisma/', 'scripts/', 'bench/', 'tests/', 'fakes/', 'main.ts', 'services.ts')
      || (!!subgraphOf(from) && !!subgraphOf(to) && subgraphOf(to) !== subgraphOf(from)),
  },
  { name: 'the gateway imports no subgraph, no domain code and no job', from: (f) => under(f, 'gateway/'), refuses: (to) => under(to, 'subgraphs/', 'domain/', 'jobs/') },
  { name: 'jobs do not import the gateway', from: (f) => under(f, 'jobs/'), refuses: (to) => under(to, 'gateway/') },
  { name: 'the migrations library imports nothing of the project', from: (f) => f === 'prisma/migrations.ts', refuses: () => true },
]

/** The imports between concepts that go against the declared order (a concept importing one listed after it). */
export function orderViolations(list: ImportEdge[], order: readonly string[] = CONCEPT_ORDER): ImportEdge[] {
  return list.filter((e) => {
    const a = conceptName(e.from), b = conceptName(e.to)
    return a !== null && b !== null && a !== b && !(order.indexOf(b) >= 0 && order.indexOf(b) < order.indexOf(a))
  })
}

describe('the import graph', () => {
  it('is read from the real source: every module of the project, with value, type and dynamic imports', () => {
    expect(files).toContain('core/database/db.ts')
    expect(files).toContain('domain/inbox/index.ts')
    expect(edges.length).toBeGreaterThan(1000)
    expect(new Set(edges.map((e) => e.kind))).toEqual(new Set(['value', 'type', 'dynamic']))
  })

  it('has no import cycle, type-only imports included', () => {
    const found = cycles(edges).map((c) => c.join(' '))
    expect(found.filter((c) => !CYCLES_BEING_REMOVED.includes(c))).toEqual([])
  })

  it('still has each cycle listed as being removed (delete its entry once it is gone: the list only shrinks)', () => {
    const found = cycles(edges).map((c) => c.join(' '))
    expect(CYCLES_BEING_REMOVED.filter((c) => !found.includes(c))).toEqual([])
  })

  for (const rule of RULES) {
    it(`imports nothing upward: ${rule.name}`, () => {
      expect(show(edges.filter((e) => rule.from(e.from) && rule.refuses(e.to, e.from)))).toEqual([])
    })
  }

  it('lists every concept folder of domain/ in the declared order, once', () => {
    const found = [...new Set(files.map(conceptName).filter((c): c is string => c !== null))].sort()
    expect([...CONCEPT_ORDER].sort()).toEqual(found)
    for (const c of found) expect(files, `domain/${c} has no face`).toContain(`domain/${c}/index.ts`)
  })

  it('groups core/ by concern: no file at its top, each group a folder with a face', () => {
    expect(files.filter((f) => /^core\/[^/]+$/.test(f))).toEqual([])
    const found = [...new Set(files.map((f) => /^core\/([^/]+)\//.exec(f)?.[1]).filter((g): g is string => !!g))].sort()
    expect(found).toEqual(CORE_GROUPS)
    for (const g of found) expect(files, `core/${g} has no face`).toContain(`core/${g}/index.ts`)
  })

  it('has each concept import only concepts declared before it', () => {
    expect(show(orderViolations(edges))).toEqual([])
  })

  it('catches an import against the declared order when it is shown one', () => {
    const planted: ImportEdge = { from: 'domain/records/read.ts', to: 'domain/proposals/index.ts', specifier: '../proposals', kind: 'value' }
    expect(show(orderViolations([planted]))).toEqual(['domain/records/read.ts imports domain/proposals/index.ts (value)'])
    expect(orderViolations([{ ...planted, from: 'domain/proposals/proposals.ts', to: 'domain/records/index.ts' }])).toEqual([])
  })

  it('reaches a concept folder from outside only through its face (index.ts)', () => {
    const bypasses = edges.filter((e) => {
      const concept = conceptOf(e.to)
      return concept !== null && conceptOf(e.from) !== concept && e.to !== `${concept}/index.ts`
    })
    expect(show(bypasses)).toEqual([])
  })

  it('never reaches a concept folder from inside through its own face (the face imports the files)', () => {
    expect(show(edges.filter((e) => conceptOf(e.from) !== null && e.to === `${conceptOf(e.from)}/index.ts` && e.from !== e.to))).toEqual([])
  })
})
