// Owns hand-offs, the only channel between twins (twins document: handoff_requests, Hand-offs (7)): sending one (a
// person directly, or a person approving their twin's console.propose_handoff proposal), the recipients, the message's
// redaction, the party-scoped moves accept / decline / complete / withdraw through core/states (handoffStatus), the
// hand-off inbox items and notifications, and the twin_handoff run an accepted hand-off starts for the recipient.
import { z } from 'zod'
import { personText } from '../../core/text'
import type { HandoffRequest } from '../../generated/prisma/client'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { AuditAction } from '../../core/audit'
import { asTx, type AnyTx, type TenantTx } from '../../core/database'
import { insertHandoffUnlessOpen, lockHandoff } from './sql'
import { HandoffExists, InvalidInput, InvalidTransition, NotAParty, NotFoundError, ReasonRequired, SelfHandoff } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import { TWINS } from '../../core/text'
import { redactSecrets } from '../../core/text'
import { hasPermission, type PermissionKey } from '../../core/permissions'
import { currentPersonaVersion } from '../../core/identity'
import { transition } from '../../core/states'
import { assertCan, can } from '../../core/identity'
import { handoffStatus } from '../../core/states'
import { RECORD_TYPES, type RecordTypeKey } from '../records'
import { keysetPage, type PageArgs } from '../../core/database'
import { closeItemsForSource, fileInboxItem } from '../inbox'
import { createTwinRun } from '../twins'

export const HANDOFF_KINDS = ['review', 'data', 'decision', 'information'] as const
export type HandoffKind = (typeof HANDOFF_KINDS)[number]
export const HANDOFF_STATUSES = handoffStatus.states
/** What a hand-off may point at: a program record, or a thread of the program. */
export const LINKED_TYPES = ['program_record', 'thread'] as const
/** Personas a hand-off may be addressed to: those holding program.handoffs.manage (every program persona but viewer). */
export const HANDOFF_PERSONAS = ['program_owner', 'program_lead', 'scientist', 'quality_reviewer', 'manufacturing_specialist'] as const

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

// ---- redaction ---------------------------------------------------------------------------------------------------

/**
 * What message_md never carries (the twins document: 'message_md (redacted)'). Kinds stored in `redactions`:
 * - secret: credentials and tokens, by core/text/redact.ts (the one list: bearer and basic values, JWT-shaped strings, private
 *   key blocks, key=value secrets, URLs with a user:password part, provider API keys). A twin's message met it already
 *   in the tool server; a person's send meets it here;
 * - unreadable_record: a reference (a bare id) to a program record the recipients may not read: a record of another
 *   program, or of a type whose read key some recipient does not hold here;
 * The redacted text replaces each with a bracketed label; `redactions` counts per kind, never the removed text.
 * Nothing else is changed: the message is a person's words (a twin's draft met the agent-text rules in the tool server
 * and was approved as shown), so `Conc <LLOQ at 24 h; AUC>100 & Cmax ≤ 2 µg/mL` is stored exactly and shown as text.
 * An agent that ever reads a message reads it through the tool server, whose outside-text pass cleans results.
 */
export const REDACTED_RECORD = '[redacted: a record the recipient may not read]'
const UUID_G = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi

export interface Redaction { kind: string; count: number }

/**
 * message_md as stored: exactly as written, but for secrets redacted and references to records the recipients may
 * not read redacted (each recipient's personas in the program are checked against the record type's read key).
 */
