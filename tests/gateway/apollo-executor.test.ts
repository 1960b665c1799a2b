// The gateway's touch points with Apollo's query-plan executor (gateway/apollo-executor.ts), one test each, over the
// real subgraphs: an upgrade of @apollo/gateway that changes what the gateway relies on fails here, not in production.
// Only public exports are used, and only gateway/apollo-executor.ts imports @apollo/gateway (besides the stock peer of bench/peer-gateway.ts).
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { executeQueryPlan } from '@apollo/gateway'
import { parse } from 'graphql'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT_DIR } from '../../core/config'
import {
  operationContextOf, planRequestOf, runQueryPlan, PLAN_REQUEST_FIELDS,
  type DataSourceRequest, type GraphQLDataSource, type PlanRun, type ServiceMap,
} from '../../gateway/apollo-executor'
import { SubgraphDataSource, type SubgraphCallContext } from '../../gateway/subgraph-http'
import { SUBGRAPH_NAMES } from '../../gateway/supergraph'
import { fileInboxItem } from '../../domain/inbox'
import { useStack } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
let context: SubgraphCallContext

/** Three subgraphs, a variable and a fragment: what the console's first screen asks. */
const SCREEN = `query Screen($n: Int!) {
  me { programs { program { name connections { nodes { id } } } } }
  ...Mine
}
fragment Mine on Query { myInbox(first: $n) { nodes { title program { name slug } } } }`

beforeAll(async () => {
  t = await createTenant(stack.db.db, 'Executor')
  await stack.db.db.$transaction(async (tx) => {
    for (let i = 0; i < 2; i++) {
      await fileInboxItem(tx, {
        organizationId: t.organization.id, userId: t.users.program_lead.id, programId: t.program.id,
        kind: 'decision', sourceType: 'test', sourceId: `executor-${i}`, title: `Item ${i}`,
      })
    }
  })
  context = { identity: await stack.current.gateway.identities.resolve(`Bearer ${await t.token('program_lead')}`) }
})

const federation = () => stack.current.gateway.federation
const services = (): ServiceMap => Object.fromEntries(SUBGRAPH_NAMES.map((n) => [n, new SubgraphDataSource(stack.current.subgraphUrls[n])]))
function planned(query: string, operationName?: string) {
  const document = parse(query)
  const p = federation().plan(document, operationName)!
  return { document, plan: p.plan, operationContext: operationContextOf(federation().schema, document, operationName) }
}
const run = (query: string, variables: Record<string, unknown>): PlanRun => ({ query, variables, context })

/** Records the properties read of `target` (and of the objects under `nested`), by path. */
function recording<T extends object>(target: T, reads: Set<string>, prefix = '', nested: string[] = []): T {
  return new Proxy(target, {
    get(o, key, receiver) {
      const value = Reflect.get(o, key, receiver)
      if (typeof key !== 'string' || key === 'then') return value // awaiting an object asks for then
      reads.add(`${prefix}${key}`)
      return nested.includes(key) && value && typeof value === 'object' ? recording(value, reads, `${key}.`) : value
    },
  })
}

