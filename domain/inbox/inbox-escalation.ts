// Owns escalation (programs.settings.escalation_days): inbox_expire escalates each signature, question or stage item
// still open escalation_days after it was filed, once: the item goes to priority now (escalated_at, announced as
// escalated) and the program's owners and leads other than its person get an information item pointing to it, which
// resolves when the escalated item closes. escalation_days 0 turns escalation off for the program; a program without
// the setting escalates after DEFAULT_ESCALATION_DAYS. Decision items (twin proposals) are not escalated: they expire
// after the twin's expiry_hours ('Expired, nothing written'), and a person's twin's proposals are theirs to decide.
// Each escalation points to one item; nothing counts or ranks a person's waiting items.
import type { InboxItem, InboxItemKind } from '../../generated/prisma/client'
import type { AnyTx, Tx } from '../../core/database'
import { asTx } from '../../core/database'
import { announce, fileInboxItem } from './filing'
import { membersHolding, resolveItemsWhere } from './inbox-producers'
import { escalateOverdueAcrossOrganisations, staleNoticesAcrossOrganisations } from './sql'

export const DEFAULT_ESCALATION_DAYS = 3
export const ESCALATED_KINDS: readonly InboxItemKind[] = ['signature', 'question', 'stage']
/** The source type of an escalation notice: the escalated inbox item. */
export const ESCALATION_SOURCE = 'inbox_item'

/** Escalates what is due (see above); answers how many items were escalated. */
export async function escalateOverdue(tx: Tx, now = new Date()): Promise<number> {
  const ids = await escalateOverdueAcrossOrganisations(tx, now, ESCALATED_KINDS, DEFAULT_ESCALATION_DAYS)
  if (!ids.length) return 0
  const items = await tx.inboxItem.findMany({ where: { id: { in: ids.map((r) => r.id) } } })
  for (const item of items) {
    await announce(tx, item, 'escalated')
    await notifyLeads(tx, item, now)
  }
  return items.length
}

async function notifyLeads(tx: Tx, item: InboxItem, now: Date) {
  if (!item.programId) return
  const person = await tx.user.findFirst({ where: { id: item.userId, organizationId: item.organizationId }, select: { name: true } })
  const days = Math.floor((now.getTime() - item.createdAt.getTime()) / 86_400_000)
  // Owners and leads: program.twins.manage is theirs alone (twins document, Authentication).
  const leads = (await membersHolding(tx, item.organizationId, item.programId, 'program.twins.manage')).filter((m) => m.userId !== item.userId)
  for (const lead of leads) {
    await fileInboxItem(tx, {
      organizationId: item.organizationId, programId: item.programId, userId: lead.userId, kind: 'information', priority: 'now',
      sourceType: ESCALATION_SOURCE, sourceId: item.id, title: `Waiting ${days} days for ${person?.name ?? 'a member'}: ${item.title}`,
    })
  }
}

/** Escalation notices about items that closed resolve with them (doneBy: who closed the item; null for a system close). */
export async function resolveNoticesAbout(tx: AnyTx, items: readonly Pick<InboxItem, 'id' | 'organizationId' | 'escalatedAt'>[], doneBy: string | null, now = new Date()) {
  const escalated = items.filter((i) => i.escalatedAt)
  if (!escalated.length) return []
  return resolveItemsWhere(asTx(tx), { organizationId: escalated[0].organizationId, kind: 'information', sourceType: ESCALATION_SOURCE, sourceId: { in: escalated.map((i) => i.id) } }, doneBy, now)
}

/** Catch-up for the sweep: notices whose item is no longer open or snoozed (it expired, was dismissed, ...). */
export async function resolveStaleNotices(tx: Tx, now = new Date()): Promise<number> {
  const stale = await staleNoticesAcrossOrganisations(tx, ESCALATION_SOURCE)
  let n = 0
  for (const s of stale) n += (await resolveItemsWhere(tx, { organizationId: s.organization_id, id: s.id }, null, now)).length
  return n
}
