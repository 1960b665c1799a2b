// Rate budgets under concurrency: draws sent at once from several processes (one gate per replica) never take more
// than a window holds, from the connection's row or its organisation's, and refuse the rest RateLimited.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useTestDatabase } from '../helpers/db'
import { createTenant } from '../helpers/factories'
import { PgBudgetGate } from '../../domain/budgets'

const t = useTestDatabase()
const db = () => t.current.db

async function drawAtOnce(gates: PgBudgetGate[], each: number) {
  const settled = await Promise.allSettled(gates.flatMap((g) => Array.from({ length: each }, () => g.take())))
  return {
    granted: settled.filter((s) => s.status === 'fulfilled').length,
    refused: settled.filter((s) => s.status === 'rejected' && (s.reason as { code?: string }).code === 'RateLimited').length,
  }
}

const used = async (providerId: string, scopeKey: string) =>
  (await db().rateBudget.findFirstOrThrow({ where: { providerId, scopeKey } })).used

describe('rate budgets drawn at once', () => {
  it("grants a connection's window of 5 to 24 draws sent at once from three replicas, and refuses the other 19", async () => {
    const { organization } = await createTenant(db(), 'Budget at once')
    const connectionId = randomUUID()
    const spec = { connectionLimit: 5, organizationLimit: 900, windowSeconds: 60 }
    const gates = [0, 1, 2].map(() => new PgBudgetGate(db(), { providerId: 'eln_provider', organizationId: organization.id, connectionId, spec }))
    expect(await drawAtOnce(gates, 8)).toEqual({ granted: 5, refused: 19 })
    expect(await used('eln_provider', connectionId)).toBe(5)
    expect(await used('eln_provider', organization.id)).toBe(5)
  })

  it("grants an organisation's window of 6 across two connections drawing at once, taking from both rows or neither", async () => {
    const { organization } = await createTenant(db(), 'Org budget at once')
    const [c1, c2] = [randomUUID(), randomUUID()]
    const spec = { connectionLimit: 5, organizationLimit: 6, windowSeconds: 60 }
    const gates = [c1, c2, c1, c2].map((connectionId) => new PgBudgetGate(db(), { providerId: 'eln_provider', organizationId: organization.id, connectionId, spec }))
    expect(await drawAtOnce(gates, 5)).toEqual({ granted: 6, refused: 14 })
    expect(await used('eln_provider', organization.id)).toBe(6)
    expect((await used('eln_provider', c1)) + (await used('eln_provider', c2))).toBe(6)
  })
})
