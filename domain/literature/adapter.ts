// Owns the literature_search adapter (category literature, platform keys, events none, read only): describe (with the
// sources and the four excluded source kinds), health_check, search, fetch_object and budget; every other operation
// stays NotSupported (no connect flow, no sync of its own, no webhooks, no launch). Budgets are platform-scoped, so
// the connection in the context only names the organisation whose fair share is drawn.
import type { BudgetState, HealthReport, IntegrationContext } from '../adapters'
import { BaseAdapter } from '../adapters'
import { providerSpec, type ProviderSpec } from '../adapters'
import { SourceBudget } from './budget'
import { literatureClients } from './clients'
import { getCluster, searchPage } from './search'
import { knowledgeSourceOf } from './knowledge'
import { probeLiteratureHealth } from './platform-health'
import { NotFoundError } from '../../core/errors'
import { SOURCES, SOURCE_IDS, type SourceId } from './sources'

export class LiteratureAdapter extends BaseAdapter {
  constructor() { super(providerSpec('literature_search')!) }

  override describe(): ProviderSpec & { sources: typeof SOURCES } {
    return { ...this.spec, sources: SOURCES }
  }

  /** The platform probe (platform-health.ts), drawn under this connection's organisation. */
  override async healthCheck(ctx: IntegrationContext): Promise<HealthReport> {
    return probeLiteratureHealth(ctx.db, ctx.connection.organizationId, ctx.now())
  }

  override async search(ctx: IntegrationContext, query: { text: string; limit?: number }): Promise<unknown[]> {
    const page = await searchPage(ctx.db, ctx.connection.organizationId, { query: query.text, first: query.limit ?? null })
    return page.edges.map((e) => e.node)
  }

  /**
   * A cluster the organisation has seen, by cluster key or alias (externalType literature_cluster); or, when the
   * external type names a knowledge source or one of its schemes (trial_registry / NCT, drug_safety / report id,
   * target_disease / gene id / ontology term id, bioactivity / compound id / InChIKey), that source's object read live
   * with its snapshot stamp (NotFound when the source has none by that id).
   */
  override async fetchObject(ctx: IntegrationContext, ref: { externalType: string; externalId: string }): Promise<unknown> {
    const source = knowledgeSourceOf(ref.externalType)
    if (!source) return getCluster(ctx.db, ctx.connection.organizationId, ref.externalId)
    const found = await literatureClients(ctx.db, ctx.connection.organizationId).knowledge[source].byId(ref.externalId.trim())
    if (!found) throw new NotFoundError(ref.externalType)
    return found
  }

  /** The platform rows of every source and the organisation's fair share of each. */
  override async budget(ctx: IntegrationContext): Promise<BudgetState[]> {
    const out: BudgetState[] = []
    for (const id of SOURCE_IDS) out.push(...(await new SourceBudget(ctx.db, id as SourceId, ctx.connection.organizationId).state()))
    return out
  }
}

export const literatureAdapter = new LiteratureAdapter()
