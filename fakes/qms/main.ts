// Runs the fake QMS for the local demo (default 127.0.0.1:8191) with illustrative content.
import { z } from 'zod'
import { seedIllustrativeQms } from './seed'
import { startFakeQms } from './server'
import { exitOnStartFailure } from '../../core/config'

const Env = z.object({
  FAKE_QMS_PORT: z.coerce.number().int().min(0).max(65535).default(8191),
  FAKE_QMS_HOST: z.string().min(1).default('127.0.0.1'),
})
const env = Env.parse(process.env)
// A port in use: one sentence (held by whom, FAKE_QMS_PORT), exit 1.
const fake = await startFakeQms({ port: env.FAKE_QMS_PORT, host: env.FAKE_QMS_HOST }).catch((e) => exitOnStartFailure(e, 'FAKE_QMS_PORT'))
seedIllustrativeQms(fake.state)
console.log(JSON.stringify({ msg: 'fake QMS listening (illustrative content)', url: fake.url, vaultId: fake.state.vaultId, control: `${fake.url}/_control/state` }))
const stop = async () => {
  await fake.close()
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
