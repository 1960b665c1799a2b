import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMigration, deployMigrations, diffMigrationsToSchema } from '../../prisma/migrations'
import { createTestDatabase, useTestDatabase } from '../helpers/db'

const PRISMA = path.resolve(__dirname, '../../prisma')

const t = useTestDatabase()

describe('migrations', () => {
  it('agree with prisma/schema.prisma: the diff from the committed migrations to the schema is empty', async () => {
    const sql = await diffMigrationsToSchema(t.current.url)
    const statements = sql.split('\n').filter((l) => l.trim() && !l.trim().startsWith('--'))
    expect(statements, `schema.prisma has changes with no migration:\n${sql}`).toEqual([])
  })

  it('created the core tables with the specification names', async () => {
    const rows = await t.current.db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`
    const names = rows.map((r) => r.table_name)
    for (const table of ['organizations', 'users', 'programs', 'program_stages', 'program_memberships', 'role_assignments',
      'audit_events', 'notifications', 'artifacts', 'agent_runs', 'run_interrupts', 'tool_calls', 'signatures', 'approvals']) {
      expect(names).toContain(table)
    }
  })
})

describe('migrate dev', () => {
  it('writes a migration for a new column into the given folder, applies it and leaves prisma/migrations alone', async () => {
    const before = await fs.readdir(path.join(PRISMA, 'migrations'))
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'ew-migrate-dev-'))
    // A database of its own (cloned from the migrated template, dropped at the end); the shadow database is the
    // adapter factory's own temporary one.
    const target = await createTestDatabase()
    try {
      const migrations = path.join(scratch, 'migrations')
      await fs.cp(path.join(PRISMA, 'migrations'), migrations, { recursive: true })
      const schema = path.join(scratch, 'schema.prisma')
      const original = await fs.readFile(path.join(PRISMA, 'schema.prisma'), 'utf8')
      const withColumn = original.replace('model Organization {\n', 'model Organization {\n  motto String? @map("motto_probe")\n')
      expect(withColumn).not.toBe(original)
      await fs.writeFile(schema, withColumn)
      const paths = { schema, migrations }

      const created = await createMigration(target.url, 'organization motto', false, paths)
      expect(created).toMatch(/^\d{14}_organization_motto$/)
      const committed = before.filter((d) => /^\d{14}_/.test(d)).sort()
      expect(created! > committed[committed.length - 1]!, 'the new folder sorts after the committed ones').toBe(true)
      const sql = await fs.readFile(path.join(migrations, created!, 'migration.sql'), 'utf8')
      const statements = sql.split('\n').filter((l) => l.trim() && !l.trim().startsWith('--'))
      expect(statements).toHaveLength(1)
      expect(statements[0]).toMatch(/^ALTER TABLE "organizations" ADD COLUMN\s+"motto_probe" TEXT;$/)

      expect(await deployMigrations(target.url, paths)).toEqual([created])
      const columns = await target.db.$queryRaw<{ data_type: string; is_nullable: string }[]>`
        SELECT data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = 'organizations' AND column_name = 'motto_probe'`
      expect(columns).toEqual([{ data_type: 'text', is_nullable: 'YES' }])
      expect(isEmpty(await diffMigrationsToSchema(target.url, paths)), 'no drift once the migration exists').toBe(true)

      expect(await fs.readdir(path.join(PRISMA, 'migrations'))).toEqual(before)
    } finally {
      await target.drop()
      await fs.rm(scratch, { recursive: true, force: true })
    }
    // Each engine call replays the whole history into a fresh shadow database: slow on a loaded machine.
  }, 240_000)
})

function isEmpty(sql: string) {
  return !sql.split('\n').some((l) => l.trim() && !l.trim().startsWith('--'))
}
