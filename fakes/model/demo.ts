// Owns npm start's model demo (fakes/demos.ts), with MODEL_PROVIDER=fake only: the fake model provider on
// FAKE_MODEL_PORT answering as a drafting model (scripts.ts), and the illustrative program's model settings pointed
// at it with the model-backed harness as its default, so the demo twins' drafts say what they read and why.
import { env } from '../../core/config'
import { log } from '../../core/config'
import { contextForUser } from '../../core/jobs'
import { listenFailure } from '../../core/config'
import type { DemoContext, DemoService } from '../../domain/adapters'
import { setTwinModelSettings } from '../../domain/twins'
import { startFakeModel } from './server'
import { draftingModel } from './scripts'

export async function startModelDemo(ctx: DemoContext): Promise<DemoService | null> {
  const e = env()
  if (e.MODEL_PROVIDER !== 'fake') return null
  try {
    const fake = await startFakeModel({ port: e.FAKE_MODEL_PORT, host: '127.0.0.1' })
    fake.control.setScript([], draftingModel())
    const program = await ctx.db.program.findUniqueOrThrow({ where: { id: ctx.programId }, select: { organizationId: true } })
    const owner = await contextForUser(ctx.db, ctx.ownerUserId, program.organizationId)
    await setTwinModelSettings(owner, {
      programId: ctx.programId, defaultHarness: 'model', provider: 'openai', baseUrl: fake.openaiBaseUrl, model: 'fake-drafting-model',
      apiKey: 'illustrative-key', inputUsdPerMtok: 3, outputUsdPerMtok: 15,
    })
    return { name: 'fake model provider', url: fake.url, note: "illustrative; the program's twins run the model harness against it", close: fake.close }
  } catch (error) {
    log.warn('fake_model.not_started', { port: e.FAKE_MODEL_PORT, reason: (await listenFailure(error))?.message ?? String(error) })
    return null
  }
}
