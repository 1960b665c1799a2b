// Owns the inbox item a broken audit chain files (issue 35): when the daily verification (jobs/tasks/audit_verify.ts)
// finds an entry that does not verify, every active organisation owner and administrator gets one information item
// naming it, once per broken entry (an item still open for the same entry is not filed again).
import { transactionFor, type Db } from '../../core/database'
import type { Verification } from '../../core/audit'
import { fileInboxItem } from './filing'

/** The organisation personas whose people are told (the documents' org_owner and org_admin). */
export const CHAIN_BREAK_RECIPIENTS = ['org_owner', 'org_admin'] as const
export const CHAIN_BREAK_SOURCE = 'audit_chain'
const DUE_DAYS = 7

/** The item's title: what broke, where, and what to run. */
export function chainBreakTitle(v: Verification): string {
  const b = v.firstBreak!
  const at = b.seq === null ? 'an audit entry outside the chain' : `audit entry #${b.seq}`
  return `The audit trail does not verify at ${at} (${b.reason.replace(/_/g, ' ')}). Run npm run audit:verify and see the operators' guide.`
}

/** Files the chain-break item for the organisation's owners and administrators; answers how many were filed. */
export async function fileChainBreak(db: Db, v: Verification, now = new Date()): Promise<number> {
  if (v.verified || !v.firstBreak) return 0
  const sourceId = v.firstBreak.entryId ?? `head:${v.firstBreak.seq}`
  return transactionFor(db, v.organizationId, async (tx) => {
    const people = await tx.orgRoleAssignment.findMany({
      where: { organizationId: v.organizationId, personaKey: { in: [...CHAIN_BREAK_RECIPIENTS] }, user: { deactivatedAt: null } },
      select: { userId: true },
    })
    let filed = 0
    for (const userId of new Set(people.map((p) => p.userId))) {
      const open = await tx.inboxItem.findFirst({ where: { organizationId: v.organizationId, userId, sourceType: CHAIN_BREAK_SOURCE, sourceId, status: { in: ['open', 'snoozed'] } } })
      if (open) continue
      await fileInboxItem(tx, {
        organizationId: v.organizationId, userId, programId: null, kind: 'information', sourceType: CHAIN_BREAK_SOURCE, sourceId,
        title: chainBreakTitle(v), dueAt: new Date(now.getTime() + DUE_DAYS * 86_400_000), priority: 'now',
      })
      filed += 1
    }
    return filed
  })
}
