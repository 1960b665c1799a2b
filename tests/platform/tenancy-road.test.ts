// Tenancy by construction on the Prisma road: domain code reads and writes an organisation's rows only through a
// client scoped to it (forOrganization(db, organizationId), ctx.tdb, an IntegrationContext's tdb, or a transaction of
// one), which adds the organisation to every tenant model's filter and stamps it on every write. A model call on an
// unscoped client (`db`, anything's `.db`, `asTx(db)`, or a transaction opened on one) is refused unless it sits in a
// function whose name ends `AcrossOrganisations`: a job sweeping every organisation, a read that learns the
// organisation from an id a job carries, a live topic re-reading rows for every organisation's subscribers. Opening a
// transaction on an unscoped client is refused on the same terms, since its client goes to helpers. Models
// that belong to no organisation (no organization_id column: TENANT_MODELS) are free. The raw-SQL rule is
// tests/platform/sql-road.test.ts. The source is parsed (@babel/parser), so comments and strings do not count.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from '@babel/parser'
import { describe, expect, it } from 'vitest'
import { Prisma, TENANT_MODELS } from '../../core/database'

const ROOT = process.cwd()

/** The model delegates whose rows belong to one organisation, as the client spells them (`inboxItem`). */
const TENANT_DELEGATES = new Set([...TENANT_MODELS].map((m) => m[0].toLowerCase() + m.slice(1)))
const MODEL_DELEGATES = new Set(Object.values(Prisma.ModelName).map((m) => m[0].toLowerCase() + m.slice(1)))

const OPERATIONS = new Set([
  'findMany', 'findFirst', 'findFirstOrThrow', 'findUnique', 'findUniqueOrThrow', 'create', 'createMany', 'createManyAndReturn',
  'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany', 'count', 'aggregate', 'groupBy',
])

type Node = { type: string; loc?: { start: { line: number } }; [key: string]: unknown }

