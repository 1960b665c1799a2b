// Owns the Pothos builder every subgraph uses: plugins, scalars, the Error interface and the shared entities.
import SchemaBuilder from '@pothos/core'
import DirectivePlugin from '@pothos/plugin-directives'
import ErrorsPlugin from '@pothos/plugin-errors'
import FederationPlugin from '@pothos/plugin-federation'
import { GraphQLScalarType, Kind } from 'graphql'
import type { Organization, Program, User } from '../../generated/prisma/client'
import { DomainError } from '../../core/errors'
import type { GraphQLContext } from './context'

export interface SchemaTypes {
  Context: GraphQLContext
  Scalars: {
    DateTime: { Input: Date; Output: Date }
    JSON: { Input: unknown; Output: unknown }
  }
}

export function createBuilder() {
  const builder = new SchemaBuilder<SchemaTypes>({
    plugins: [ErrorsPlugin, DirectivePlugin, FederationPlugin],
    errors: { defaultTypes: [] },
  })
  builder.addScalarType('DateTime', new GraphQLScalarType<Date, string>({
    name: 'DateTime',
    description: 'An ISO 8601 instant, e.g. 2026-11-21T10:00:00.000Z',
    serialize: (v) => (v instanceof Date ? v : new Date(String(v))).toISOString(),
    parseValue: (v) => {
      const d = new Date(String(v))
      if (Number.isNaN(d.getTime())) throw new TypeError('DateTime must be an ISO 8601 string')
      return d
    },
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be a string')
      const d = new Date(ast.value)
      if (Number.isNaN(d.getTime())) throw new TypeError('DateTime must be an ISO 8601 string')
      return d
    },
  }), {})
  builder.addScalarType('JSON', new GraphQLScalarType({
    name: 'JSON',
    description: 'Any JSON value',
    serialize: (v) => v,
    parseValue: (v) => v,
  }), {})

  const ErrorInterface = builder.interfaceRef<DomainError>('Error').implement({
    description: 'A refusal with the specification\'s code; `field` names the offending input where there is one.',
    fields: (t) => ({
      code: t.exposeString('code'),
      message: t.exposeString('message'),
      field: t.string({ nullable: true, resolve: (e) => e.field ?? null }),
    }),
  })
  builder.objectType(DomainError, {
    name: 'DomainError',
    interfaces: [ErrorInterface],
    isTypeOf: (v) => v instanceof DomainError,
    fields: (t) => ({
      code: t.exposeString('code', { shareable: true }),
      message: t.exposeString('message', { shareable: true }),
      field: t.string({ nullable: true, shareable: true, resolve: (e) => e.field ?? null }),
    }),
  })
  builder.queryType({})
  return builder
}
export type Builder = ReturnType<typeof createBuilder>

/**
 * The shared entities with their core fields, read from the core tables. `owner` subgraphs (workbench,
 * connectors) resolve them (fields @shareable); the others hold a key-only reference and add their fields.
 */
export function defineCoreEntities(builder: Builder) {
  const key = builder.selection<{ id: string }>('id')
  const OrganizationRef = builder.objectRef<Organization>('Organization').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      slug: t.exposeString('slug', { shareable: true }),
      name: t.exposeString('name', { shareable: true }),
    }),
  })
  builder.asEntity(OrganizationRef, { key, resolveReference: (ref, ctx) => ctx.loaders.organization.load(ref.id) })

  const ProgramRef = builder.objectRef<Program>('Program').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      slug: t.exposeString('slug', { shareable: true }),
      name: t.exposeString('name', { shareable: true }),
      illustrative: t.exposeBoolean('illustrative', { shareable: true, description: 'Demo data, labelled illustrative' }),
      organization: t.field({
        type: OrganizationRef, shareable: true,
        resolve: async (p, _a, ctx) => (await ctx.loaders.organization.load(p.organizationId))!,
      }),
    }),
  })
  builder.asEntity(ProgramRef, { key, resolveReference: (ref, ctx) => ctx.loaders.program.load(ref.id) })

  const UserRef = builder.objectRef<User>('User').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name', { shareable: true }),
      email: t.exposeString('email', { shareable: true }),
    }),
  })
  builder.asEntity(UserRef, { key, resolveReference: (ref, ctx) => ctx.loaders.user.load(ref.id) })
  return { OrganizationRef, ProgramRef, UserRef }
}

/** Key-only references for subgraphs that add fields to an entity without reading its core fields. */
export function referenceEntity(builder: Builder, name: 'Program' | 'User' | 'Organization') {
  const ref = builder.objectRef<{ id: string }>(name).implement({ fields: (t) => ({ id: t.exposeID('id') }) })
  builder.asEntity(ref, { key: builder.selection<{ id: string }>('id'), resolveReference: (r) => ({ id: r.id }) })
  return ref
}

/** The one way to point at an entity from a row: `{ id }`, typed, never hand-copied fields. */
export const entityRef = (id: string) => ({ id })
