// npm run audit:verify [-- --org <slug or id>] [--export <file>]: walks each organisation's audit chain (or one) and
// names the first entry that does not verify; with --export, writes the organisation's chain for offline
// verification (scripts/audit-verify-offline.mjs). Exits 1 when a chain does not verify, 2 on a bad call.
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { parseEnv, setEnv, type EnvError } from '../core/config'
import { resolveDatabaseUrl } from '../core/database'
import { createPrisma } from '../core/database'
import { exportChain, verifyChain, type Verification } from '../core/audit'
import { chainedOrganisationsAcrossOrganisations } from '../core/sql'
import { exitOnStartFailure } from '../core/config'

const USAGE = `Usage: npm run audit:verify [-- --org <slug or id>] [--export <file>]
Verifies the audit chain of every organisation (or of --org) and names the first entry that does not verify.
  --org <slug or id>   one organisation
  --export <file>      also write that organisation's chain (entries, hashes, daily head hashes) as JSON to <file>,
                       for node scripts/audit-verify-offline.mjs <file> (needs --org)
  --help               this text
Exit status: 0 every chain verified, 1 a chain does not verify, 2 a bad call.`

let values: { org?: string; export?: string; help?: boolean }
try {
  values = parseArgs({ options: { org: { type: 'string' }, export: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values as typeof values
} catch (e) {
  console.error(`${(e as Error).message}\n${USAGE}`)
  process.exit(2)
}
if (values.help) { console.log(USAGE); process.exit(0) }
if (values.export && !values.org) { console.error(`--export needs --org.\n${USAGE}`); process.exit(2) }
try { setEnv(parseEnv()) } catch (e) { console.error((e as EnvError).message); process.exit(1) }

/** One line per organisation: what an operator reads and a script greps. */
function describe(v: Verification, name: string): string {
  const who = `${name} (${v.organizationId})`
  const before = v.beforeChain ? `; ${v.beforeChain} entries from before the chain began are kept unhashed` : ''
  if (v.verified) return `${who}: verified, ${v.entries} entries, head #${v.headSeq} ${v.headHash || '(empty)'}${before}`
  const b = v.firstBreak!
  return `${who}: DOES NOT VERIFY at entry ${b.seq === null ? '(no position)' : `#${b.seq}`} ${b.entryId ?? '(head)'}: ${b.reason}; ${v.entries} entries before it verified`
}

const handle = await resolveDatabaseUrl().catch(exitOnStartFailure)
const db = createPrisma(handle.url, 2)
let code = 0
try {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
  const orgs = values.org
    ? await db.organization.findMany({ where: UUID.test(values.org) ? { OR: [{ id: values.org }, { slug: values.org }] } : { slug: values.org } })
    : await db.organization.findMany({ where: { id: { in: await chainedOrganisationsAcrossOrganisations(db) } }, orderBy: { slug: 'asc' } })
  if (values.org && orgs.length === 0) { console.error(`No organisation ${values.org}.`); code = 2 }
  for (const org of orgs) {
    const v = await verifyChain(db, org.id)
    console.log(describe(v, org.slug))
    if (!v.verified) code = 1
    if (values.export) {
      const out = fs.createWriteStream(values.export)
      const r = await exportChain(db, org.id, (text) => new Promise<void>((resolve, reject) => out.write(text, (e) => (e ? reject(e) : resolve()))))
      await new Promise<void>((resolve) => out.end(resolve))
      console.log(`${org.slug}: exported ${r.entries} entries to ${values.export}`)
    }
  }
  if (!values.org && orgs.length === 0) console.log('No organisation has an audit chain yet.')
} finally {
  await db.$disconnect()
  await handle.stop()
}
process.exit(code)
