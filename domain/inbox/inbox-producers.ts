// Owns which audited events file signature, question and information items, for whom, when they fall due, and which
// events resolve them (proposals, hand-offs, mentions and stage gates file their own items in their writes). It runs
// as an audit post-flush hook (core/audit/audit.ts: in a savepoint of the writer's transaction, so a failure here never fails
// the write), so a write in any subgraph or job reaches the inbox without that subgraph knowing the inbox.
//
// | audited event                                   | kind        | filed for                                                   | resolved by                                  |
// | requirement_set.create (version effective)      | signature   | quality reviewers holding review.sops.manage (else every    | requirement_set.accept of it or of another   |
// |                                                 |             | holder), not the person who extracted it                    | set of the version (it is superseded)        |
// | sop.create (a local SOP, version 1.0 in draft)  | signature   | holders of review.sops.approve, not its author              | sop.approve                                  |
// | stage_gate.review (the gate waits for closing)  | signature   | holders of progress.stages.approve but the reviewer         | stage_gate.close (here); reopen, supersede   |
// | question.create or .update, open, with an owner | question    | the owner (owner_user_id), unless they asked it themselves  | the question answered or closed; an owner    |
// |                                                 |             |                                                             | change moves it to the new owner             |
// | question.update to answered                     | information | the person who asked it, unless they answered it            | the person (resolve, dismiss) or expiry      |
// | handoff.decline, handoff.complete               | information | the hand-off's sender                                       | the person or expiry                         |
// | inbox_expire escalation (domain/inbox-escalation.ts) | information | the program's owners and leads                         | the escalated item closing                   |
//
// Due times (ours, the documents name none beyond a proposal's expiry_hours): signatures 14 days, questions the end of
// their due_on (UTC) or 14 days, information 7 days. Signature and question items are reminded at most daily, as
// decisions are (inbox.ts REMINDED_KINDS); every item is announced live (inbox_changed) when filed and when resolved.
import type { AuditEvent, InboxItem, InboxItemKind } from '../../generated/prisma/client'
import type { AuditAction } from '../../core/audit'
import type { AnyTx, Tx } from '../../core/database'
import { asTx } from '../../core/database'
import { hasPermission } from '../../core/permissions'
import { currentPersonaVersion } from '../../core/identity'
import { transitionAll } from '../../core/states'
import { inboxItemStatus } from '../../core/states'
import { announce, fileInboxItem } from './filing'

const DAY = 86_400_000
export const SIGNATURE_DUE_DAYS = 14
export const QUESTION_DUE_DAYS = 14
export const INFORMATION_DUE_DAYS = 7

const inDays = (now: Date, days: number) => new Date(now.getTime() + days * DAY)

/** Active members of a program holding `key` (under the deployment's persona version), with their personas. */
export async function membersHolding(tx: AnyTx, organizationId: string, programId: string, key: string): Promise<{ userId: string; personas: string[] }[]> {
  const q = asTx(tx)
  const rows = await q.roleAssignment.findMany({ where: { organizationId, programId }, select: { userId: true, personaKey: true } })
  const members = await q.programMembership.findMany({ where: { organizationId, programId, endedAt: null, user: { deactivatedAt: null } }, select: { userId: true } })
  const active = new Set(members.map((m) => m.userId))
  const byUser = new Map<string, string[]>()
  for (const r of rows) if (active.has(r.userId)) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.personaKey])
  const version = currentPersonaVersion()
  return [...byUser]
    .filter(([, personas]) => hasPermission({ programPersonas: new Map([[programId, personas]]), orgPersonas: [] }, key, programId, version))
    .map(([userId, personas]) => ({ userId, personas }))
}

/** Closes the open or snoozed items matching `where` (done by `doneBy`, or by nobody for a system close) and announces each. */
export async function resolveItemsWhere(tx: AnyTx, where: { organizationId: string } & Record<string, unknown>, doneBy: string | null, now = new Date()): Promise<InboxItem[]> {
  const rows = await transitionAll(asTx(tx), inboxItemStatus, 'resolve', where, { doneBy, doneAt: now, snoozedUntil: null, updatedAt: now })
  for (const r of rows) await announce(tx, r, 'resolved')
  return rows
}

