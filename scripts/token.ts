// npm run token -- --user <email> [--ttl 12h]: prints a development bearer token for a seeded user.
import { parseArgs } from 'node:util'
import { env, parseEnv, setEnv, EnvError } from '../core/env'
import { resolveDatabaseUrl } from '../core/postgres'
import { createPrisma } from '../core/db'
import { mintDevToken } from '../core/auth'

const { values } = parseArgs({ options: { user: { type: 'string' }, ttl: { type: 'string', default: '12h' } } })
try { setEnv(parseEnv()) } catch (e) { console.error((e as EnvError).message); process.exit(1) }
if (env().NODE_ENV === 'production' || env().AUTH_JWKS_URL) {
  console.error('No development tokens here: with AUTH_JWKS_URL set (always in production), tokens come from your identity provider.')
  process.exit(1)
}
if (!values.user) {
  console.error('Usage: npm run token -- --user <email>   (for example owner@illustrative.example)')
  process.exit(2)
}
const handle = await resolveDatabaseUrl()
const db = createPrisma(handle.url, 1)
let code = 0
try {
  const user = await db.user.findUnique({ where: { email: values.user } })
  if (!user) {
    const known = await db.user.findMany({ select: { email: true }, orderBy: { email: 'asc' }, take: 20 })
    console.error(`No user ${values.user}. Seeded users: ${known.map((u) => u.email).join(', ') || '(none: run npm start once)'}`)
    code = 1
  } else {
    console.log(await mintDevToken(user, values.ttl))
  }
} finally {
  await db.$disconnect()
  await handle.stop()
}
process.exit(code)