function domainFiles(dir = 'domain'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`
    if (entry.isDirectory()) return domainFiles(rel)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : []
  })
}

const propertyName = (member: Node): string | undefined => {
  const p = member.property as Node
  if (!member.computed && p.type === 'Identifier') return p.name as string
  if (p.type === 'StringLiteral') return p.value as string
  return undefined
}
const isMember = (n: Node | undefined): n is Node => n?.type === 'MemberExpression' || n?.type === 'OptionalMemberExpression'
const isCall = (n: Node | undefined): n is Node => n?.type === 'CallExpression' || n?.type === 'OptionalCallExpression'
const unwrap = (n: Node): Node => (n.type === 'TSAsExpression' || n.type === 'TSNonNullExpression' || n.type === 'ParenthesizedExpression' || n.type === 'TSSatisfiesExpression' ? unwrap(n.expression as Node) : n)

/** An unscoped client by its name: `db`, or anything's `.db` (ctx.db, this.db, rc.db, this.rc.db, w.db). */
const namedUnscoped = (n: Node) => (n.type === 'Identifier' && n.name === 'db') || (isMember(n) && propertyName(n) === 'db')

/** The name a function is known by: its declaration, the variable or property it is assigned to, its method key. */
function functionName(fn: Node, parent: Node | undefined): string | undefined {
  if ((fn.id as Node | null)?.name) return (fn.id as Node).name as string
  if (parent?.type === 'VariableDeclarator' && (parent.id as Node).type === 'Identifier') return (parent.id as Node).name as string
  if ((parent?.type === 'ObjectProperty' || parent?.type === 'ClassProperty') && (parent.key as Node).type === 'Identifier') return (parent.key as Node).name as string
  if ((fn.type === 'ClassMethod' || fn.type === 'ObjectMethod') && (fn.key as Node).type === 'Identifier') return (fn.key as Node).name as string
  return undefined
}
/** `x as Db`, `x as unknown as Db`, in parentheses or not. */
const castToDb = (n: Node): boolean => {
  if (n.type === 'ParenthesizedExpression') return castToDb(n.expression as Node)
  if (n.type !== 'TSAsExpression') return false
  const t = n.typeAnnotation as Node
  return (t.type === 'TSTypeReference' && (t.typeName as Node).type === 'Identifier' && (t.typeName as Node).name === 'Db') || castToDb(n.expression as Node)
}
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'ClassMethod', 'ObjectMethod'])

/**
 * Every model call of a tenant model on an unscoped client in one source text, outside `…AcrossOrganisations`
 * functions: `line: receiver.model.operation`. The unscoped receivers are `db`, `x.db`, `asTx(db)`, and the callback
 * parameter of a `$transaction` opened on one of those.
 */
function unscopedModelCalls(source: string, file = 'source.ts'): string[] {
  const ast = parse(source, { sourceType: 'module', plugins: file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'] }).program as unknown as Node
  const found: string[] = []
  const unscopedTx: string[][] = [] // names bound by `unscoped.$transaction((tx) => ...)`, innermost last
  const castNames: string[][] = [] // names bound to a cast to Db (`const tx = q as unknown as Db`), per function
  const isUnscoped = (raw: Node): boolean => {
    // A cast to the unscoped client's type hides which client it was: it counts as unscoped, whatever its name.
    if (castToDb(raw)) return true
    const n = unwrap(raw)
    if (namedUnscoped(n)) return true
    if (n.type === 'Identifier' && castNames.some((names) => names.includes(n.name as string))) return true
    if (n.type === 'Identifier' && unscopedTx.some((names) => names.includes(n.name as string))) return true
    // asTx(x) only changes the type: it is as scoped as x.
    if (isCall(n) && (n.callee as Node).type === 'Identifier' && (n.callee as Node).name === 'asTx') return isUnscoped((n.arguments as Node[])[0])
    return false
  }
  const names: (string | undefined)[] = []
  const visit = (node: unknown, parent: Node | undefined): void => {
    if (Array.isArray(node)) { for (const n of node) visit(n, parent); return }
    if (!node || typeof node !== 'object' || typeof (node as Node).type !== 'string') return
    const n = node as Node
    const isFn = FUNCTIONS.has(n.type)
    if (isFn) { names.push(functionName(n, parent)); castNames.push([]) }
    if (n.type === 'VariableDeclarator' && (n.id as Node).type === 'Identifier' && n.init && castToDb(n.init as Node)) castNames.at(-1)?.push((n.id as Node).name as string)
    let opened = false
    if (isCall(n)) {
      const callee = n.callee as Node
      if (isMember(callee) && propertyName(callee) === '$transaction' && isUnscoped(callee.object as Node)) {
        // The transaction client is handed to helpers this parse cannot follow (enqueue(tx), lockShare(tx, ...)): the
        // opening itself must sit in an …AcrossOrganisations function, or be opened on the organisation's client.
        if (!names.some((name) => name?.endsWith('AcrossOrganisations'))) {
          const opener = unwrap(callee.object as Node)
          found.push(`${file}:${n.loc?.start.line}: ${source.slice(opener.start as number, opener.end as number)}.$transaction`)
        }
        const cb = (n.arguments as Node[])[0]
        if (cb && FUNCTIONS.has(cb.type)) {
          unscopedTx.push((cb.params as Node[]).flatMap((p) => (p.type === 'Identifier' ? [p.name as string] : [])))
          opened = true
        }
      }
      // receiver.model.operation(...)
      if (isMember(callee) && OPERATIONS.has(propertyName(callee) ?? '')) {
        const model = callee.object as Node
        const delegate = isMember(model) ? propertyName(model) : undefined
        if (delegate && TENANT_DELEGATES.has(delegate) && isUnscoped(model.object as Node)) {
          const inAcross = names.some((name) => name?.endsWith('AcrossOrganisations'))
          const receiver = unwrap(model.object as Node)
          if (!inAcross) found.push(`${file}:${n.loc?.start.line}: ${source.slice(receiver.start as number, receiver.end as number)}.${delegate}.${propertyName(callee)}`)
        }
      }
    }
    for (const [key, value] of Object.entries(n)) {
      if (key !== 'loc' && key !== 'leadingComments' && key !== 'trailingComments' && value && typeof value === 'object') visit(value, n)
    }
    if (opened) unscopedTx.pop()
    if (isFn) { names.pop(); castNames.pop() }
  }
  visit(ast, undefined)
  return found
}

const files = domainFiles()
const violations = files.flatMap((f) => unscopedModelCalls(readFileSync(path.join(ROOT, f), 'utf8'), f))

describe('tenancy by construction on the Prisma road', () => {
  it('knows every tenant model of the schema by its delegate name, and the models that belong to no organisation', () => {
    expect(TENANT_DELEGATES).toContain('inboxItem')
    expect(TENANT_DELEGATES).toContain('connection')
    expect(MODEL_DELEGATES).toContain('platformSourceHealth')
    expect(TENANT_DELEGATES).not.toContain('platformSourceHealth')
  })

  it('finds no model call of a tenant model on an unscoped client in domain code, outside …AcrossOrganisations functions', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(violations, 'use forOrganization(db, organizationId) or ctx.tdb; work that spans organisations goes in a function named …AcrossOrganisations that says why').toEqual([])
  })

  it('catches a planted unscoped call on db, ctx.db, this.rc.db, asTx(db), a cast to Db, a transaction opened on db, and the opening of that transaction', () => {
    const planted = [
      'export async function leak(db: Db, ctx: Ctx) {',
      '  await db.inboxItem.findMany({ where: { status: "open" } })',
      '  await ctx.db.connection.update({ where: { id }, data: {} })',
      '  await this.rc.db.agentRun.count()',
      '  await asTx(db).artifact.create({ data })',
      '  await db.$transaction(async (tx) => { await tx.twinDefinition.findUnique({ where: { id } }) })',
      '  await ctx.db.$transaction((q) => q.inboxItem.deleteMany({}))',
      '  await (db as Db).$transaction((tx) => enqueue(tx, "twin_schedule", {}))',
      '  await (q as unknown as Db).runInterrupt.findMany({})',
      '  const c = q as Db',
      '  await c.inboxItem.groupBy({ by: ["userId"] })',
      '}',
    ].join('\n')
    expect(unscopedModelCalls(planted)).toEqual([
      'source.ts:2: db.inboxItem.findMany',
      'source.ts:3: ctx.db.connection.update',
      'source.ts:4: this.rc.db.agentRun.count',
      'source.ts:5: asTx(db).artifact.create',
      'source.ts:6: db.$transaction',
      'source.ts:6: tx.twinDefinition.findUnique',
      'source.ts:7: ctx.db.$transaction',
      'source.ts:7: q.inboxItem.deleteMany',
      'source.ts:8: db.$transaction',
      'source.ts:9: q.runInterrupt.findMany',
      'source.ts:11: c.inboxItem.groupBy',
    ])
  })

  it('lets through the scoped client, its transactions, models of no organisation, …AcrossOrganisations functions, comments and strings', () => {
    const allowed = [
      'export async function fine(db: Db, ctx: Ctx, organizationId: string) {',
      '  await forOrganization(db, organizationId).inboxItem.findMany({})',
      '  await ctx.tdb.connection.update({ where: { id }, data: {} })',
      '  await forOrganization(db, organizationId).$transaction(async (tx) => tx.agentRun.count())',
      '  await db.platformSourceHealth.findUnique({ where: { providerId } })',
      '  await db.organization.findUnique({ where: { id } })',
      '  // db.inboxItem.findMany() in a comment',
      '  const s = "db.connection.findMany()"',
      '  await transactionFor(db, organizationId, async (tx) => { await lockEntry(tx, id) })',
      '}',
      '/** Why it spans organisations. */',
      'function runsByIdAcrossOrganisations(db: Db, ids: string[]) { return db.agentRun.findMany({ where: { id: { in: ids } } }) }',
      'const sweepAcrossOrganisations = async (db: Db) => { await db.$transaction((tx) => tx.launchId.deleteMany({})) }',
    ].join('\n')
    expect(unscopedModelCalls(allowed)).toEqual([])
  })
})
