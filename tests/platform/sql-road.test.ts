// One road to PostgreSQL: raw SQL ($queryRaw, $executeRaw, their Unsafe forms, Prisma.sql / Prisma.raw fragments, a pg
// pool or client's .query, and hotRows, which sends the SQL text it is given) is written only in a concept's `sql.ts`
// (core: `core/sql/<concept>.ts`), in the hot-read executor, or in a module whose header says it is service plumbing.
// Every exported function of a tenant SQL module takes `organizationId` first and uses it, unless its name ends
// `AcrossOrganisations` (a job sweeping every organisation, a read that learns the organisation). A security reviewer
// reads those modules and nothing else. The source is parsed (@babel/parser; TypeScript 7 has no JavaScript API), so
// comments and strings that merely mention a name do not count.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from '@babel/parser'
import { describe, expect, it } from 'vitest'

const ROOT = process.cwd()

/** Never scanned: not source of this repository, or generated. */
const SKIPPED_DIRS = new Set(['node_modules', 'generated', '.git', '.data', 'dist', 'coverage'])

/**
 * Trees exempt from the rule, each for its reason: none of them serves a request or holds an organisation's session.
 */
const EXEMPT = {
  'tests/': 'tests arrange and inspect state directly (fixtures, moved clocks, rows a user cannot reach)',
  'bench/': 'benchmarks provision databases and EXPLAIN statements; they never run in the service',
  'scripts/': 'operator commands (soak, seed, tokens, generated tables) run by hand against a database',
  'prisma/': 'migrations and database provisioning (prisma/migrate.ts creates and drops databases)',
  'console/': 'browser code: no database; its urql `client.query` is GraphQL',
} as const

/**
 * Service plumbing, not tenant data: SQL about connections, locks, jobs and channels, never an organisation's rows.
 * Each says so in its header.
 */
const PLUMBING_MODULES = ['core/sql/plumbing.ts', 'core/database/pubsub.ts', 'jobs/leases.ts']
const PLUMBING_HEADER = 'Service plumbing, not tenant data'

/** The hot-read executor: it runs the SQL text `sql.ts` modules give it, binding the organisation as $1. */
const HOT_READ_EXECUTOR = 'core/database/hot-reads.ts'

/**
 * Files of the twins and connectors subgraphs that still hold raw SQL on main while their conversion to `sql.ts`
 * modules is under way on other branches. Empty this list when those branches merge (a file listed here that holds no
 * raw SQL any more fails the test, so the list cannot outlive them); then remove hotRows' deprecated overload too.
 */
const PENDING_OTHER_BRANCHES: string[] = []

/** The database handle a statement runs on, which may come before the organisation. */
const DB_HANDLES = new Set(['db', 'tx', 'q', 'client'])
/**
 * Exported functions of tenant sql.ts modules that read or write no tenant row, so they take no organisation: advisory
 * locks keyed by ids the caller already scoped, the database clock, key builders. A reviewer checks each entry.
 */
const ROWLESS: Record<string, readonly string[]> = {
  'domain/connections/sql.ts': ['lockProgramProviderConnection'],
  'domain/notebook/sql.ts': ['databaseNow', 'lockEntry'],
  'domain/qms/sql.ts': ['lockQmsSync'],
  'domain/budgets/sql.ts': ['shareKey'],
  'domain/inbox/sql.ts': ['lockFilingFor', 'lockDigestOf'],
  'domain/gates/sql.ts': ['asClosingGate'],
  'domain/twins/sql.ts': ['savepoint', 'releaseSavepoint', 'rollbackToSavepoint'],
}

/** Files whose `.query` is a vendor's query language over HTTP (the QMS's VQL), not SQL. */
const VENDOR_QUERY_CLIENTS = ['domain/qms/adapter.ts', 'domain/qms/sync.ts']

const RAW_MEMBERS = new Set(['$queryRaw', '$executeRaw', '$queryRawUnsafe', '$executeRawUnsafe'])
const PRISMA_FRAGMENTS = new Set(['sql', 'raw'])
/** Receivers that are a pg pool or client (or a Queryable): their `.query` sends SQL. */
const PG_RECEIVER = /^(pg|pool|pgPool|pgClient|client|db|admin|conn|connection)$/i

const isTenantSqlModule = (file: string) => path.posix.basename(file) === 'sql.ts' || (file.startsWith('core/sql/') && !PLUMBING_MODULES.includes(file))
const exempt = (file: string) => Object.keys(EXEMPT).some((dir) => file.startsWith(dir))

