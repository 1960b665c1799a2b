// Runs the fake notebook for the local demo (default 127.0.0.1:8190) with illustrative seed content.
import { z } from 'zod'
import { seedIllustrative } from './seed'
import { startFakeNotebook } from './server'
import { exitOnStartFailure } from '../../core/config'

const Env = z.object({
  FAKE_NOTEBOOK_PORT: z.coerce.number().int().min(0).max(65535).default(8190),
  FAKE_NOTEBOOK_HOST: z.string().min(1).default('127.0.0.1'),
  FAKE_NOTEBOOK_APP_DEFINITION_ID: z.string().min(1).default('appdef_illustrative'),
  FAKE_NOTEBOOK_CLIENT_ID: z.string().min(1).default('illustrative-client'),
  FAKE_NOTEBOOK_CLIENT_SECRET: z.string().min(8).default('illustrative-secret'),
  FAKE_NOTEBOOK_WEBHOOK_URL: z.url().optional(),
  FAKE_NOTEBOOK_RATE_LIMIT: z.coerce.number().int().positive().default(300),
  FAKE_NOTEBOOK_RATE_WINDOW_SECONDS: z.coerce.number().int().positive().default(30),
})

const parsed = Env.safeParse(process.env)
if (!parsed.success) {
  for (const issue of parsed.error.issues) console.error(`${issue.path.join('.')}: ${issue.message}`)
  process.exit(1)
}
const env = parsed.data

const fake = await startFakeNotebook({
  port: env.FAKE_NOTEBOOK_PORT,
  host: env.FAKE_NOTEBOOK_HOST,
  rateLimit: { limit: env.FAKE_NOTEBOOK_RATE_LIMIT, windowSeconds: env.FAKE_NOTEBOOK_RATE_WINDOW_SECONDS },
}).catch((e) => exitOnStartFailure(e, 'FAKE_NOTEBOOK_PORT')) // a port in use: one sentence (held by whom), exit 1
const seed = seedIllustrative(fake.control, {
  appDefinitionId: env.FAKE_NOTEBOOK_APP_DEFINITION_ID,
  clientId: env.FAKE_NOTEBOOK_CLIENT_ID,
  clientSecret: env.FAKE_NOTEBOOK_CLIENT_SECRET,
  webhookUrl: env.FAKE_NOTEBOOK_WEBHOOK_URL,
})

// The client secret is not printed: it is FAKE_NOTEBOOK_CLIENT_SECRET (or the documented illustrative default).
console.log(
  JSON.stringify({
    msg: 'fake notebook listening (illustrative content)',
    url: fake.url,
    appDefinitionId: seed.app.appDefinitionId,
    featureId: seed.app.featureId,
    clientId: seed.app.clientId,
    entries: seed.entryIds,
    control: `${fake.url}/_control/state`,
  }),
)

const stop = async () => {
  await fake.close()
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