describe("the gateway's touch points with Apollo's executor", () => {
  it('1. buildOperationContext: the operation and its fragments, by which the executor shapes the answer', async () => {
    const { plan, operationContext } = planned(SCREEN, 'Screen')
    expect(operationContext.operation.name?.value).toBe('Screen')
    expect(Object.keys(operationContext.fragments)).toEqual(['Mine'])
    const result = await runQueryPlan(plan, services(), run(SCREEN, { n: 5 }), operationContext, federation().supergraphSchema, federation().apiSchema)
    expect(result.errors).toBeUndefined()
    const data = result.data as any
    expect(data.myInbox.nodes.map((n: any) => n.title).sort()).toEqual(['Item 0', 'Item 1'])
    expect(data.myInbox.nodes[0].program).toEqual({ name: t.program.name, slug: t.program.slug })
    expect(data.me.programs.map((p: any) => p.program.name)).toEqual([t.program.name])
  })

  it('2. executeQueryPlan: reads only the fields of the request context the gateway builds, on success and on a subgraph error', async () => {
    const reads = new Set<string>()
    const ok = planned(SCREEN, 'Screen')
    const requestContext = (r: PlanRun) => recording(planRequestOf(r), reads, '', ['request']) as Parameters<typeof executeQueryPlan>[2]
    const result = await executeQueryPlan(ok.plan, services(), requestContext(run(SCREEN, { n: 5 })), ok.operationContext, federation().supergraphSchema, federation().apiSchema)
    expect([result.errors, (result.data as any).myInbox.nodes.length]).toEqual([undefined, 2])
    // a page larger than allowed: the twins subgraph answers an error, which the executor records in metrics
    const tooMany = '{ me { user { id } } myInbox(first: 1000) { nodes { id } } }'
    const failing = planned(tooMany)
    const failed = await executeQueryPlan(failing.plan, services(), requestContext(run(tooMany, {})), failing.operationContext, federation().supergraphSchema, federation().apiSchema)
    expect(failed.errors?.[0].extensions?.code).toBe('INVALID_INPUT')
    const topLevel = [...reads].filter((r) => !r.includes('.'))
    expect(topLevel.filter((r) => !(PLAN_REQUEST_FIELDS as readonly string[]).includes(r))).toEqual([])
    // of the request, the variables only (the gateway gives query and operation name too, for data sources to read)
    expect([...reads].filter((r) => r.startsWith('request.') && r !== 'request.variables')).toEqual([])
    expect(reads).toContain('context')
  })

  it("3. GraphQLDataSource: process() gets each fetch's document, variables, operation name and the caller's context; the executor reads data, errors and extensions of the answer", async () => {
    const requests: DataSourceRequest[] = []
    const answerReads = new Set<string>()
    const recorded = Object.fromEntries(Object.entries(services()).map(([name, source]) => [name, {
      process: async (options: DataSourceRequest) => {
        requests.push(options)
        return recording(await source.process(options), answerReads)
      },
    } satisfies GraphQLDataSource]))
    const { plan, operationContext } = planned(SCREEN, 'Screen')
    const result = await runQueryPlan(plan, recorded, run(SCREEN, { n: 5 }), operationContext, federation().supergraphSchema, federation().apiSchema)
    expect(result.errors).toBeUndefined()
    expect(requests.length).toBe(3)
    for (const r of requests) {
      expect(typeof r.request.query).toBe('string')
      expect(r.request.operationName).toMatch(/^Screen__\w+__\d+$/)
      expect(r.context).toBe(context)
    }
    expect(requests.find((r) => r.request.query!.includes('myInbox'))?.request.variables).toEqual({ n: 5 })
    expect([...answerReads].filter((k) => !['data', 'errors', 'extensions'].includes(k))).toEqual([])
    expect(answerReads).toContain('data')
  })

  it('are all in gateway/apollo-executor.ts: nothing else imports @apollo/gateway (but the peers bench\'s stock peer), and nothing reaches into an Apollo dist folder', () => {
    const files = ['core', 'domain', 'gateway', 'subgraphs', 'jobs', 'clients', 'scripts', 'bench'].flatMap((dir) =>
      readdirSync(path.join(ROOT_DIR, dir), { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
        .map((e) => path.relative(ROOT_DIR, path.join(e.parentPath, e.name)).split(path.sep).join('/')))
    const text = (f: string) => readFileSync(path.join(ROOT_DIR, f), 'utf8')
    // bench/peer-gateway.ts runs the stock Apollo Gateway as a peer the peers bench measures ours against: not ours
    const allowed = ['gateway/apollo-executor.ts', 'bench/peer-gateway.ts']
    expect(files.filter((f) => !allowed.includes(f) && /from '@apollo\/gateway'/.test(text(f)))).toEqual([])
    expect(files.filter((f) => /from '@apollo\/[\w-]+\/dist\//.test(text(f)))).toEqual([])
  })
})
