// Owns the Pothos builder every subgraph uses: plugins, scalars, the Error interface and the shared entities.
import SchemaBuilder, { type InterfaceRef, type ObjectRef } from '@pothos/core'
import DirectivePlugin from '@pothos/plugin-directives'
import ErrorsPlugin from '@pothos/plugin-errors'
import FederationPlugin from '@pothos/plugin-federation'
import { GraphQLScalarType, Kind, type FieldNode, type GraphQLResolveInfo, type OperationDefinitionNode, type SelectionSetNode } from 'graphql'
import type { Organization, Program, User } from '../../generated/prisma/client'
import { CORE_ERROR_CLASSES, DomainError, ERROR_CATALOGUE, fieldPath, type ErrorClass, type InputIssue } from '../../core/errors'
import type { ErrorDataField, ErrorSpec } from '../../core/errors'
import { DATE_TIME_EXPECTED, isId, parseScalar } from '../../core/text'
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
    description: `An instant: ${DATE_TIME_EXPECTED} (a date alone is midnight UTC)`,
    serialize: (v) => (v instanceof Date ? v : new Date(String(v))).toISOString(),
    // the one parser the gateway's edge also checks values with (core/text/scalars.ts)
    parseValue: (v) => parseScalar('DateTime', v) as Date,
    parseLiteral: (ast) => parseScalar('DateTime', ast.kind === Kind.STRING ? ast.value : undefined) as Date,
  }), {})
  builder.addScalarType('JSON', new GraphQLScalarType({
    name: 'JSON',
    description: 'Any JSON value',
    serialize: (v) => v,
    parseValue: (v) => v,
  }), {})

  defineErrorTypes(builder, CORE_ERROR_CLASSES)
  builder.queryType({})
  return builder
}
export type Builder = ReturnType<typeof createBuilder>

/**
 * A mutation's result: its data field, or one of the errors its domain write declares (`command(...).errors`).
 * Pothos names the union <Type><Field>Result; a declared error arrives as its typed object.
 */
export function result(write: { errors: readonly ErrorClass[] }, dataField: string) {
  return { types: [...write.errors] as unknown as (new (...args: never[]) => DomainError)[], dataField: { name: dataField } }
}

/** The argument names of the root field a resolver runs beneath (the mutation or query that refused), by operation. */
const rootArguments = new WeakMap<OperationDefinitionNode, Map<string, readonly string[] | null>>()
function rootFieldArguments(info: GraphQLResolveInfo): readonly string[] | null {
  let root = info.path
  while (root.prev) root = root.prev
  const key = String(root.key)
  let byKey = rootArguments.get(info.operation)
  if (!byKey) rootArguments.set(info.operation, (byKey = new Map()))
  if (byKey.has(key)) return byKey.get(key)!
  let node: FieldNode | undefined
  const visit = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (node) return
      if (s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === key) node = s
      else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet)
      else if (s.kind === Kind.FRAGMENT_SPREAD && info.fragments[s.name.value]) visit(info.fragments[s.name.value].selectionSet)
    }
  }
  visit(info.operation.selectionSet)
  const def = node && info.schema.getRootType(info.operation.operation)?.getFields()[node.name.value]
  const names = def ? def.args.map((a) => a.name) : null
  byKey.set(key, names)
  return names
}

/**
 * A refusal's `field` as the API states it (docs/console-developers.md, Conventions): a dotted path from an argument of the operation
 * to the offending value, list indexes as numbers. Domain code names fields of the input it parsed, which resolvers
 * build from the arguments with `input`'s fields spread: a path that starts with no argument's name is inside `input`.
 */
export function argumentPath(path: string | null | undefined, info: GraphQLResolveInfo): string | null {
  if (!path) return null
  const dotted = fieldPath(path)
  const args = rootFieldArguments(info)
  if (!args || !args.includes('input') || args.includes(dotted.split('.')[0])) return dotted
  return `input.${dotted}`
}

/**
 * What a mutation's Success object states beside its one object (acceptHandoff's `runId`): the resolver returns the
 * object itself (the data field resolves to it) with these kept beside it, read by the Success type's extra fields.
 */
const successExtras = new WeakMap<object, Record<string, unknown>>()
export function withSuccessExtras<T extends object>(value: T, extras: Record<string, unknown>): T {
  successExtras.set(value, extras)
  return value
}
export function successExtra<T>(value: object, name: string): T {
  return (successExtras.get(value)?.[name] ?? null) as T
}

type AnyBuilder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>>
const errorInterfaces = new WeakMap<AnyBuilder, { Error: InterfaceRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, DomainError>; InputIssue: ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, InputIssue> }>()

