// Bad input through the gateway answers its code (invalid_input with the field, or null / not_found; BAD_USER_INPUT
// for a custom scalar's value), never a 500, and never anything about the subgraph fetch behind it.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  getNamedType, isCompositeType, isEnumType, isInputObjectType, isNonNullType, isScalarType, isSpecifiedScalarType,
  type GraphQLInputType, type GraphQLSchema,
} from 'graphql'
import type { Client } from 'graphql-ws'
import { SCALAR_FORMATS } from '../../core/text'
import { createGateway } from '../../gateway/server'
import { useStack, gql, wsClient, type GqlResult } from '../helpers/stack'
import { createTenant, type Tenant } from '../helpers/factories'

const stack = useStack()
let t: Tenant
beforeAll(async () => { t = await createTenant(stack.db.db) })

const ask = async (query: string, variables: Record<string, unknown> = {}, persona: Parameters<Tenant['token']>[0] = 'program_owner') =>
  gql(`${stack.current.gatewayUrl}/graphql`, query, variables, await t.token(persona))

function expectNoInternalError(r: GqlResult) {
  expect(r.status).toBe(200)
  expect((r.body.errors ?? []).map((e) => e.extensions?.code)).not.toContain('INTERNAL_SERVER_ERROR')
}

const ERR = '__typename ... on Error { code field } ... on InvalidInput { issues { field message } }'

