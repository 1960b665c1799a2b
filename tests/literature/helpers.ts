// Test helpers for the literature connector: the fake literature sources on port 0 with the connector pointed at them,
// and a clean slate (fake control and the literature_search rate_budgets rows) before each test.
import { afterAll, beforeAll, beforeEach } from 'vitest'
import type { Db } from '../../core/database'
import { startFakeLiterature, type FakeLiterature } from '../../fakes/literature/server'
import { configureLiterature } from '../../domain/literature'
import { PROVIDER } from '../../domain/literature'

export const CONTACT = 'literature-tests@illustrative.example'

export function useFakeLiterature(db: () => Db) {
  const holder = {} as { current: FakeLiterature }
  beforeAll(async () => {
    holder.current = await startFakeLiterature({ port: 0 })
    configureLiterature({ baseUrl: holder.current.url, keys: { contact_email: CONTACT, citation_graph_api_key: 'illustrative-graph-key' }, timeoutMs: 1_500 })
  })
  afterAll(async () => {
    configureLiterature({ baseUrl: undefined, keys: undefined, timeoutMs: undefined })
    await holder.current?.close()
  })
  beforeEach(async () => {
    holder.current.control.reset()
    await db().$executeRaw`DELETE FROM rate_budgets WHERE provider_id = ${PROVIDER}`
  })
  return holder
}

/** Sets a source's platform window (what an operator or the vendor's headers would). */
export async function setWindow(db: Db, source: string, limit: number, windowSeconds: number) {
  await db.$executeRaw`
    INSERT INTO rate_budgets (organization_id, provider_id, scope, scope_key, limit_per_window, window_seconds)
    VALUES (NULL, ${PROVIDER}, 'platform', ${source}, ${limit}, ${windowSeconds})
    ON CONFLICT (provider_id, scope, scope_key) DO UPDATE SET limit_per_window = ${limit}, window_seconds = ${windowSeconds}`
}

/** What a neutralised text may never contain (the memory sanitiser tests' rule). */
export function inert(text: string): string[] {
  const problems: string[] = []
  if (/<[a-z/!]/i.test(text)) problems.push('markup')
  if (/[\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]|\uDB40[\uDC00-\uDDEF]/.test(text)) problems.push('invisible')
  if (/https?:|javascript:|data:|www\./i.test(text)) problems.push('link')
  if (/<<<|>>>/.test(text)) problems.push('marker')
  if (/ignorepreviousinstructions|systemprompt|youarenow/.test(text.toLowerCase().replace(/[^a-z]/g, ''))) problems.push('instruction')
  return problems
}
