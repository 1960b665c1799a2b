// The provider registry and the adapter contract: all three providers registered with their specs, every operation of
// the contract present, and NotSupported for what a provider does not implement yet.
import { describe, expect, it } from 'vitest'
import { ADAPTER_OPERATIONS, NotSupported, type IntegrationContext } from '../../domain/adapters'
import { adapterFor, allAdapters } from '../../domain/adapters'
import { PROVIDERS } from '../../domain/adapters'

const METHOD: Record<(typeof ADAPTER_OPERATIONS)[number], string> = {
  describe: 'describe', begin_connect: 'beginConnect', complete_connect: 'completeConnect', health_check: 'healthCheck', sync: 'sync',
  handle_webhook: 'handleWebhook', disconnect: 'disconnect', verify_webhook: 'verifyWebhook', list_changes: 'listChanges',
  fetch_object: 'fetchObject', search: 'search', render_launch: 'renderLaunch', budget: 'budget',
}

describe('provider registry and adapter contract', () => {
  it("registers the three providers with the registry table's category, credential class, events, launch, API version and write policy", () => {
    expect(PROVIDERS.map((p) => [p.id, p.category, p.credentialClass, p.eventVerification, p.launchable, p.apiVersionDefault, p.writePolicy, p.budgetScope])).toEqual([
      ['eln_provider', 'eln', 'service', 'ecdsa_jwks', true, 'v2', 'read_only', 'connection'],
      ['qms_provider', 'documents', 'service', 'none', false, 'v26.2', 'read_only', 'connection'],
      ['literature_search', 'literature', 'platform_keys', 'none', false, 'per source', 'read_only', 'platform'],
    ])
    expect(PROVIDERS.find((p) => p.id === 'qms_provider')!.pollIntervalSeconds).toBe(900)
    expect(PROVIDERS.find((p) => p.id === 'eln_provider')!.budget).toEqual({ connectionLimit: 250, organizationLimit: 900, windowSeconds: 30 })
    expect(allAdapters().map((a) => a.describe().id)).toEqual(['eln_provider', 'qms_provider', 'literature_search'])
  })

  it('gives every adapter all thirteen operations of the contract', () => {
    expect(ADAPTER_OPERATIONS).toHaveLength(13)
    for (const adapter of allAdapters()) {
      for (const op of ADAPTER_OPERATIONS) expect(typeof (adapter as unknown as Record<string, unknown>)[METHOD[op]], `${adapter.spec.id}.${op}`).toBe('function')
    }
  })

  it('raises NotSupported for the QMS operations a polled, webhook-free vault does not have, and for the literature operations that do not apply', async () => {
    const ctx = {} as IntegrationContext
    // literature_search implements describe, health_check, search, fetch_object and budget (tests/literature/).
    const literatureImplements = new Set(['health_check', 'fetch_object', 'search', 'budget'])
    for (const id of ['qms_provider', 'literature_search']) {
      const adapter = adapterFor(id)!
      const calls: Array<[string, () => unknown]> = [
        ['begin_connect', () => adapter.beginConnect({ connection: {} as never, hookUrl: null })],
        ['complete_connect', () => adapter.completeConnect({ connection: {} as never }, { clientId: 'a', clientSecret: 'b' })],
        ['health_check', () => adapter.healthCheck(ctx)],
        ['sync', () => adapter.sync(ctx, { mode: 'full' })],
        ['handle_webhook', () => adapter.handleWebhook(ctx, {} as never)],
        ['disconnect', () => adapter.disconnect({ connection: {} as never })],
        ['verify_webhook', () => adapter.verifyWebhook({ connection: {} as never }, { headers: {}, rawBody: Buffer.alloc(0) })],
        ['list_changes', () => adapter.listChanges(ctx, null)],
        ['fetch_object', () => adapter.fetchObject(ctx, { externalType: 'x', externalId: 'y' })],
        ['search', () => adapter.search(ctx, { text: 'x' })],
        ['render_launch', () => adapter.renderLaunch(ctx, { canvasId: 'c', entryId: 'e' })],
        ['budget', () => adapter.budget(ctx)],
      ]
      // The QMS connector (issue 15) implements connect, health, sync, disconnect and budget; it has no webhooks,
      // launches, search or per-object fetch.
      const implemented = id === 'qms_provider' ? ['begin_connect', 'complete_connect', 'health_check', 'sync', 'disconnect', 'budget'] : [...literatureImplements]
      for (const [op, call] of calls.filter(([op]) => !implemented.includes(op))) {
        const outcome = await Promise.resolve().then(call).then(() => null, (e) => e)
        expect(outcome, `${id}.${op}`).toBeInstanceOf(NotSupported)
        expect(outcome).toMatchObject({ code: 'NotSupported', providerId: id, operation: op })
      }
    }
  })

  it('leaves search NotSupported for the notebook, which only reads mapped entries', async () => {
    await expect(adapterFor('eln_provider')!.search({} as IntegrationContext, { text: 'buffer' })).rejects.toBeInstanceOf(NotSupported)
  })
})
