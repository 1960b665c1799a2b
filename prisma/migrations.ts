// Offline Prisma migrations: drives the schema engine's wasm build through @prisma/adapter-pg (no native binary).
// The library; its command line is prisma/migrate.ts:
//   npm run migrate -- dev <name>   create prisma/migrations/<ts>_<name>/migration.sql (diff via a shadow DB) and apply it
//   npm run migrate -- create <name>  create only
//   npm run migrate -- deploy       apply pending migrations (recorded in _prisma_migrations, as Prisma does) and install
//                                   graphile-worker's schema (jobs/prepare-database.ts: the release step leaves a database
//                                   every component can enqueue jobs in)
//   npm run migrate -- diff         print the SQL that would take the migrations to schema.prisma (empty = no drift)
//   npm run migrate -- status       migration history diagnosis as JSON
// The writes are the same as Prisma's own CLI, so the native CLI keeps working where it is available.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import pg from 'pg'
import { PrismaPg } from '@prisma/adapter-pg'
import { bindMigrationAwareSqlAdapterFactory, ColumnTypeEnum } from '@prisma/driver-adapter-utils'
import * as runtime from '@prisma/schema-engine-wasm/schema_engine_bg'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const SCHEMA = path.join(ROOT, 'prisma/schema.prisma')
export const MIGRATIONS = path.join(ROOT, 'prisma/migrations')

/** Which schema and migrations folder a command works on; the project's own unless a test passes scratch copies. */
export interface MigrationPaths { schema: string; migrations: string }
export const PROJECT: MigrationPaths = { schema: SCHEMA, migrations: MIGRATIONS }
export const filters = { externalTables: [], externalEnums: [] }

function pgConfig(url: string) {
  // An object, not connectionString: pg lets a connectionString override `database` for the shadow DB.
  const u = new URL(url)
  return {
    host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password), database: decodeURIComponent(u.pathname.slice(1)),
  }
}

// adapter-pg 7.10 has no mapping for Postgres "char" (oid 18), which the engine's schema describer reads
// (pg_constraint.contype ...): "Column type 'char' could not be deserialized". Report it as Character.
function patchCharColumns(adapter: object) {
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(adapter))
  if (proto.charPatched) return
  const { performIO, queryRaw } = proto
  proto.charPatched = true
  proto.performIO = async function (query: unknown) {
    const res = await performIO.call(this, query)
    const idx: number[] = []
    res.fields?.forEach((f: { dataTypeID: number }, i: number) => { if (f.dataTypeID === 18) { f.dataTypeID = 25; idx.push(i) } })
    if (idx.length) res.rows.charColumns = idx
    return res
  }
  proto.queryRaw = async function (query: unknown) {
    const out = await queryRaw.call(this, query)
    for (const i of out.rows.charColumns ?? []) out.columnTypes[i] = ColumnTypeEnum.Character
    return out
  }
}

// adapter-pg 7.10's executeScript splits a migration on every ";", which cuts a plpgsql body ($$ ... $$) apart.
// PostgreSQL's simple query protocol takes the whole script at once (one implicit transaction), so send it whole.
function patchWholeScripts(adapter: object) {
  const proto = Object.getPrototypeOf(adapter)
  if (proto.wholeScriptPatched) return
  proto.wholeScriptPatched = true
  proto.executeScript = async function (this: { client: pg.PoolClient; onError(e: unknown): never }, script: string) {
    try { await this.client.query(script) } catch (error) { this.onError(error) }
  }
}

