import { describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import type { GraphQLObjectType, GraphQLSchema } from 'graphql'
import { SCHEMA_DIR } from '../../gateway/supergraph'
import { buildSchemaArtifacts } from '../../subgraphs/supergraph'
import { ApolloGateway } from '@apollo/gateway'

describe('committed SDL artifacts', () => {
  it('match what the subgraphs print and compose today (run npm run schema when this fails)', () => {
    for (const [name, content] of Object.entries(buildSchemaArtifacts())) {
      const committed = fs.readFileSync(path.join(SCHEMA_DIR, name), 'utf8')
      expect(committed, `schema/${name} is stale: run npm run schema`).toBe(content)
    }
  })
})

describe('route map', () => {
  const map = JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'route-map.json'), 'utf8')) as {
    routes: { method: string; path: string; operation: string; status: 'available' | 'planned' | 'rest' | 'reserved'; release?: string }[]
    unrouted?: { operation: string; status: 'available' }[]
  }
  // The API schema (what clients see) of the committed supergraph.
  const supergraph = fs.readFileSync(path.join(SCHEMA_DIR, 'supergraph.graphql'), 'utf8')
  const gateway = new ApolloGateway({ supergraphSdl: supergraph })
  let api: GraphQLSchema | undefined
  const apiSchema = async () => {
    if (!api) {
      const { schema } = await gateway.load()
      api = schema
      await gateway.stop()
    }
    return api!
  }
  const has = async (operation: string) => {
    const [type, field] = operation.split('.')
    const schema = await apiSchema()
    const root = (type === 'Query' ? schema.getQueryType() : type === 'Mutation' ? schema.getMutationType()
      : type === 'Subscription' ? schema.getSubscriptionType() : schema.getType(type)) as GraphQLObjectType | null
    return Boolean(root?.getFields()[field])
  }

  it('lists every specification route once, each with an operation', () => {
    const keys = map.routes.map((r) => `${r.method} ${r.path}`)
    expect(new Set(keys).size).toBe(keys.length)
    // connectors 3 (two webhooks, SOP approve); memory and workbench 11; twins 32 at R3 + 7 stage gates + 2 organisation twins + 3 skills.
    expect(map.routes.length).toBe(58)
    for (const r of map.routes) expect(r.operation).toMatch(/^(REST|(Query|Mutation|Subscription)\.[a-z][A-Za-z]+)$/)
  })

  it('names only operations that exist in the supergraph for routes marked available', async () => {
    const missing = []
    for (const r of map.routes.filter((r) => r.status === 'available')) if (!(await has(r.operation))) missing.push(r.operation)
    expect(missing).toEqual([])
  })

  it('marks a route available as soon as its operation exists, so the map never lags the schema', async () => {
    const stale = []
    for (const r of map.routes.filter((r) => r.status === 'planned')) if (await has(r.operation)) stale.push(r.operation)
    expect(stale).toEqual([])
  })

  it('names only operations that exist in the supergraph for operations serving no specification route', async () => {
    const missing = []
    for (const r of map.unrouted ?? []) if (!(await has(r.operation))) missing.push(r.operation)
    expect(missing).toEqual([])
  })

  it("names every Query, Mutation and Subscription field of the supergraph in the console developers' API map", async () => {
    const doc = fs.readFileSync(path.join(SCHEMA_DIR, '..', 'docs', 'console-developers.md'), 'utf8')
    expect(doc.indexOf('## API map')).toBeGreaterThanOrEqual(0)
    const apiMap = doc.slice(doc.indexOf('## API map'), doc.indexOf('\n## ', doc.indexOf('## API map') + 1))
    const schema = await apiSchema()
    const fields = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]
      .flatMap((root) => Object.keys(root?.getFields() ?? {}).map((f) => `${root!.name}.${f}`))
    expect(fields.length).toBeGreaterThan(50)
    expect(fields.filter((f) => !new RegExp(`\\b${f.split('.')[1]}\\b`).test(apiMap))).toEqual([])
  })

  it("marks a later release's route reserved, never available: the R5 propose-share route is in the schema and answers NotImplemented", async () => {
    const reserved = map.routes.filter((r) => r.status === 'reserved')
    expect(reserved.map((r) => `${r.method} ${r.path} ${r.release}`)).toEqual(['POST /me/memory/{id}/propose-share R5'])
    for (const r of reserved) expect(await has(r.operation)).toBe(true)
    expect(map.routes.filter((r) => r.release === 'R5' && r.status === 'available')).toEqual([])
  })

  it('keeps the vendor webhook routes on the REST shim', () => {
    const rest = map.routes.filter((r) => r.status === 'rest').map((r) => r.path)
    expect(rest).toEqual(['/api/v1/hooks/eln_provider/{connection_id}', '/hooks/{provider_id}/{connection_id}'])
  })
})