export async function redactMessage(q: AnyTx, raw: string, opts: { organizationId: string; programId: string; recipients: string[] }): Promise<{ text: string; redactions: Redaction[] }> {
  const tx = asTx(q)
  const redactions: Redaction[] = []
  const secrets = redactSecrets(raw)
  if (secrets.count) redactions.push({ kind: 'secret', count: secrets.count })
  const ids = [...new Set((secrets.text.match(UUID_G) ?? []).map((id) => id.toLowerCase()))]
  let hidden = new Set<string>()
  if (ids.length) {
    const records = await tx.programRecord.findMany({ where: { id: { in: ids }, organizationId: opts.organizationId }, select: { id: true, programId: true, recordType: true } })
    const personas = await tx.roleAssignment.findMany({ where: { organizationId: opts.organizationId, programId: opts.programId, userId: { in: opts.recipients } }, select: { userId: true, personaKey: true } })
    const grantsOf = (userId: string) => ({ programPersonas: new Map([[opts.programId, personas.filter((p) => p.userId === userId).map((p) => p.personaKey)]]), orgPersonas: [] })
    const readable = (r: { programId: string; recordType: string }) => r.programId === opts.programId && opts.recipients.every((u) =>
      hasPermission(grantsOf(u), RECORD_TYPES[r.recordType as RecordTypeKey]?.permissions.read ?? ('program.audit.read' as PermissionKey), opts.programId, currentPersonaVersion()))
    hidden = new Set(records.filter((r) => !readable(r)).map((r) => r.id))
  }
  let count = 0
  const text = hidden.size ? secrets.text.replace(UUID_G, (id) => (hidden.has(id.toLowerCase()) ? (count++, REDACTED_RECORD) : id)) : secrets.text
  if (count) redactions.push({ kind: 'unreadable_record', count })
  return { text, redactions }
}

// ---- recipients and reads ------------------------------------------------------------------------------------------

/**
 * Who receives a hand-off: the named user (who must hold the persona in the program), else every active holder of the
 * persona there; never the sender. Addressed only to the sender (by name, or as the persona's only holder): self_handoff.
 */
export async function recipientsOf(q: AnyTx, h: { organizationId: string; programId: string; toPersonaKey: string; toUserId?: string | null; fromUserId: string }): Promise<string[]> {
  if (h.toUserId && h.toUserId === h.fromUserId) throw new SelfHandoff('You cannot hand off to yourself; choose another person or persona.', { field: 'toUserId' })
  const holders = await asTx(q).roleAssignment.findMany({
    where: { organizationId: h.organizationId, programId: h.programId, personaKey: h.toPersonaKey, ...(h.toUserId ? { userId: h.toUserId } : {}), user: { deactivatedAt: null } },
    select: { userId: true },
  })
  const people = [...new Set(holders.map((x) => x.userId))]
  if (h.toUserId && people.length === 0) throw InvalidInput.of('toUserId', 'That person does not hold this persona in the program.')
  const others = people.filter((u) => u !== h.fromUserId)
  if (people.length > 0 && others.length === 0) throw new SelfHandoff('You are the only holder of this persona here; a hand-off to it would come back to you.', { field: 'toPersonaKey' })
  if (others.length === 0) throw InvalidInput.of('toPersonaKey', 'Nobody holds this persona in the program.')
  return others
}

/** Whether the caller is a recipient of `h` now (the named user, or a holder of its persona in the program). */
export function isRecipient(session: DomainContext['session'], h: HandoffRequest): boolean {
  if (h.fromUserId === session.userId) return false
  if (h.toUserId) return h.toUserId === session.userId
  return (session.programPersonas.get(h.programId) ?? []).includes(h.toPersonaKey)
}

/** The program's hand-offs, newest first, in cursor pages (GET P/handoffs), under program.handoffs.read. */
export function listHandoffs(ctx: Ctx, programId: string, args: PageArgs & { status?: HandoffRequest['status'][] | null }) {
  assertCan(ctx.session, 'program.handoffs.read', programId)
  return keysetPage(args, 'createdAt', (q) => ctx.tdb.handoffRequest.findMany({
    ...q, where: { programId, ...(args.status?.length ? { status: { in: args.status } } : {}), ...q.where },
  }))
}

/** One hand-off of a program the caller holds program.handoffs.read in; anything else is null. */
export async function getHandoff(ctx: Ctx, id: string) {
  if (!isId(id)) return null
  const h = await ctx.tdb.handoffRequest.findFirst({ where: { id } })
  return h && can(ctx.session, 'program.handoffs.read', h.programId) ? h : null
}

// ---- sending --------------------------------------------------------------------------------------------------------