/**
 * The `Error` interface and one object type per catalogue code (its name and data fields from
 * core/errors/catalogue.ts), so a typed client switches on `__typename`. Every subgraph defines the same value
 * types, hence @shareable fields. The connectors subgraph adds the vendor errors the same way.
 */
export function defineErrorTypes(builder: AnyBuilder, classes: readonly ErrorClass[]) {
  let shared = errorInterfaces.get(builder)
  if (!shared) {
    shared = {
      Error: builder.interfaceRef<DomainError>('Error').implement({
        description: 'A refusal with its code (core/errors/catalogue.ts, verbatim); `field` names the offending input where there is one: a dotted path from an argument (`input.endsAt`, `items.0.proposalId`).',
        fields: (t) => ({
          code: t.exposeString('code', { nullable: false }),
          message: t.exposeString('message', { nullable: false }),
          field: t.string({ nullable: true, resolve: (e, _a, _c, info) => argumentPath(e.field, info) }),
        }),
      }),
      InputIssue: builder.objectRef<InputIssue>('InputIssue').implement({
        description: 'One problem of an input: the field (a dotted path from an argument, as Error.field) and what is wrong with it.',
        fields: (t) => ({
          field: t.string({ nullable: true, shareable: true, resolve: (i, _a, _c, info) => argumentPath(i.field, info) }),
          message: t.exposeString('message', { nullable: false, shareable: true }),
        }),
      }),
    }
    errorInterfaces.set(builder, shared)
  }
  const { Error: ErrorRef, InputIssue: InputIssueRef } = shared
  for (const klass of classes) {
    const spec = ERROR_CATALOGUE[klass.code]
    const data: Readonly<Record<string, ErrorDataField>> = (spec as ErrorSpec).data ?? {}
    builder.objectType(klass as unknown as new () => DomainError, {
      name: spec.type,
      description: `${spec.message} (code ${klass.code}, HTTP ${spec.status})`,
      interfaces: [ErrorRef],
      isTypeOf: (v) => v instanceof klass,
      fields: (t) => ({
        code: t.exposeString('code', { nullable: false, shareable: true }),
        message: t.exposeString('message', { nullable: false, shareable: true }),
        field: t.string({ nullable: true, shareable: true, resolve: (e, _a, _c, info) => argumentPath(e.field, info) }),
        ...Object.fromEntries(Object.entries(data).map(([name, f]) => {
          const read = (e: DomainError) => (e as unknown as Record<string, unknown>)[name] ?? null
          const options = { nullable: f.nullable ?? false, shareable: true, description: f.description }
          const field = f.type === '[InputIssue]'
            ? t.field({ ...options, type: [InputIssueRef], resolve: (e) => read(e) as InputIssue[] })
            : f.type === '[String]' ? t.stringList({ ...options, resolve: (e) => read(e) as string[] })
            : f.type === 'Int' ? t.int({ ...options, resolve: (e) => read(e) as number })
              : f.type === 'ID' ? t.id({ ...options, resolve: (e) => read(e) as string })
                : t.string({ ...options, resolve: (e) => read(e) as string })
          return [name, field]
        })),
      }),
    })
  }
}

/**
 * The shared entities with their core fields, read from the core tables. `owner` subgraphs (workbench,
 * connectors) resolve them (fields @shareable); the others hold a key-only reference and add their fields.
 */
export function defineCoreEntities(builder: Builder) {
  const { OrganizationRef, UserRef } = defineOrganizationAndUser(builder)
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
  builder.asEntity(ProgramRef, { key: builder.selection<{ id: string }>('id'), resolveReference: (ref, ctx) => ctx.loaders.program.load(ref.id) })
  return { OrganizationRef, ProgramRef, UserRef }
}

/** The Organization and User entities with their core fields (every owner subgraph's, beside its Program). */
function defineOrganizationAndUser(builder: Builder) {
  const key = builder.selection<{ id: string }>('id')
  const OrganizationRef = builder.objectRef<Organization>('Organization').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      slug: t.exposeString('slug', { shareable: true }),
      name: t.exposeString('name', { shareable: true }),
    }),
  })
  builder.asEntity(OrganizationRef, { key, resolveReference: (ref, ctx) => ctx.loaders.organization.load(ref.id) })
  const UserRef = builder.objectRef<User>('User').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.exposeString('name', { shareable: true }),
      email: t.exposeString('email', { shareable: true }),
    }),
  })
  builder.asEntity(UserRef, { key, resolveReference: (ref, ctx) => ctx.loaders.user.load(ref.id) })
  return { OrganizationRef, UserRef }
}