describe('bad input through the gateway', () => {
  it('reads a program, an inbox item or a connection by an id that is not a UUID as null', async () => {
    const r = await ask('{ program(id: "x") { id } inboxItem(id: "x") { id } connection(id: "x") { id } }')
    expectNoInternalError(r)
    expect(r.body).toEqual({ data: { program: null, inboxItem: null, connection: null } })
  })

  it('refuses program with neither or both of id and slug with invalid_input naming the field, as a coded error', async () => {
    const neither = await ask('{ program { id } }')
    expectNoInternalError(neither)
    expect(neither.body.data).toEqual({ program: null })
    expect(neither.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('exactly one of id or slug'), extensions: { code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'id' } })
    const both = await ask('query($id: ID!, $slug: String!) { program(id: $id, slug: $slug) { id } }', { id: t.program.id, slug: t.program.slug })
    expectNoInternalError(both)
    expect(both.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'slug' })
  })

  it('answers a page size over 100 on every paged root field with invalid_input on first and the range, never the cost limit', async () => {
    const schema = stack.current.gateway.federation.schema
    const paged = Object.values(schema.getQueryType()!.getFields()).filter((f) => f.args.some((a) => a.name === 'first'))
    expect(paged.map((f) => f.name)).toContain('myInbox')
    for (const field of paged) {
      const others = field.args.filter((a) => a.name !== 'first' && isNonNullType(a.type))
      expect(others.every((a) => getNamedType(a.type).name === 'ID'), `extend this test for ${field.name}`).toBe(true)
      const args = [...others.map((a) => `${a.name}: "${t.program.id}"`), 'first: 100000'].join(', ')
      // the organisation's export is the org admin's to read; every other page a program owner's
      const r = await ask(`{ ${field.name}(${args}) { __typename } }`, {}, field.name === 'twinsExport' ? 'org_admin' : 'program_owner')
      expectNoInternalError(r)
      expect(r.body.errors?.map((e) => [e.extensions?.code, e.extensions?.errorCode]), field.name).toEqual([['INVALID_INPUT', 'invalid_input']])
      expect(r.body.errors?.[0], field.name).toMatchObject({ message: expect.stringMatching(/^first: Ask for 1 to \d+ (items|rows) a page/), extensions: { field: 'first' } })
    }
    // through a fragment, with a selection whose cost at a page of 250 would be over the limit
    for (const first of [250000, 250]) {
      const nested = await ask(`query { ...Inbox } fragment Inbox on Query { myInbox(first: ${first}) { nodes { id program { id } } } }`)
      expect(nested.body.errors?.map((e) => e.extensions?.errorCode), JSON.stringify(nested.body.errors)).toEqual(['invalid_input'])
    }
  })

  it('refuses a garbage or forged inbox cursor with invalid_input on after', async () => {
    const forged = Buffer.from('2026-01-01T00:00:00.000Z|x').toString('base64url')
    for (const after of ['garbage', forged, '!!!', Buffer.from('x|y|z').toString('base64url')]) {
      const r = await ask('query($after: String) { myInbox(after: $after) { nodes { id } } }', { after })
      expectNoInternalError(r)
      expect(r.body.errors?.[0].extensions).toMatchObject({ code: 'INVALID_INPUT', errorCode: 'invalid_input', field: 'after' })
    }
  })

  it('answers a mutation given an id that is not a UUID with InvalidInput naming every bad argument', async () => {
    const add = await ask(`mutation { addProgramMember(programId: "x", userId: "y", personas: ["chief"]) { ${ERR} } }`)
    expectNoInternalError(add)
    expect(add.body.data.addProgramMember).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field: 'programId' })
    expect(add.body.data.addProgramMember.issues.map((i: { field: string }) => i.field)).toEqual(['programId', 'userId', 'personas.0'])

    const cases: [string, string, string][] = [
      ['addProgramMember', `addProgramMember(programId: "${'P'}", userId: "x", personas: ["viewer"])`, 'userId'],
      ['removeProgramMember', 'removeProgramMember(programId: "P", userId: "x")', 'userId'],
      ['assignPersona', 'assignPersona(programId: "P", userId: "x", persona: "viewer")', 'userId'],
      ['removePersona', 'removePersona(programId: "P", userId: "x", persona: "viewer")', 'userId'],
      ['runSkill', 'runSkill(programId: "x", input: { skillKey: "tox.fih_dose_projection", inputs: {} })', 'programId'],
      ['createConnection', 'createConnection(input: { programId: "x", providerId: "eln_provider", name: "n", scopeRules: { projectIds: ["p"] }, consent: true })', 'input.programId'],
      ['updateConnection', 'updateConnection(id: "x", input: { name: "n" })', 'id'],
      ['setConnectionCredentials', 'setConnectionCredentials(id: "x", clientId: "a", clientSecret: "b")', 'id'],
      ['checkConnectionHealth', 'checkConnectionHealth(id: "x")', 'id'],
      ['syncConnection', 'syncConnection(id: "x")', 'id'],
      ['disconnectConnection', 'disconnectConnection(id: "x")', 'id'],
    ]
    for (const [name, call, field] of cases) {
      const r = await ask(`mutation { ${call.replace('"P"', `"${t.program.id}"`)} { ${ERR} } }`)
      expectNoInternalError(r)
      expect(r.body.data?.[name], name).toMatchObject({ __typename: 'InvalidInput', code: 'invalid_input', field })
    }
  })

  it('answers a launch id that is not a UUID with LaunchNotFound, and an unknown user with NotFound', async () => {
    const launch = await ask(`mutation { openLaunch(launchId: "x") { ${ERR} } }`)
    expectNoInternalError(launch)
    expect(launch.body.data.openLaunch).toMatchObject({ __typename: 'LaunchNotFound', code: 'launch_not_found' })
    const nobody = await ask(`mutation($p: ID!) { addProgramMember(programId: $p, userId: "00000000-0000-4000-8000-000000000000", personas: ["viewer"]) { ${ERR} } }`, { p: t.program.id })
    expect(nobody.body.data.addProgramMember).toMatchObject({ __typename: 'NotFound', code: 'not_found', field: 'userId' })
  })
})

// ---- custom scalars at the edge (issue 26, item 10) ----------------------------------------------------------------

/** Every argument of a root field whose type is (a list of) DateTime, with a document sending it `value`. */
function dateTimeArguments(schema: GraphQLSchema) {
  const found: { name: string; document: (value: string, asVariable: boolean) => string }[] = []
  const dummy = (type: GraphQLInputType): string => {
    const named = getNamedType(type)
    if (isEnumType(named)) return named.getValues()[0].name
    if (named.name === 'ID' || named.name === 'String') return `"${t.program.id}"`
    if (named.name === 'Int') return '1'
    if (named.name === 'DateTime') return '"2026-12-01T09:00:00Z"'
    if (named.name === 'Boolean') return 'true'
    throw new Error(`extend this test: a required argument of type ${String(type)}`)
  }
  for (const [keyword, root] of [['query', schema.getQueryType()], ['mutation', schema.getMutationType()], ['subscription', schema.getSubscriptionType()]] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      for (const arg of field.args) {
        if (getNamedType(arg.type).name !== 'DateTime') continue
        const others = field.args.filter((a) => a !== arg && isNonNullType(a.type)).map((a) => `${a.name}: ${dummy(a.type)}`)
        const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : ''
        found.push({
          name: `${field.name}(${arg.name})`,
          document: (value, asVariable) => asVariable
            ? `${keyword}($v: ${String(arg.type)}) { ${field.name}(${[...others, `${arg.name}: $v`].join(', ')})${selection} }`
            : `${keyword} { ${field.name}(${[...others, `${arg.name}: ${value}`].join(', ')})${selection} }`,
        })
      }
    }
  }
  return found
}

