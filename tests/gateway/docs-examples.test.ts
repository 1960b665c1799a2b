// Every example of the README and docs/console-developers.md runs through the real gateway, as the illustrative person it names, on
// the illustrative seed: a documented example that stops working fails here. An example is a ```graphql block right
// after a marker `<!-- example: name=<id> as=<person> [expect=<Typename>|error:<CODE>] [trigger=<example id>] -->`.
// Queries must answer without errors; mutations answer the `__typename` expected (default: their Success object);
// a subscription receives an event once the example it names as its trigger has run (that example runs only there).
import { beforeAll, describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { parse, type OperationDefinitionNode } from 'graphql'
import { ROOT_DIR } from '../../core/config'
import { seedIllustrative } from '../../subgraphs/seed'
import { illustrativeTenant } from '../helpers/console'
import { useStack, gql, wsClient, waitFor } from '../helpers/stack'
import type { Tenant } from '../helpers/factories'

const DOCS = [path.join(ROOT_DIR, 'README.md'), path.join(ROOT_DIR, 'docs', 'console-developers.md')]
const PEOPLE: Record<string, string> = {
  owner: 'program_owner', lead: 'program_lead', scientist: 'scientist', quality: 'quality_reviewer',
  manufacturing: 'manufacturing_specialist', viewer: 'viewer', admin: 'org_admin',
}

interface Example { name: string; as: string; expect?: string; trigger?: string; document: string; operation: OperationDefinitionNode }

/** The marked examples of a document, in order. */
function examplesOf(markdown: string): Example[] {
  const found: Example[] = []
  for (const m of markdown.matchAll(/<!-- example: ([^>]*?) -->\n```graphql\n([\s\S]*?)\n```/g)) {
    const options = Object.fromEntries(m[1].trim().split(/\s+/).map((pair) => pair.split('=') as [string, string]))
    const operation = parse(m[2]).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!
    found.push({ name: options.name, as: options.as, expect: options.expect, trigger: options.trigger, document: m[2], operation })
  }
  return found
}

const examples = DOCS.flatMap((doc) => examplesOf(fs.readFileSync(doc, 'utf8')))
const triggers = new Set(examples.map((e) => e.trigger).filter(Boolean))
const stack = useStack()
let t: Tenant
let values: Record<string, unknown>

beforeAll(async () => {
  const db = stack.db.db
  const seed = await seedIllustrative(db)
  t = illustrativeTenant(seed)
  const hypothesis = await db.programRecord.findFirstOrThrow({ where: { programId: seed.program.id, recordType: 'evidence.hypotheses' } })
  const gate = await db.stageGate.findFirstOrThrow({ where: { programId: seed.program.id } })
  values = { programId: seed.program.id, programSlug: seed.program.slug, hypothesisId: hypothesis.id, gateId: gate.id, scientistId: seed.users.scientist.id }
})

const variablesOf = (e: Example) => Object.fromEntries((e.operation.variableDefinitions ?? []).map((v) => {
  const name = v.variable.name.value
  if (!(name in values)) throw new Error(`example ${e.name} declares $${name}, which the examples' variables do not hold (${Object.keys(values).join(', ')})`)
  return [name, values[name]]
}))

async function run(e: Example) {
  const token = await t.token(PEOPLE[e.as] as never)
  return gql(`${stack.current.gatewayUrl}/graphql`, e.document, variablesOf(e), token)
}

/** Live topics' subscribers across the subgraphs: a subscription is in place once this grew. */
const liveSubscribers = () => Object.values(stack.current.subgraphs).flatMap((s) => Object.values(s as object))
  .reduce((n: number, v) => n + (typeof (v as { subscriberCount?: unknown })?.subscriberCount === 'number' ? (v as { subscriberCount: number }).subscriberCount : 0), 0)

describe('the examples of the README and docs/console-developers.md', () => {
  it('are there: at least one query, one mutation and one subscription, each as a named person', () => {
    expect(new Set(examples.map((e) => e.operation.operation))).toEqual(new Set(['query', 'mutation', 'subscription']))
    for (const e of examples) expect(PEOPLE[e.as], `example ${e.name}: as=${e.as}`).toBeDefined()
    expect(new Set(examples.map((e) => e.name)).size).toBe(examples.length)
    for (const name of triggers) expect(examples.some((e) => e.name === name), `trigger ${name}`).toBe(true)
  })

  for (const e of examples.filter((x) => !triggers.has(x.name))) {
    it(`run through the gateway: ${e.name} (${e.operation.operation}, as ${e.as})`, async () => {
      if (e.operation.operation === 'subscription') {
        const trigger = examples.find((x) => x.name === e.trigger)
        expect(trigger, `subscription ${e.name} names a trigger`).toBeDefined()
        const client = wsClient(`${stack.current.gatewayUrl}/graphql`, await t.token(PEOPLE[e.as] as never))
        try {
          const before = liveSubscribers()
          const events: { data?: Record<string, unknown> | null; errors?: unknown }[] = []
          const arrived = new Promise<void>((resolve, reject) => {
            client.subscribe({ query: e.document, variables: variablesOf(e) }, {
              next: (m) => { events.push(m as never); resolve() },
              error: (err) => reject(err instanceof Error ? err : new Error(JSON.stringify(err))),
              complete: () => resolve(),
            })
          })
          await waitFor(() => liveSubscribers() > before, 10_000, `subscription ${e.name} in place`)
          const fired = await run(trigger!)
          expect(fired.body.errors, JSON.stringify(fired.body)).toBeUndefined()
          await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`no event for ${e.name}`)), 15_000))])
          expect(events[0]?.errors).toBeUndefined()
          expect(Object.values(events[0]?.data ?? {})[0]).toBeTruthy()
        } finally { await client.dispose() }
        return
      }
      const r = await run(e)
      if (e.expect?.startsWith('error:')) {
        expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe(e.expect.slice('error:'.length))
        return
      }
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined()
      expect(r.status).toBe(200)
      for (const [field, value] of Object.entries(r.body.data ?? {})) {
        expect(value, `${e.name}: ${field}`).not.toBeNull()
        if (e.operation.operation === 'mutation') {
          const typename = (value as { __typename?: string }).__typename
          expect(typename, `${e.name}: select __typename on ${field}`).toBeDefined()
          expect(typename, JSON.stringify(value)).toBe(e.expect ?? `Mutation${field[0].toUpperCase()}${field.slice(1)}Success`)
        }
      }
    })
  }
})