/** Files one item per person unless that person already has an open or snoozed one of the kind for the source. */
async function fileOnce(tx: Tx, people: readonly string[], item: { organizationId: string; programId: string | null; kind: InboxItemKind; sourceType: string; sourceId: string; title: string; dueAt: Date | null; priority?: 'now' | 'digest' }) {
  for (const userId of new Set(people)) {
    const open = await tx.inboxItem.findFirst({ where: { organizationId: item.organizationId, userId, kind: item.kind, sourceType: item.sourceType, sourceId: item.sourceId, status: { in: ['open', 'snoozed'] } } })
    if (!open) await fileInboxItem(tx, { ...item, userId })
  }
}

const detailsOf = (e: AuditEvent) => (e.details ?? {}) as Record<string, unknown>

/** The audit hook: files and resolves the items of the table above. */
export async function onEventForInbox(tx: Tx, e: AuditEvent, now = new Date()): Promise<void> {
  switch (e.action) {
    case 'requirement_set.create': return requirementSetCreated(tx, e, now)
    case 'requirement_set.accept': return requirementSetAccepted(tx, e)
    case 'sop.create': return localSopCreated(tx, e, now)
    case 'sop.approve': { await resolveItemsWhere(tx, { organizationId: e.organizationId, kind: 'signature', sourceType: 'sop', sourceId: e.targetId }, e.actorUserId, now); return }
    case 'stage_gate.review': return stageGateReviewed(tx, e, now)
    // reopen and supersede close every item of the gate in their own writes (gates.ts); close does not
    case 'stage_gate.close': { await resolveItemsWhere(tx, { organizationId: e.organizationId, kind: 'signature', sourceType: 'stage_gate', sourceId: e.targetId }, e.actorUserId, now); return }
    case 'question.create': case 'question.update': return questionChanged(tx, e, now)
    case 'handoff.decline': case 'handoff.complete': return handoffAnswered(tx, e, now)
    default:
  }
}

async function requirementSetCreated(tx: Tx, e: AuditEvent, now: Date) {
  if (!e.programId) return
  const set = await tx.requirementSet.findFirst({ where: { id: e.targetId, organizationId: e.organizationId }, include: { sopVersion: true } })
  // Only a set of an effective version can be accepted; a set of a draft waits until the version is effective.
  if (!set || set.status !== 'draft' || set.sopVersion.lifecycleState !== 'effective') return
  const holders = (await membersHolding(tx, e.organizationId, e.programId, 'review.sops.manage')).filter((h) => h.userId !== e.actorUserId)
  const qa = holders.filter((h) => h.personas.includes('quality_reviewer'))
  await fileOnce(tx, (qa.length ? qa : holders).map((h) => h.userId), {
    organizationId: e.organizationId, programId: e.programId, kind: 'signature', sourceType: 'requirement_set', sourceId: set.id,
    title: `Requirement set waiting for your acceptance: ${set.title} (version ${set.version})`, dueAt: inDays(now, SIGNATURE_DUE_DAYS),
  })
}

async function requirementSetAccepted(tx: Tx, e: AuditEvent) {
  const set = await tx.requirementSet.findFirst({ where: { id: e.targetId, organizationId: e.organizationId }, select: { sopVersionId: true } })
  if (!set) return
  // The accepted set and every other set of the version (superseded or no longer acceptable) stop waiting.
  const sets = await tx.requirementSet.findMany({ where: { organizationId: e.organizationId, sopVersionId: set.sopVersionId }, select: { id: true } })
  await resolveItemsWhere(tx, { organizationId: e.organizationId, kind: 'signature', sourceType: 'requirement_set', sourceId: { in: sets.map((s) => s.id) } }, e.actorUserId)
}

async function localSopCreated(tx: Tx, e: AuditEvent, now: Date) {
  if (!e.programId || detailsOf(e).origin !== 'local') return
  const sop = await tx.sop.findFirst({ where: { id: e.targetId, organizationId: e.organizationId } })
  if (!sop) return
  const approvers = (await membersHolding(tx, e.organizationId, e.programId, 'review.sops.approve')).filter((h) => h.userId !== e.actorUserId)
  await fileOnce(tx, approvers.map((h) => h.userId), {
    organizationId: e.organizationId, programId: e.programId, kind: 'signature', sourceType: 'sop', sourceId: sop.id,
    title: `Local SOP waiting for approval: ${sop.documentNumber} ${sop.title}`, dueAt: inDays(now, SIGNATURE_DUE_DAYS),
  })
}