describe('custom scalars at the edge', () => {
  const BAD_DATES = ['tomorrow-ish', 'soon', '2026-13-45', '2026-02-30', '1', '2026-12-01T09:00:00']
  const EXPECTED = 'must be an ISO 8601 date-time such as 2026-12-01T09:00:00Z'

  /** No answer says anything about a subgraph fetch: no `response`, no address, no subgraph status. */
  const expectNothingOfTheFetch = (answer: unknown) => {
    const text = JSON.stringify(answer)
    expect(text).not.toMatch(/"response"|https?:\/\/|127\.0\.0\.1|localhost|"\d{3}: /)
  }

  it('knows a parser for every custom scalar of the supergraph but JSON, which takes any JSON value', () => {
    const custom = Object.values(stack.current.gateway.federation.schema.getTypeMap())
      .filter((type) => isScalarType(type) && !isSpecifiedScalarType(type) && !type.name.startsWith('__')).map((type) => type.name).sort()
    expect(custom).toEqual(['DateTime', 'JSON'])
    expect(Object.keys(SCALAR_FORMATS)).toEqual(['DateTime'])
    // DateTime reaches operations as arguments only (the test below sends every one); an input field would need a case
    const inputFields = Object.values(stack.current.gateway.federation.schema.getTypeMap()).filter(isInputObjectType)
      .flatMap((type) => Object.values(type.getFields()).filter((f) => getNamedType(f.type).name === 'DateTime').map((f) => `${type.name}.${f.name}`))
    expect(inputFields).toEqual([])
  })

  it('refuses a malformed DateTime in every DateTime argument, as a variable or a literal, over HTTP and graphql-ws, with BAD_USER_INPUT naming it and the format', async () => {
    const args = dateTimeArguments(stack.current.gateway.federation.schema)
    expect(args.map((a) => a.name)).toEqual(expect.arrayContaining(['createDelegation(endsAt)', 'snoozeInboxItem(until)', 'decisionMetrics(since)']))
    const token = await t.token('program_owner')
    const client = wsClient(`${stack.current.gatewayUrl}/graphql`, token)
    try {
      for (const arg of args) {
        for (const bad of BAD_DATES) {
          const viaVariable = arg.document(bad, true)
          const viaLiteral = arg.document(JSON.stringify(bad), false)
          const http = { variable: await ask(viaVariable, { v: bad }), literal: await ask(viaLiteral) }
          const ws = { variable: await overSocket(client, viaVariable, { v: bad }), literal: await overSocket(client, viaLiteral) }
          for (const [how, r] of [['HTTP variable', http.variable], ['HTTP literal', http.literal]] as const) {
            expect([r.status, r.body.errors?.map((e) => e.extensions?.code)], `${arg.name} ${bad} ${how}`).toEqual([400, ['BAD_USER_INPUT']])
            expectNothingOfTheFetch(r.body)
          }
          for (const [how, r] of [['ws variable', ws.variable], ['ws literal', ws.literal]] as const) {
            expect(r.map((e) => e.extensions?.code), `${arg.name} ${bad} ${how}`).toEqual(['BAD_USER_INPUT'])
            expectNothingOfTheFetch(r)
          }
          const argName = arg.name.slice(arg.name.indexOf('(') + 1, -1)
          for (const message of [http.literal.body.errors![0].message, ws.literal[0].message]) {
            expect(message).toBe(`${argName} ${EXPECTED}; got ${JSON.stringify(bad)}.`)
          }
          for (const message of [http.variable.body.errors![0].message, ws.variable[0].message]) {
            expect(message).toMatch(/^Variable "\$v" got invalid value/)
            expect(message).toContain(`DateTime ${EXPECTED}.`)
          }
        }
      }
      // a number is not a date-time either
      const r = await ask('{ decisionMetrics(programId: "P", since: 20261201) { __typename } }'.replace('P', t.program.id))
      expect([r.status, r.body.errors?.[0].extensions?.code, r.body.errors?.[0].message]).toEqual([400, 'BAD_USER_INPUT', `since ${EXPECTED}; got 20261201.`])
    } finally {
      await client.dispose()
    }
  })

  it('accepts a date-time with an offset, a UTC one with fractions and a calendar date in a DateTime argument', async () => {
    for (const good of ['2025-12-01T09:00:00Z', '2025-12-01T10:00:00.123+01:00', '2025-12-01T10:00+0100', '2025-12-01']) {
      const r = await ask('query($p: ID!, $s: DateTime) { decisionMetrics(programId: $p, since: $s) { __typename } }', { p: t.program.id, s: good })
      expect([r.status, r.body.errors], good).toEqual([200, undefined])
      const literal = await ask(`{ decisionMetrics(programId: "${t.program.id}", since: "${good}") { __typename } }`)
      expect([literal.status, literal.body.errors], good).toEqual([200, undefined])
    }
  })

  it('never passes a subgraph\'s address, status or body to the caller, whatever the subgraph answers', async () => {
    // a twins subgraph that answers every call with one canned non-2xx answer (a stand-in for a broken deployment)
    let canned = { status: 400, type: 'application/json', body: '' }
    const broken = http.createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(canned.status, { 'content-type': canned.type }).end(canned.body)) })
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve))
    const brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/graphql`
    const gateway = await createGateway({ db: stack.db.db, subgraphUrls: { ...stack.current.subgraphUrls, twins: brokenUrl }, dataDir: stack.db.dataDir })
    const url = await gateway.listen(0, '127.0.0.1')
    const query = '{ myInbox(first: 1) { nodes { id } } }'
    const token = await t.token('program_owner')
    try {
      const answers: Record<string, GqlResult> = {}
      const cases = {
        // what the subgraph says is the caller's to read: its code and message go on
        badUserInput: { status: 400, type: 'application/json', body: JSON.stringify({ errors: [{ message: 'Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x"', extensions: { code: 'BAD_USER_INPUT' } }] }) },
        // a document the gateway built wrongly, a proxy's page, an empty 400: unexpected faults, masked
        validation: { status: 400, type: 'application/json', body: JSON.stringify({ errors: [{ message: `Cannot query field "myInbox" (${brokenUrl})`, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }) },
        proxyPage: { status: 502, type: 'text/html', body: `<html>Bad gateway at ${brokenUrl}</html>` },
        empty: { status: 400, type: 'text/plain', body: '' },
        // an unavailable subgraph: the outage answer
        outage: { status: 503, type: 'text/plain', body: 'draining' },
      }
      for (const [name, c] of Object.entries(cases)) {
        canned = c
        answers[name] = await gql(`${url}/graphql`, query, {}, token)
        expectNothingOfTheFetch(answers[name].body)
        expect(JSON.stringify(answers[name].body)).not.toMatch(/Bad gateway|draining|Cannot query field/)
      }
      expect(answers.badUserInput.body.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([[JSON.parse(cases.badUserInput.body).errors[0].message, 'BAD_USER_INPUT']])
      for (const name of ['validation', 'proxyPage', 'empty']) {
        expect(answers[name].body.errors?.map((e) => e.extensions?.code), name).toEqual(['INTERNAL_SERVER_ERROR'])
        expect(answers[name].body.errors?.[0].message, name).toMatch(/^Unexpected error \(reference [0-9a-f-]{36}\)\.$/)
      }
      expect([answers.outage.status, answers.outage.body.errors?.[0].extensions?.code]).toEqual([503, 'SERVICE_UNAVAILABLE'])
    } finally {
      await gateway.close()
      await new Promise((resolve) => broken.close(resolve))
    }
  })
})

/** One operation over a socket: the errors it ends with (an error message's, or a result's). */
function overSocket(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<{ message: string; extensions?: Record<string, any> }[]> {
  return new Promise((resolve, reject) => {
    const errors: { message: string; extensions?: Record<string, any> }[] = []
    const timer = setTimeout(() => reject(new Error(`no answer over ws to ${query.slice(0, 80)}`)), 10_000)
    client.subscribe({ query, variables }, {
      next: (m: any) => { errors.push(...(m.errors ?? [])) },
      error: (e: any) => { clearTimeout(timer); if (Array.isArray(e)) { errors.push(...e); resolve(errors) } else reject(new Error(`socket closed: ${e?.code} ${e?.reason}`)) },
      complete: () => { clearTimeout(timer); resolve(errors) },
    })
  })
}
