// Owns npm start's literature demo (fakes/demos.ts): the fake literature
// sources on FAKE_LITERATURE_PORT, and the connector pointed at them unless its base URL setting (LITERATURE_BASE_URL)
// names other sources. A taken port leaves the connector on its configured sources.
import { env } from '../../core/config'
import { log } from '../../core/config'
import { listenFailure } from '../../core/config'
import type { DemoContext, DemoService } from '../../domain/adapters'
import { providerSpec } from '../../domain/adapters'
import { startFakeLiterature } from './server'
import { configureLiterature } from '../../domain/literature'
import { recordLiteratureHealth } from '../../domain/literature'

export async function startLiteratureDemo(ctx: DemoContext): Promise<DemoService | null> {
  const e = env()
  if (e[providerSpec('literature_search')!.settings.baseUrl!]) return null
  try {
    const fake = await startFakeLiterature({ port: e.FAKE_LITERATURE_PORT, host: '127.0.0.1' })
    configureLiterature({ baseUrl: fake.url })
    // The role home reads the sources' platform health; probe once now rather than at the first 15-minute tick.
    // Not awaited (start stays fast), but close() waits for it, so nothing reads the database after the demo stops.
    const probe = recordLiteratureHealth(ctx.db).catch((error) => log.warn('literature_health.demo_probe_failed', { error }))
    const close = async () => {
      await probe
      await fake.close()
    }
    return { name: 'fake literature sources', url: fake.url, note: 'illustrative; Program.literatureSearch reads them', close }
  } catch (error) {
    log.warn('fake_literature.not_started', { port: e.FAKE_LITERATURE_PORT, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
}
