// Task audit_verify (daily, issue 35): verifies every organisation's audit chain (core/audit/audit-chain.ts) and, where an
// entry does not verify, files an inbox item for the organisation's owners and administrators.
import type { Task } from 'graphile-worker'
import { TaskPayloads } from '../../core/jobs'
import { verifyChain } from '../../core/audit'
import { chainedOrganisationsAcrossOrganisations } from '../../core/sql'
import { fileChainBreak } from '../../domain/inbox'
import type { WorkerDeps } from './deps'

/** Verifies each chained organisation in turn; answers the organisations verified, broken and items filed. */
export async function verifyEveryChain(deps: Pick<WorkerDeps, 'db'>, now = new Date()) {
  let verified = 0
  let broken = 0
  let filed = 0
  for (const organizationId of await chainedOrganisationsAcrossOrganisations(deps.db)) {
    const v = await verifyChain(deps.db, organizationId)
    if (v.verified) { verified += 1; continue }
    broken += 1
    filed += await fileChainBreak(deps.db, v, now)
  }
  return { verified, broken, filed }
}

export const auditVerify = (deps: WorkerDeps): Task => async (payload, helpers) => {
  TaskPayloads.audit_verify.parse(payload ?? {})
  const r = await verifyEveryChain(deps)
  const line = `audit_verify verified=${r.verified} broken=${r.broken} inbox_items=${r.filed}`
  if (r.broken) helpers.logger.error(line)
  else helpers.logger.info(line)
}