/** A Program of defineCoreEntitiesKeyedByMembership: its row, or its key alone (a program of the caller's). */
export type ProgramEntity = { id: string } & Partial<Program>

/**
 * defineCoreEntities, except that an entity fetch of a Program the caller is a member of answers its key without a
 * read: the session's membership proves the program is there (programs are never deleted; a membership change moves
 * the session's version), so a fetch for fields of this subgraph alone (connectors' `connections` of `me`'s programs,
 * the console's first screen) reads no program row. A core field asked of such a key reads the row then (the
 * request's loader: one query for all of them), so every answer is as before. Any other program is read as there.
 */
export function defineCoreEntitiesKeyedByMembership(builder: Builder) {
  const { OrganizationRef, UserRef } = defineOrganizationAndUser(builder)
  const rowOf = async (p: ProgramEntity, ctx: GraphQLContext): Promise<Program> => {
    if (p.organizationId !== undefined) return p as Program
    const row = await ctx.loaders.program.load(p.id)
    if (!row) throw new Error(`Program ${p.id} of a membership was not found.`)
    return row
  }
  const ProgramRef = builder.objectRef<ProgramEntity>('Program').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      slug: t.string({ shareable: true, resolve: async (p, _a, ctx) => p.slug ?? (await rowOf(p, ctx)).slug }),
      name: t.string({ shareable: true, resolve: async (p, _a, ctx) => p.name ?? (await rowOf(p, ctx)).name }),
      illustrative: t.boolean({ shareable: true, description: 'Demo data, labelled illustrative', resolve: async (p, _a, ctx) => p.illustrative ?? (await rowOf(p, ctx)).illustrative }),
      organization: t.field({
        type: OrganizationRef, shareable: true,
        resolve: async (p, _a, ctx) => (await ctx.loaders.organization.load((await rowOf(p, ctx)).organizationId))!,
      }),
    }),
  })
  builder.asEntity(ProgramRef, {
    key: builder.selection<{ id: string }>('id'),
    resolveReference: (ref, ctx) => (isId(ref.id) && ctx.session.programPersonas.has(ref.id) ? { id: ref.id } : ctx.loaders.program.load(ref.id)),
  })
  return { OrganizationRef, ProgramRef, UserRef }
}

/** Key-only references for subgraphs that add fields to an entity without reading its core fields. */
export function referenceEntity(builder: Builder, name: 'Program' | 'User' | 'Organization') {
  const ref = builder.objectRef<{ id: string }>(name).implement({ fields: (t) => ({ id: t.exposeID('id') }) })
  builder.asEntity(ref, { key: builder.selection<{ id: string }>('id'), resolveReference: (r) => ({ id: r.id }) })
  return ref
}

/** What a Program of the twins subgraph is: its key, or the row the request's loader read (programAt). */
export type ProgramShape = { id: string } & Partial<Pick<Program, 'name' | 'slug'>>

// A subscription's context lives as long as its socket: each event reads the program afresh (a rename shows).
function loadProgram(id: string, ctx: GraphQLContext, info: GraphQLResolveInfo) {
  if (info.operation.operation === 'subscription') ctx.loaders.program.clear(id)
  return ctx.loaders.program.load(id)
}

/**
 * A key-only Program reference that also answers the core `name` and `slug` (shareable, from the request's program
 * loader: one query for every program of the answer). A subgraph that lists items with `program { name slug }` (the
 * inbox) then answers them itself instead of sending the gateway to another subgraph for an entity fetch (issue 20).
 * A program that programAt loaded answers them at once; a bare key (an entity fetch) reads the row.
 */
export function programReferenceWithNames(builder: Builder) {
  const ref = builder.objectRef<ProgramShape>('Program').implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      slug: t.string({ shareable: true, resolve: (p, _a, ctx, info) => p.slug ?? loadProgram(p.id, ctx, info).then((r) => r?.slug ?? null) }),
      name: t.string({ shareable: true, resolve: (p, _a, ctx, info) => p.name ?? loadProgram(p.id, ctx, info).then((r) => r?.name ?? null) }),
    }),
  })
  builder.asEntity(ref, { key: builder.selection<{ id: string }>('id'), resolveReference: (r) => ({ id: r.id }) })
  return ref
}

/** Whether fields ask nothing of their object but `id` and `__typename` (fragments count as more). */
const keyOnly = (fields: readonly FieldNode[]) =>
  fields.every((f) => f.selectionSet?.selections.every((s) => s.kind === Kind.FIELD && (s.name.value === 'id' || s.name.value === '__typename')) ?? true)

