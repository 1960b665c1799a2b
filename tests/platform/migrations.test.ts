import { describe, expect, it } from 'vitest'
import { diffMigrationsToSchema } from '../../prisma/migrate'
import { useTestDatabase } from '../helpers/db'

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