// PrismaPg.connectToShadowDb() drops the shadow DB before closing its pool ("database is being accessed by
// other users"): close the shadow pool first, then DROP ... WITH (FORCE).
class PgMigrateFactory extends PrismaPg {
  /** Adapters the engine opened; the engine never closes them, so withEngine does. */
  readonly opened: { dispose(): Promise<void> }[] = []
  constructor(private readonly cfg: ReturnType<typeof pgConfig>) { super(cfg) }
  override async connect() {
    const adapter = await super.connect()
    patchCharColumns(adapter)
    patchWholeScripts(adapter)
    this.opened.push(adapter)
    return adapter
  }
  override async connectToShadowDb() {
    const admin = new pg.Client(this.cfg)
    await admin.connect()
    const database = `prisma_shadow_${randomUUID().replaceAll('-', '')}`
    await admin.query(`CREATE DATABASE "${database}"`)
    const shadow = await new PrismaPg({ ...this.cfg, database }).connect()
    patchWholeScripts(shadow)
    const close = shadow.dispose.bind(shadow)
    let dropped: Promise<void> | undefined
    // Idempotent: the engine disposes the shadow adapter on some paths only (not after devDiagnostic or a
    // failed replay), so withEngine disposes every adapter it opened as well: no prisma_shadow_* is left behind.
    shadow.dispose = () => dropped ??= (async () => {
      if (process.env.DEBUG_SCHEMA_ENGINE) console.error('[migrate] dropping shadow database', database)
      await close().catch(() => {})
      try { await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`) } finally { await admin.end() }
    })()
    if (process.env.DEBUG_SCHEMA_ENGINE) console.error('[migrate] created shadow database', database)
    this.opened.push(shadow)
    return shadow
  }
}

// Rust panics are reported through this global; without it a panic surfaces as "reading 'set_message'".
;(globalThis as any).PRISMA_WASM_PANIC_REGISTRY = { set_message: (m: string) => console.error('[schema-engine panic]', m) }

let wasmReady = false
async function loadEngine(url: string, schemaFiles: { path: string; content: string }[]) {
  if (!wasmReady) {
    const glue = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg')
    const bytes = await fs.readFile(path.join(path.dirname(glue), 'schema_engine_bg.wasm'))
    const wasm = (globalThis as any).WebAssembly
    const instance = new wasm.Instance(new wasm.Module(bytes), { './schema_engine_bg.js': runtime as any })
    ;(runtime as any).__wbg_set_wasm(instance.exports)
    ;(instance.exports as any).__wbindgen_start()
    wasmReady = true
  }
  const factory = new PgMigrateFactory(pgConfig(url))
  const adapter = bindMigrationAwareSqlAdapterFactory(factory as any)
  const log = process.env.DEBUG_SCHEMA_ENGINE ? (m: string) => console.error('[schema-engine]', m) : () => {}
  const engine = await (runtime as any).SchemaEngine.new({ datamodels: schemaFiles.map((f) => [f.path, f.content]) }, log, adapter)
  return { engine, factory }
}

export async function listMigrations(dir: string) {
  const lockfile = {
    path: 'migration_lock.toml',
    content: await fs.readFile(path.join(dir, 'migration_lock.toml'), 'utf8').catch(() => null),
  }
  const dirs = (await fs.readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory()).map((e) => e.name).sort((a, b) => a.localeCompare(b))
  const migrationDirectories = []
  for (const name of dirs) {
    const content = await fs.readFile(path.join(dir, name, 'migration.sql'), 'utf8')
      .then((value) => ({ tag: 'ok', value }), (err) => ({ tag: 'error', value: err.message }))
    migrationDirectories.push({ path: name, migrationFile: { path: 'migration.sql', content } })
  }
  return { baseDir: dir, lockfile, migrationDirectories, shadowDbInitScript: '' }
}

export async function withEngine<T>(url: string, paths: MigrationPaths,
  fn: (engine: any, files: { path: string; content: string }[]) => Promise<T>) {
  const files = [{ path: paths.schema, content: await fs.readFile(paths.schema, 'utf8') }]
  const { engine, factory } = await loadEngine(url, files)
  try {
    return await fn(engine, files)
  } finally {
    engine.free()
    await Promise.all(factory.opened.map((a) => a.dispose().catch(() => {})))
  }
}

/** Applies pending migrations; returns the names applied. */
export function deployMigrations(url: string, paths: MigrationPaths = PROJECT): Promise<string[]> {
  return withEngine(url, paths, async (engine) => {
    const res = await engine.applyMigrations({ migrationsList: await listMigrations(paths.migrations), filters })
    return res.appliedMigrationNames as string[]
  })
}

/** SQL that would bring the committed migrations to schema.prisma; empty when they agree. */
export function diffMigrationsToSchema(url: string, paths: MigrationPaths = PROJECT): Promise<string> {
  return withEngine(url, paths, async (engine, files) => diffScript(engine, files, await listMigrations(paths.migrations)))
}

/** The history is replayed into a shadow database from PgMigrateFactory.connectToShadowDb (created, then dropped). */
async function diffScript(engine: any, files: { path: string; content: string }[], migrationsList: unknown): Promise<string> {
  const res = await engine.diff({
    from: { tag: 'migrations', ...(migrationsList as object) },
    to: { tag: 'schemaDatamodel', files }, script: true, exitCode: null, filters,
  })
  return (res.stdout ?? '') as string
}

/** Prisma's folder name: the UTC time to the second, then the name. */
function migrationFolderName(name: string, existing: string[]): string {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 200) || 'migration'
  let at = Date.now()
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)
  // Two migrations in one second (or a clock behind the last folder) would sort wrongly or collide: step forward.
  while (existing.some((d) => d.slice(0, 14) >= stamp(at))) at += 1000
  return `${stamp(at)}_${slug}`
}

const isEmptyScript = (sql: string) => !sql.split('\n').some((l) => l.trim() && !l.trim().startsWith('--'))

/**
 * Writes <migrations>/<timestamp>_<name>/migration.sql with the SQL from the committed history to the schema.
 * Not the engine's createMigration: the wasm build (7.10.0) never asks the adapter factory for a shadow database
 * there and fails with "PostgreSQL shadow DB must be provided through an external factory" whenever the history
 * is not empty (devDiagnostic does not leave a cached shadow schema behind, whatever the reference script assumed).
 * diff from the migrations does go through connectToShadowDb, and its script is what createMigration would write.
 * Returns null when there is nothing to write (a draft is written even when empty, as `prisma migrate dev --create-only`).
 */
export function createMigration(url: string, name: string, draft: boolean, paths: MigrationPaths = PROJECT): Promise<string | null> {
  return withEngine(url, paths, async (engine, files) => {
    const migrationsList = await listMigrations(paths.migrations)
    // Refuses a database whose applied history differs from the folder (edited or missing migrations), as Prisma does.
    const diag = await engine.devDiagnostic({ migrationsList, filters })
    if (diag.action.tag !== 'createMigration') throw new Error('migration history needs a reset: ' + JSON.stringify(diag.action))
    const script = await diffScript(engine, files, migrationsList)
    if (isEmptyScript(script) && !draft) return null
    const folder = migrationFolderName(name, migrationsList.migrationDirectories.map((d) => d.path))
    await fs.mkdir(path.join(paths.migrations, folder), { recursive: true })
    await fs.writeFile(path.join(paths.migrations, folder, 'migration.sql'), script)
    await fs.writeFile(path.join(paths.migrations, 'migration_lock.toml'), '# Please do not edit this file manually\n' +
      '# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n')
    return folder
  })
}