async function stageGateReviewed(tx: Tx, e: AuditEvent, now: Date) {
  if (!e.programId) return
  const gate = await tx.stageGate.findFirst({ where: { id: e.targetId, organizationId: e.organizationId }, include: { stage: { select: { name: true } } } })
  if (!gate || gate.status !== 'reviewed') return
  // The reviewer cannot close the gate they reviewed (same_signer): the item goes to the other signers.
  const signers = (await membersHolding(tx, e.organizationId, e.programId, 'progress.stages.approve')).filter((h) => h.userId !== e.actorUserId)
  await fileOnce(tx, signers.map((h) => h.userId), {
    organizationId: e.organizationId, programId: e.programId, kind: 'signature', sourceType: 'stage_gate', sourceId: gate.id, priority: 'now',
    title: `Stage gate reviewed, waiting for your closing signature: ${gate.stage?.name ?? 'stage'} (version ${gate.version})`, dueAt: inDays(now, SIGNATURE_DUE_DAYS),
  })
}

/** The end of a YYYY-MM-DD day in UTC, or null. */
function endOfDay(d: unknown): Date | null {
  if (typeof d !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(d)) return null
  const t = new Date(`${d}T23:59:59.999Z`)
  return Number.isNaN(t.getTime()) ? null : t
}

async function questionChanged(tx: Tx, e: AuditEvent, now: Date) {
  if (!e.programId) return
  const q = await tx.programRecord.findFirst({ where: { id: e.targetId, organizationId: e.organizationId, recordType: 'evidence.questions' } })
  if (!q) return
  const fields = (q.fields ?? {}) as Record<string, unknown>
  const owner = typeof fields.owner_user_id === 'string' ? fields.owner_user_id : null
  const source = { organizationId: e.organizationId, sourceType: 'program_record', sourceId: q.id }
  if (q.status !== 'open' || !owner) {
    const closed = await resolveItemsWhere(tx, { ...source, kind: 'question' }, e.actorUserId, now)
    // Answered: the person who asked hears of it (not when they answered it themselves).
    if (q.status === 'answered' && closed.length && q.createdByUserId !== e.actorUserId) {
      await fileOnce(tx, [q.createdByUserId], {
        programId: e.programId, kind: 'information', ...source,
        title: `Your question was answered: ${q.title}`, dueAt: inDays(now, INFORMATION_DUE_DAYS),
      })
    }
    return
  }
  // An owner change moves the item: the previous owner's closes (by nobody: they did not answer it).
  await resolveItemsWhere(tx, { ...source, kind: 'question', userId: { not: owner } }, null, now)
  if (owner === q.createdByUserId && owner === e.actorUserId) return
  const member = await tx.programMembership.findFirst({ where: { organizationId: e.organizationId, programId: e.programId, userId: owner, endedAt: null } })
  if (!member) return
  await fileOnce(tx, [owner], {
    programId: e.programId, kind: 'question', ...source,
    title: `A question for you: ${q.title}`, dueAt: endOfDay(fields.due_on) ?? inDays(now, QUESTION_DUE_DAYS),
  })
}

async function handoffAnswered(tx: Tx, e: AuditEvent, now: Date) {
  const h = await tx.handoffRequest.findFirst({ where: { id: e.targetId, organizationId: e.organizationId } })
  if (!h || h.fromUserId === e.actorUserId) return
  const verb = e.action === 'handoff.decline' ? 'declined' : 'completed'
  await fileOnce(tx, [h.fromUserId], {
    organizationId: e.organizationId, programId: h.programId, kind: 'information', sourceType: 'handoff', sourceId: h.id,
    title: `Your ${h.kind} hand-off was ${verb}${e.action === 'handoff.decline' && h.reason ? `: ${h.reason}` : ''}`, dueAt: inDays(now, INFORMATION_DUE_DAYS),
  })
}

/** The actions onEventForInbox reads: the audit hook runs (and pays a savepoint) for these only. */
export const INBOX_PRODUCER_ACTIONS: readonly AuditAction[] = [
  'requirement_set.create', 'requirement_set.accept', 'sop.create', 'sop.approve', 'stage_gate.review', 'stage_gate.close',
  'question.create', 'question.update', 'handoff.decline', 'handoff.complete',
]