function sourceFiles(dir = ''): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = dir ? `${dir}/${entry.name}` : entry.name
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(rel)
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : []
  })
}

type Node = { type: string; loc?: { start: { line: number } }; [key: string]: unknown }

function parseFile(file: string): Node {
  return parse(readFileSync(path.join(ROOT, file), 'utf8'), {
    sourceType: 'module',
    plugins: file.endsWith('x') ? ['typescript', 'jsx'] : ['typescript'],
  }).program as unknown as Node
}

function walk(node: unknown, visit: (n: Node) => void) {
  if (Array.isArray(node)) { for (const n of node) walk(n, visit); return }
  if (!node || typeof node !== 'object' || typeof (node as Node).type !== 'string') return
  visit(node as Node)
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'loc' && key !== 'leadingComments' && key !== 'trailingComments' && value && typeof value === 'object') walk(value, visit)
  }
}

const propertyName = (member: Node): string | undefined => {
  const p = member.property as Node
  if (!member.computed && p.type === 'Identifier') return p.name as string
  if (p.type === 'StringLiteral') return p.value as string
  return undefined
}
/** The last name of a receiver: `pool` of `pool`, `client` of `this.client`. */
const receiverName = (object: Node): string | undefined =>
  object.type === 'Identifier' ? (object.name as string)
    : object.type === 'MemberExpression' ? propertyName(object) : undefined

/** Does a `.query(first, ...)` call send SQL? */
function isPgQuery(call: Node): boolean {
  const callee = call.callee as Node
  if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return false
  if (propertyName(callee) !== 'query') return false
  const first = (call.arguments as Node[])[0]
  if (first && (first.type === 'StringLiteral' || first.type === 'TemplateLiteral')) return true
  if (first?.type === 'Identifier' && /sql/i.test(first.name as string)) return true
  if (first?.type === 'ObjectExpression' && (first.properties as Node[]).some((p) => p.type === 'ObjectProperty' && ((p.key as Node).name === 'text' || (p.key as Node).value === 'text'))) return true
  return PG_RECEIVER.test(receiverName(callee.object as Node) ?? '')
}

/** Every raw-SQL site of a file: `line: what`. */
function rawSqlSites(ast: Node): string[] {
  const sites: string[] = []
  walk(ast, (n) => {
    const line = n.loc?.start.line
    if (n.type === 'MemberExpression' || n.type === 'OptionalMemberExpression') {
      const name = propertyName(n)
      if (name && RAW_MEMBERS.has(name)) sites.push(`${line}: ${name}`)
      const object = n.object as Node
      if (name && PRISMA_FRAGMENTS.has(name) && object.type === 'Identifier' && object.name === 'Prisma') sites.push(`${line}: Prisma.${name}`)
    }
    if (n.type === 'CallExpression' || n.type === 'OptionalCallExpression') {
      if (isPgQuery(n)) sites.push(`${line}: .query`)
      const callee = n.callee as Node
      if (callee.type === 'Identifier' && callee.name === 'hotRows') sites.push(`${line}: hotRows`)
    }
  })
  return sites
}

interface ExportedFunction { name: string; params: string[]; body: Node | undefined; line: number | undefined }

const paramName = (p: Node): string => {
  if (p.type === 'Identifier') return p.name as string
  if (p.type === 'AssignmentPattern') return paramName(p.left as Node)
  if (p.type === 'RestElement') return `...${paramName(p.argument as Node)}`
  return `<${p.type}>`
}

/** The module's exported functions (declarations, overloads included, and `export const f = (...) => ...`). */
function exportedFunctions(ast: Node): ExportedFunction[] {
  const out: ExportedFunction[] = []
  for (const statement of ast.body as Node[]) {
    if (statement.type !== 'ExportNamedDeclaration' || !statement.declaration) continue
    const d = statement.declaration as Node
    if (d.type === 'FunctionDeclaration' || d.type === 'TSDeclareFunction') {
      out.push({ name: (d.id as Node).name as string, params: (d.params as Node[]).map(paramName), body: d.body as Node | undefined, line: d.loc?.start.line })
    }
    if (d.type === 'VariableDeclaration') {
      for (const v of d.declarations as Node[]) {
        const init = v.init as Node | null
        if (init && (init.type === 'ArrowFunctionExpression' || init.type === 'FunctionExpression')) {
          out.push({ name: (v.id as Node).name as string, params: (init.params as Node[]).map(paramName), body: init.body as Node, line: v.loc?.start.line })
        }
      }
    }
  }
  return out
}

