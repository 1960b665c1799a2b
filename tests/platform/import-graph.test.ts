// The shape of the code, read from the source itself (the TypeScript compiler's program and module resolution:
// tests/helpers/import-graph.ts): no import cycles, nothing imports upward, and code outside a concept folder reaches
// it through its face. The layers, lowest first:
//   core/ (and the generated Prisma client)                      the platform: database, audit, errors, jobs catalogue
//   subgraphs/shared/                                            what every subgraph's server and schema share
//   subgraphs/<name>/domain/                                     the domain: decides; imports other subgraphs' domain
//   subgraphs/<name>/{schema,http,tools,harness}/, server, main  translation and serving, over their own domain
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

/** A folder of one concept with one face (index.ts): the twins domain's concepts and the workbench's records. */
function conceptOf(file: string): string | null {
  const twins = /^subgraphs\/twins\/domain\/([^/]+)\//.exec(file)
  if (twins) return `subgraphs/twins/domain/${twins[1]}`
  if (file.startsWith('subgraphs/workbench/domain/records/')) return 'subgraphs/workbench/domain/records'
  return null
}

const subgraphOf = (file: string) => /^subgraphs\/(connectors|workbench|twins)\//.exec(file)?.[1] ?? null
const isDomain = (file: string) => /^subgraphs\/[^/]+\/domain\//.test(file)
const under = (file: string, ...roots: string[]) => roots.some((r) => file.startsWith(r))

/** The run cycle (domain) hands a run to a harness through the harness contract, the one file of harness/ it knows. */
const HARNESS_CONTRACT = 'subgraphs/twins/harness/interface.ts'

/**
 * Cycles inside the connectors' domain that the connectors' rework (one sync module with adapter hooks, issue 28 part
 * 4, on its own branch) takes apart; each is a strongly connected component, its modules sorted. Nothing may be added.
 */
const CYCLES_BEING_REMOVED: string[] = []

/** Each rule: which importers it governs, and which of their imports it refuses. */
const RULES: { name: string; from: (f: string) => boolean; refuses: (to: string, from: string) => boolean }[] = [
  { name: 'core imports only core and the generated client', from: (f) => under(f, 'core/'), refuses: (to) => !under(to, 'core/', 'generated/') },
  {
    name: 'subgraphs/shared imports only core and itself',
    from: (f) => under(f, 'subgraphs/shared/'),
    refuses: (to) => !under(to, 'core/', 'generated/', 'subgraphs/shared/'),
  },
  {
    name: 'domain code imports core, subgraphs/shared and domain code only (no schema, tools, servers, jobs or gateway)',
    from: isDomain,
    refuses: (to) => !under(to, 'core/', 'generated/', 'subgraphs/shared/') && !isDomain(to) && to !== HARNESS_CONTRACT,
  },
  {
    name: 'subgraphs import neither the gateway nor the worker, and another subgraph only through its domain',
    from: (f) => under(f, 'subgraphs/'),
    refuses: (to, from) => under(to, 'gateway/', 'jobs/', 'prisma/', 'scripts/', 'bench/', 'tests/', 'fakes/', 'main.ts', 'services.ts')
      || (!!subgraphOf(from) && !!subgraphOf(to) && subgraphOf(to) !== subgraphOf(from) && !isDomain(to)),
  },
  { name: 'the gateway imports no subgraph and no job', from: (f) => under(f, 'gateway/'), refuses: (to) => under(to, 'subgraphs/', 'jobs/') },
  { name: 'jobs do not import the gateway', from: (f) => under(f, 'jobs/'), refuses: (to) => under(to, 'gateway/') },
  { name: 'the migrations library imports nothing of the project', from: (f) => f === 'prisma/migrations.ts', refuses: () => true },
]

describe('the import graph', () => {
  it('is read from the real source: every module of the project, with value, type and dynamic imports', () => {
    expect(files).toContain('core/db.ts')
    expect(files).toContain('subgraphs/twins/domain/inbox/index.ts')
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