export const HandoffDraft = z.object({
  programId: IdInput,
  toPersonaKey: z.enum(HANDOFF_PERSONAS),
  toUserId: IdInput.nullish(),
  kind: z.enum(HANDOFF_KINDS),
  linkedType: z.enum(LINKED_TYPES),
  linkedId: IdInput,
  messageMd: personText(20_000, 'Say what you hand off and why.'),
  threadId: IdInput.nullish(),
})
export type HandoffDraft = z.output<typeof HandoffDraft>

/** The linked record or thread, in the hand-off's program (a record of another program reads as not found). */
export async function assertLinked(q: AnyTx, d: Pick<HandoffDraft, 'programId' | 'linkedType' | 'linkedId'>) {
  const tx = asTx(q)
  const found = d.linkedType === 'program_record'
    ? await tx.programRecord.findFirst({ where: { id: d.linkedId, programId: d.programId }, select: { id: true, title: true } })
    : await tx.thread.findFirst({ where: { id: d.linkedId, programId: d.programId, private: false }, select: { id: true, title: true } })
  if (!found) throw new NotFoundError(d.linkedType === 'program_record' ? 'ProgramRecord' : 'Thread', { field: 'linkedId' })
  return found
}

/** The sent or accepted hand-off of the same linked item, persona and kind (what handoff_exists names), if any. */
export function openDuplicate(q: AnyTx, d: Pick<HandoffDraft, 'linkedType' | 'linkedId' | 'toPersonaKey' | 'kind'>) {
  return asTx(q).handoffRequest.findFirst({
    where: { linkedType: d.linkedType, linkedId: d.linkedId, toPersonaKey: d.toPersonaKey, kind: d.kind, status: { in: ['sent', 'accepted'] } },
    select: { id: true },
  })
}

/** Everything a send refuses before writing: self_handoff, no recipient, the linked item, handoff_exists. */
export async function checkSendable(q: AnyTx, ctx: Pick<DomainContext, 'session'>, d: HandoffDraft) {
  const recipients = await recipientsOf(q, { ...d, organizationId: ctx.session.organizationId, fromUserId: ctx.session.userId })
  const linked = await assertLinked(q, d)
  const dup = await openDuplicate(q, d)
  if (dup) throw new HandoffExists(dup.id, 'A hand-off of this item to this persona, of this kind, is sent or accepted already.')
  return { recipients, linked }
}

/**
 * Creates the hand-off in sent inside `w` (a person's send, or the approval of their twin's proposal): redacted
 * message, audit handoff.send, a `handoff` inbox item per recipient (each notified handoff_received, e-mailed through
 * the outbox). The partial unique index decides a race between two sends: the second answers handoff_exists.
 */
export async function sendHandoff(w: Write<AuditAction>, d: HandoffDraft, origin: { fromTwinId?: string | null; proposalId?: string | null } = {}): Promise<HandoffRequest> {
  const { session } = w.ctx
  const { recipients, linked } = await checkSendable(w.tx, w.ctx, d)
  const { text, redactions } = await redactMessage(w.tx, d.messageMd, { organizationId: session.organizationId, programId: d.programId, recipients })
  const rows = await insertHandoffUnlessOpen(w.tx, session.organizationId, session.userId, d, origin, text, redactions)
  if (!rows.length) {
    const dup = await openDuplicate(w.tx, d)
    throw new HandoffExists(dup?.id ?? '', 'A hand-off of this item to this persona, of this kind, is sent or accepted already.')
  }
  const h = await w.tx.handoffRequest.findFirstOrThrow({ where: { id: rows[0].id } })
  await w.audit('handoff.send' as AuditAction, { type: 'handoff', id: h.id }, {
    kind: h.kind, to_persona_key: h.toPersonaKey, to_user_id: h.toUserId, linked_type: h.linkedType, linked_id: h.linkedId,
    recipients: recipients.length, redactions, from_twin_id: h.fromTwinId, proposal_id: h.proposalId,
  }, { programId: h.programId })
  for (const userId of recipients) {
    await fileInboxItem(w.tx, {
      organizationId: h.organizationId, userId, programId: h.programId, kind: 'handoff', sourceType: 'handoff', sourceId: h.id,
      title: `Hand-off (${h.kind}): ${linked.title}`, priority: 'now',
    })
  }
  return h
}