const uses = (body: Node | undefined, name: string) => {
  let found = false
  walk(body, (n) => { if (n.type === 'Identifier' && n.name === name) found = true })
  return found
}

const files = sourceFiles()
const scanned = new Map(files.filter((f) => !exempt(f)).map((f) => [f, parseFile(f)] as const))

describe('one road to PostgreSQL', () => {
  it('finds raw SQL only in sql.ts modules, the hot-read executor and the named plumbing modules', () => {
    expect(scanned.size).toBeGreaterThan(100)
    const allowed = (f: string) => VENDOR_QUERY_CLIENTS.includes(f) || isTenantSqlModule(f) || PLUMBING_MODULES.includes(f) || f === HOT_READ_EXECUTOR || PENDING_OTHER_BRANCHES.includes(f)
    const elsewhere = [...scanned].flatMap(([file, ast]) => (allowed(file) ? [] : rawSqlSites(ast).map((site) => `${file}:${site}`)))
    expect(elsewhere, 'move these statements into the concept\'s sql.ts (core: core/sql/<concept>.ts)').toEqual([])
  })

  it('knows the SQL of a raw query, a pg query, a Prisma fragment and a hot read when it sees them, and not in comments or strings', () => {
    const ast = parse([
      'await tx.$queryRaw`SELECT 1`',
      'await this.client.query(`LISTEN ${channel}`)',
      'await pool.query<Row>({ name, text, values })',
      'const f = Prisma.sql`x`',
      'await hotRows(org, db, "n", "SELECT", [])',
      '// tx.$executeRaw`SELECT 1` in a comment',
      'const s = "db.$queryRawUnsafe(text)"',
      'await urqlLike.query(Doc, { id })',
    ].join('\n'), { sourceType: 'module', plugins: ['typescript'] }).program as unknown as Node
    expect(rawSqlSites(ast)).toEqual(['1: $queryRaw', '2: .query', '3: .query', '4: Prisma.sql', '5: hotRows'])
  })

  it('has every exported function of a tenant sql.ts take organizationId first and use it, or say AcrossOrganisations', () => {
    const modules = [...scanned.keys()].filter(isTenantSqlModule)
    expect(modules).toContain('domain/memory/sql.ts')
    const wrong = modules.flatMap((file) => exportedFunctions(scanned.get(file)!).flatMap((fn) => {
      if (fn.name.endsWith('AcrossOrganisations')) return []
      if ((ROWLESS[file] ?? []).includes(fn.name)) return []
      // The organisation comes first, or first after the database handle the statement runs on (db, tx, q).
      const orgAt = DB_HANDLES.has(fn.params[0] ?? '') ? 1 : 0
      if (fn.params[orgAt] !== 'organizationId') return [`${file}:${fn.line}: ${fn.name}(${fn.params.join(', ')}) does not take organizationId first`]
      if (fn.body && !uses(fn.body, 'organizationId')) return [`${file}:${fn.line}: ${fn.name} never uses organizationId`]
      return []
    }))
    expect(wrong).toEqual([])
  })

  it('has each plumbing module say in its header that it is service plumbing, not tenant data', () => {
    for (const file of PLUMBING_MODULES) {
      const header = readFileSync(path.join(ROOT, file), 'utf8').split('\n').filter((l) => l.startsWith('//')).slice(0, 12).join(' ')
      expect(header, file).toContain(PLUMBING_HEADER)
    }
  })

  it('has the hot-read executor take the organisation first (its older form only while files are pending)', () => {
    const fns = exportedFunctions(scanned.get(HOT_READ_EXECUTOR)!).filter((f) => f.name === 'hotRows')
    expect(fns[0]?.params[0]).toBe('organizationId')
    const declared = fns.filter((f) => !f.body) // the overloads callers see
    if (!PENDING_OTHER_BRANCHES.length) expect(declared.map((f) => f.params[0])).toEqual(['organizationId'])
  })

  it('keeps the pending list to files that exist and still hold raw SQL, under twins and connectors only', () => {
    for (const file of PENDING_OTHER_BRANCHES) {
      expect(file, 'pending only for the twins and connectors branches').toMatch(/^subgraphs\/(twins|connectors)\//)
      expect(existsSync(path.join(ROOT, file)), `${file} is gone: remove it from PENDING_OTHER_BRANCHES`).toBe(true)
      expect(rawSqlSites(scanned.get(file)!).length, `${file} holds no raw SQL any more: remove it from PENDING_OTHER_BRANCHES`).toBeGreaterThan(0)
    }
  })
})
