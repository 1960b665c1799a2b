// npm run token -- --user <email> [--ttl 12h]: prints a development bearer token for a seeded user.
// stdout carries the token and nothing else (TOKEN=$(npm run -s token -- --user …)); messages and logs go to stderr.
import { parseArgs } from 'node:util'
import { env, parseEnv, setEnv, EnvError } from '../core/config'
import { resolveDatabaseUrl } from '../core/database'
import { createPrisma } from '../core/database'
import { mintDevToken } from '../core/identity'
import { exitOnStartFailure } from '../core/config'

const USAGE = `Usage: npm run -s token -- --user <email> [--ttl <duration>]
Prints a development bearer token for a seeded user on stdout (only the token: TOKEN=$(npm run -s token -- --user lead@illustrative.example)).
  --user <email>     the user (seeded: owner, lead, scientist, quality, manufacturing, viewer, admin @illustrative.example)
  --ttl <duration>   how long the token is valid: a number and a unit, e.g. 30m, 12h, 7d (default 12h)
  --help             this text
Not available in production or with AUTH_JWKS_URL set: tokens then come from your identity provider.`

let values: { user?: string; ttl: string; help?: boolean }
try {
  values = parseArgs({ options: { user: { type: 'string' }, ttl: { type: 'string', default: '12h' }, help: { type: 'boolean', short: 'h' } } }).values as typeof values
} catch (e) {
  console.error(`${(e as Error).message}\n${USAGE}`) // an unknown option or a missing value: what was wrong, then how to call
  process.exit(2)
}
if (values.help) {
  console.log(USAGE)
  process.exit(0)
}
// jose's time-span syntax (setExpirationTime), forward spans only: checked here so a bad value is a sentence, not a stack.
if (!/^\d+(\.\d+)? ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)$/i.test(values.ttl)) {
  console.error(`--ttl ${values.ttl}: expected a number and a unit, e.g. 30m, 12h or 7d.`)
  process.exit(2)
}
try { setEnv(parseEnv()) } catch (e) { console.error((e as EnvError).message); process.exit(1) }
if (env().NODE_ENV === 'production' || env().AUTH_JWKS_URL) {
  console.error('No development tokens here: with AUTH_JWKS_URL set (always in production), tokens come from your identity provider.')
  process.exit(1)
}
if (!values.user) {
  console.error(USAGE)
  process.exit(2)
}
const handle = await resolveDatabaseUrl({ helper: true }).catch(exitOnStartFailure)
const db = createPrisma(handle.url, 1)
let code = 0
try {
  const user = await db.user.findUnique({ where: { email: values.user } })
  if (!user) {
    const known = await db.user.findMany({ select: { email: true }, orderBy: { email: 'asc' }, take: 20 })
    console.error(`No user ${values.user}. Seeded users: ${known.map((u) => u.email).join(', ') || '(none: run npm run seed or npm start once)'}`)
    code = 1
  } else {
    console.log(await mintDevToken(user, values.ttl))
  }
} catch (e) {
  // A fresh database has no tables until it is prepared: say so instead of Prisma's "table does not exist" stack.
  if ((e as { code?: string }).code !== 'P2021') throw e
  console.error(`No user ${values.user}: the database has no tables yet; run npm run seed (or npm start) once, then ask again.`)
  code = 1
} finally {
  await db.$disconnect()
  await handle.stop()
}
process.exit(code)