/** POST P/handoffs: a person sends a hand-off directly (audit handoff.send). */
export const createHandoff = command({
  permission: 'program.handoffs.manage',
  input: HandoffDraft,
  program: (i) => i.programId,
  errors: [HandoffExists, SelfHandoff, NotFoundError],
  audit: ['handoff.send'],
  run: (w, input) => sendHandoff(w as Write<AuditAction>, input),
})

// ---- the party-scoped moves ------------------------------------------------------------------------------------------

const Move = z.object({ id: IdInput })
const loadHandoff = async (q: TenantTx, input: { id: string }, ctx: DomainContext) => {
  const h = await q.handoffRequest.findFirst({ where: { id: input.id } })
  if (!h || !ctx.session.programPersonas.has(h.programId)) throw new NotFoundError('Handoff', { field: 'id' })
  return h
}
const lock = async (w: Write<AuditAction>, id: string) => {
  await lockHandoff(w.tx, w.ctx.session.organizationId, id)
  return w.tx.handoffRequest.findFirstOrThrow({ where: { id } })
}
/**
 * A move by someone who is not its party: not_a_party, saying who may and what the caller can do instead (FORBIDDEN
 * named program.handoffs.manage, which the caller holds).
 */
function notParty(h: HandoffRequest, me: string, move: 'accept' | 'decline' | 'complete' | 'withdraw') {
  const field = { field: 'id' }
  if (move === 'withdraw') return new NotAParty('Only the person who sent this hand-off can withdraw it.', field)
  if (move === 'complete') return new NotAParty('Only the recipient who accepted this hand-off can complete it.', field)
  if (h.fromUserId === me) {
    return new NotAParty(`You sent this hand-off, so you cannot ${move} it: only a recipient can. Withdraw it if it is no longer needed.`, field)
  }
  const to = h.toUserId ? 'the person it names' : `whoever holds ${h.toPersonaKey} in this program`
  return new NotAParty(`This hand-off is addressed to ${to}, not to you: only a recipient can ${move} it.`, field)
}

/**
 * Accept: a recipient only. Of two recipients racing, the row lock lets one accept; the other is refused with
 * invalid_transition (from accepted). The same recipient accepting again answers the first outcome. Audits
 * handoff.accept (a triggerable action), closes every recipient's hand-off item, and starts a twin_handoff run of the
 * recipient's twin when it has an enabled hand-off trigger under an approved plan.
 */
export const acceptHandoff = command({
  permission: 'program.handoffs.manage',
  input: Move,
  load: loadHandoff,
  program: (_i, h) => h.programId,
  errors: [InvalidTransition, NotAParty],
  audit: ['handoff.accept'],
  async run(w, input) {
    const h = await lock(w as Write<AuditAction>, input.id)
    const me = w.ctx.session.userId
    if (!isRecipient(w.ctx.session, h) && h.decidedBy !== me) throw notParty(h, me, 'accept')
    if (h.status === 'accepted' && h.decidedBy === me) return { handoff: h, run: null } // accepted twice: the first outcome
    const now = new Date()
    const accepted = await transition(w.tx, handoffStatus, 'accept', h, { decidedBy: me, decidedAt: now, updatedAt: now })
    await w.audit('handoff.accept', { type: 'handoff', id: h.id }, { kind: h.kind, from_user_id: h.fromUserId, linked_type: h.linkedType, linked_id: h.linkedId })
    await closeItemsForSource(w.tx, { organizationId: h.organizationId, sourceType: 'handoff', sourceId: h.id }, me)
    return { handoff: accepted, run: await startHandoffRun(w.tx, accepted, me) }
  },
})