const keyOnlySelections = new WeakMap<readonly FieldNode[], boolean>()
function asksKeyOnly(info: GraphQLResolveInfo): boolean {
  let answer = keyOnlySelections.get(info.fieldNodes)
  if (answer === undefined) keyOnlySelections.set(info.fieldNodes, (answer = keyOnly(info.fieldNodes)))
  return answer
}

/** The field nodes `path` leads to beneath the resolving field (through fragments): `['nodes', 'program']`. */
function fieldsAt(info: GraphQLResolveInfo, path: readonly string[]): FieldNode[] {
  let fields: readonly FieldNode[] = info.fieldNodes
  for (const name of path) {
    const next: FieldNode[] = []
    const visit = (set: SelectionSetNode | undefined) => {
      for (const s of set?.selections ?? []) {
        if (s.kind === Kind.FIELD) { if (s.name.value === name) next.push(s) }
        else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet)
        else visit(info.fragments[s.name.value]?.selectionSet)
      }
    }
    for (const f of fields) visit(f.selectionSet)
    fields = next
  }
  return fields as FieldNode[]
}

/** Whether the selection asks for the field `path` leads to beneath the resolving field (through fragments): `['programs', 'program', 'myOpenInboxCount']`. */
export function asksAt(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  return fieldsAt(info, path).length > 0
}

/** Whether the resolving field's selection asks nothing but the fields named (and `__typename`), through fragments. */
export function asksOnly(info: GraphQLResolveInfo, names: ReadonlySet<string>): boolean {
  const only = (set: SelectionSetNode | undefined): boolean => (set?.selections ?? []).every((s) =>
    s.kind === Kind.FIELD ? s.name.value === '__typename' || names.has(s.name.value)
      : s.kind === Kind.INLINE_FRAGMENT ? only(s.selectionSet) : only(info.fragments[s.name.value]?.selectionSet))
  return info.fieldNodes.every((f) => only(f.selectionSet))
}

/**
 * Whether a list's items' Program field (`path` beneath the resolving field, e.g. ['nodes', 'program'] of an inbox
 * page) asks more than the key, in a query or mutation: then the list reads its programs before its items resolve
 * (with its own rows: rememberProgramNames), so programAt answers every item at once, without a promise per item (50
 * of them, each with graphql-js's object promise, for an inbox page). Subscriptions never: their events read programs
 * afresh (loadProgram).
 */
export function asksProgramsAt(info: GraphQLResolveInfo, paths: readonly (readonly string[])[]): boolean {
  if (info.operation.operation === 'subscription') return false
  return !paths.every((path) => { const at = fieldsAt(info, path); return !at.length || keyOnly(at) })
}

/**
 * Keeps, for programAt, the program names rows were read with (one statement for a page and its programs: the inbox's
 * inboxPage withPrograms). A row whose program was not found (null name) keeps nothing: programAt reads it, as before.
 */
export function rememberProgramNames(ctx: GraphQLContext, rows: Iterable<{ programId: string | null; programName?: string | null; programSlug?: string | null }>) {
  const names = ctx.loaders.programNames
  for (const r of rows) {
    if (r.programId && typeof r.programName === 'string' && typeof r.programSlug === 'string' && !names.has(r.programId)) {
      names.set(r.programId, { id: r.programId, name: r.programName, slug: r.programSlug })
    }
  }
}

/**
 * The Program `id` points at, for a field of programReferenceWithNames' type: the key alone when the selection asks
 * nothing else (nothing read), else the row from the request's loader (one query for a page's programs), whose
 * `name` and `slug` then resolve without a promise and a loader call each (they were half the twins subgraph's CPU
 * for an inbox page with `program { name slug }`). A program that is not there is its key, as before: null names.
 */
export function programAt(id: string, ctx: GraphQLContext, info: GraphQLResolveInfo): ProgramShape | Promise<ProgramShape> {
  if (asksKeyOnly(info)) return { id }
  // read already (with the list's rows, or by an earlier field of this execution): no promise
  if (info.operation.operation !== 'subscription') {
    const read = ctx.loaders.programsRead.get(id)
    if (read !== undefined) return read ?? { id }
    const named = ctx.loaders.programNames.get(id)
    if (named) return named
  }
  // a failed read leaves the key: `name` and `slug` then fail on the loader's cached error, where they failed before
  return loadProgram(id, ctx, info).then((row) => row ?? { id }, () => ({ id }))
}

/** The one way to point at an entity from a row: `{ id }`, typed, never hand-copied fields. */
export const entityRef = (id: string) => ({ id })
