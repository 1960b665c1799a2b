// Owns filing an inbox item and announcing inbox changes (inbox_changed): what every producer of items (proposals,
// hand-offs, mentions, the audit-driven producers, escalation notices) and the person's operations share. Apart from
// inbox.ts so the producers and escalation, which inbox.ts's sweep and resolve call, need nothing from it.
import type { InboxItem, InboxItemKind } from '../../generated/prisma/client'
import { asTx, type AnyTx } from '../../core/database'
import { publish, publishMany, type InboxChange } from '../../core/database'
import { notifyPerson } from '../../core/jobs'
import { inboxLinkUrl } from './link-tokens'

export interface FileInboxItem {
  organizationId: string
  userId: string
  programId?: string | null
  kind: InboxItemKind
  sourceType: string
  sourceId: string
  title: string
  dueAt?: Date | null
  priority?: 'now' | 'digest'
  /** The digest moment a digest-priority item is batched for (inbox-batches.ts). */
  batchKey?: string | null
  twinId?: string | null
  triggerId?: string | null
  /** The run interrupt the item waits on (a proposal's write_approval). */
  interruptId?: string | null
  /** Routed under delegation: the person the item was routed from (domain/collaboration/delegations.ts). */
  delegatedFromUserId?: string | null
}

/**
 * Files an item in `tx` and announces it (key only) when the transaction commits. A hand-off or mention item also
 * notifies its person (handoff_received is e-mailed with a one-click resolve link; mention is in-app), after their
 * quiet hours.
 */
export async function fileInboxItem(anyTx: AnyTx, input: FileInboxItem): Promise<InboxItem> {
  const tx = asTx(anyTx)
  const item = await tx.inboxItem.create({ data: { ...input, priority: input.priority ?? 'digest' } })
  await announce(tx, item, 'created')
  if (item.kind === 'handoff' || item.kind === 'mention') await notifyFiled(tx, item)
  return item
}

async function notifyFiled(tx: AnyTx, item: InboxItem) {
  const payload = { inbox_item_id: item.id, kind: item.kind, source_type: item.sourceType, source_id: item.sourceId }
  const base = { organizationId: item.organizationId, programId: item.programId, userId: item.userId, payload }
  if (item.kind === 'mention') return notifyPerson(tx, { ...base, kind: 'mention' })
  const program = item.programId ? await asTx(tx).program.findFirst({ where: { id: item.programId, organizationId: item.organizationId }, select: { name: true } }) : null
  return notifyPerson(tx, {
    ...base, kind: 'handoff_received',
    email: {
      subject: `A hand-off waits for you${program ? ` in ${program.name}` : ''}`,
      // Pointers only: the hand-off's message and thread stay in the service.
      body: [
        `A hand-off was sent to you${program ? ` in ${program.name}` : ''}. Open your inbox to accept or decline it.`,
        '',
        `Mark it done without opening it (this neither accepts nor declines the hand-off): ${await inboxLinkUrl(item)}`,
      ].join('\n'),
    },
  })
}

/** Announces a change of `item` to its owner's subscriptions when the transaction commits. */
export function announce(tx: AnyTx, item: Pick<InboxItem, 'id' | 'userId' | 'organizationId'>, change: InboxChange) {
  return publish(tx, 'inbox_changed', { id: item.id, userId: item.userId, organizationId: item.organizationId, change })
}

/** Announces one change of many items in one statement (the inbox_expire sweep). */
export function announceAll(tx: AnyTx, items: readonly Pick<InboxItem, 'id' | 'userId' | 'organizationId'>[], change: InboxChange) {
  return publishMany(tx, 'inbox_changed', items.map((item) => ({ id: item.id, userId: item.userId, organizationId: item.organizationId, change })))
}