/** The twin_handoff run of the accepting person's twin, when it has an enabled hand-off trigger under an approved plan. */
async function startHandoffRun(tx: AnyTx, h: HandoffRequest, userId: string) {
  const trigger = await asTx(tx).twinTrigger.findFirst({
    where: {
      organizationId: h.organizationId, programId: h.programId, kind: 'handoff', enabled: true, standingPlanApprovedAt: { not: null },
      twin: { userId, status: 'active' },
    },
    orderBy: { createdAt: 'asc' },
  })
  if (!trigger) return null
  const { run } = await createTwinRun(tx, {
    organizationId: h.organizationId, programId: h.programId, twinId: trigger.twinId, triggerId: trigger.id,
    kind: 'twin_handoff', initiatedBy: 'handoff', priority: trigger.priority, targetId: h.id,
  })
  await asTx(tx).twinTrigger.update({ where: { id: trigger.id }, data: { lastFiredAt: new Date(), fireCount: { increment: 1 } } })
  return run
}

/** Decline: a recipient only, with a reason ('Declining needs a reason; it is stored as evaluation data.'). */
export const declineHandoff = command({
  permission: 'program.handoffs.manage',
  input: Move.extend({ reason: personText(2000).nullish() }),
  load: loadHandoff,
  program: (_i, h) => h.programId,
  errors: [InvalidTransition, ReasonRequired, NotAParty],
  audit: ['handoff.decline'],
  async run(w, input) {
    const h = await lock(w as Write<AuditAction>, input.id)
    const me = w.ctx.session.userId
    if (!isRecipient(w.ctx.session, h) && h.decidedBy !== me) throw notParty(h, me, 'decline')
    if (h.status === 'declined' && h.decidedBy === me) return h // declined twice: the first outcome
    if (!input.reason?.trim()) throw new ReasonRequired(TWINS.declineNeedsReason, { field: 'reason' })
    const now = new Date()
    const declined = await transition(w.tx, handoffStatus, 'decline', h, { decidedBy: me, decidedAt: now, reason: input.reason, updatedAt: now })
    // evaluation data: the reason rates the hand-off, never a person
    await w.audit('handoff.decline', { type: 'handoff', id: h.id }, { kind: h.kind, from_user_id: h.fromUserId, from_twin_id: h.fromTwinId, reason: input.reason })
    await closeItemsForSource(w.tx, { organizationId: h.organizationId, sourceType: 'handoff', sourceId: h.id }, me)
    return declined
  },
})

/** Complete: the recipient who accepted it only. */
export const completeHandoff = command({
  permission: 'program.handoffs.manage',
  input: Move,
  load: loadHandoff,
  program: (_i, h) => h.programId,
  errors: [InvalidTransition, NotAParty],
  audit: ['handoff.complete'],
  async run(w, input) {
    const h = await lock(w as Write<AuditAction>, input.id)
    const me = w.ctx.session.userId
    if (h.status === 'accepted' ? h.decidedBy !== me : !isRecipient(w.ctx.session, h) && h.decidedBy !== me) throw notParty(h, me, 'complete')
    if (h.status === 'done' && h.decidedBy === me) return h
    const now = new Date()
    const done = await transition(w.tx, handoffStatus, 'complete', h, { updatedAt: now })
    await w.audit('handoff.complete', { type: 'handoff', id: h.id }, { kind: h.kind, from_user_id: h.fromUserId })
    return done
  },
})

/** Withdraw: the sender only, while sent or accepted; the recipients' open items close. */
export const withdrawHandoff = command({
  permission: 'program.handoffs.manage',
  input: Move,
  load: loadHandoff,
  program: (_i, h) => h.programId,
  errors: [InvalidTransition, NotAParty],
  audit: ['handoff.withdraw'],
  async run(w, input) {
    const h = await lock(w as Write<AuditAction>, input.id)
    const me = w.ctx.session.userId
    if (h.fromUserId !== me) throw notParty(h, me, 'withdraw')
    if (h.status === 'withdrawn') return h
    const now = new Date()
    const withdrawn = await transition(w.tx, handoffStatus, 'withdraw', h, { updatedAt: now })
    await w.audit('handoff.withdraw', { type: 'handoff', id: h.id }, { kind: h.kind, previous: h.status })
    await closeItemsForSource(w.tx, { organizationId: h.organizationId, sourceType: 'handoff', sourceId: h.id }, me)
    return withdrawn
  },
})
