// Owns proposals: filing one (fileProposal, what the twins' tool server calls), its basis and basis_hash, and
// reading it back as a card. A proposal is stored without a table of its own: a detached `write_approval` run
// interrupt whose question holds the change, the basis and its hash; an `artifacts` row for the agent-generated
// draft; a `tool_calls` row with basis_hash when a twin filed it; and a `decision` inbox item for the person.
import { z } from 'zod'
import type { RunInterrupt } from '../../generated/prisma/client'
import { command, type DomainContext } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { InvalidInput, NotFoundError } from '../../core/errors'
import { IdInput, isId } from '../../core/text'
import type { PermissionKey } from '../../core/permissions'
import { FIXED_PHRASES, TWINS } from '../../core/text'
import { decisionFooter, delegationLine } from '../../core/text'
import { PERSONA_NAMES, workbenchRole } from '../../core/identity'
import type { ProgramPersona } from '../../core/permissions'
import { RECORD_TYPES, currentVersions, decidePermission, parseRecordChange, type RecordChange, type RecordTypeKey } from '../records'
import { canonicalSha256 } from '../skills'
import { fileInboxItem } from '../inbox'
import { admitFiling } from '../inbox'
import { routeDecision } from '../collaboration'
import { checkSendable, HandoffDraft } from '../collaboration'
import { redactSecrets } from '../../core/text'
import { HandoffExists, SelfHandoff } from '../../core/errors'
import type { ProposalLint } from './proposal-lint'
import { expiresAtFor } from '../twins'
import { openProposalLike } from './sql'
import { batchingFor } from '../inbox'

/** A twin proposal waits its twin's expiry_hours (72 unless set; twin-expiry.ts), then expires unwritten. */
export { DEFAULT_EXPIRY_HOURS as PROPOSAL_EXPIRY_HOURS } from '../twins'

export type Outcome = 'approved' | 'approved_with_edits' | 'declined'

/** What a write_approval interrupt of a proposal asks (run_interrupts.question). */
export interface ProposalQuestion {
  type: 'proposal'
  programId: string
  recordType: string
  title: string
  change: RecordChange
  /** Exactly the record versions the proposal was based on, sorted by record id. */
  basis: { recordId: string; version: number }[]
  basisHash: string
  draftArtifactId: string
  /** workingAs: what the twin worked as when it filed (the run's workbench role, or the persona of its neutral
   *  harness); absent on proposals filed before runs recorded their harness, and on a person's own proposals. */
  proposer: { userId: string; name: string; twinId: string | null; workingAs?: string | null }
  toolCallId: string | null
  /** A console.propose_handoff proposal: the hand-off its author's approval sends (recordType 'handoff'). */
  handoff?: HandoffDraft
  /** The assertion lint run before filing (every evidence.propose_*; proposal-lint.ts); absent on other proposals. */
  lint?: ProposalLint
}

/** How it was answered (run_interrupts.answer). The decline reason is evaluation data, never used to rate people. */
export interface ProposalAnswer {
  outcome: Outcome
  decidedByUserId: string
  decidedByName: string
  decidedAt: string
  edits?: Record<string, unknown> | null
  reason?: { code: string; text: string } | null
  recordId?: string | null
  version?: number | null
  signatureId?: string | null
  approvalId?: string | null
  batchId?: string | null
  /** Decided by a delegate: the person the item was routed from, and their name (the decision record's line). */
  delegatedFromUserId?: string | null
  delegatedFromName?: string | null
  /** The hand-off an approved console.propose_handoff proposal sent. */
  handoffId?: string | null
  /** The decider's note ('What you changed and why'), exactly as written; absent on decisions recorded before notes were kept. */
  note?: string | null
  /** What was proposed and what was approved (null when declined), recorded when deciding: the difference stays readable. */
  proposed?: { title: string; draft: string; body: string | null } | null
  approved?: { title: string; draft: string; body: string | null } | null
}

/** The hash of exactly these record versions: sha256 of canonical JSON of the (recordId, version) pairs sorted by id. */
export function basisHash(basis: ReadonlyMap<string, number> | readonly { recordId: string; version: number }[]): { basis: ProposalQuestion['basis']; hash: string } {
  const pairs = (basis instanceof Map ? [...basis].map(([recordId, version]) => ({ recordId, version })) : [...(basis as ProposalQuestion['basis'])])
    .sort((a, b) => (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0))
  return { basis: pairs, hash: canonicalSha256(pairs.map((p) => [p.recordId, p.version])) }
}

/** The basis as it stands now: a record that was deleted or moved away reads as version 0, so the hash differs. */
export async function currentBasis(q: TenantTx, question: Pick<ProposalQuestion, 'basis'>) {
  return basisOf(question, await currentVersions(q, question.basis.map((b) => b.recordId)))
}

/** The basis hash from current versions read already (a record no longer there counts as version 0). */
function basisOf(question: Pick<ProposalQuestion, 'basis'>, versions: Map<string, number>) {
  return basisHash(question.basis.map((b) => ({ recordId: b.recordId, version: versions.get(b.recordId) ?? 0 })))
}

/** The record a change targets, with its program and type; null when the change creates one. */
async function targetOf(q: TenantTx, change: RecordChange) {
  if (change.kind === 'create') return null
  const record = await q.programRecord.findFirst({ where: { id: change.recordId }, select: { id: true, programId: true, recordType: true, title: true } })
  if (!record) throw new NotFoundError('ProgramRecord', { field: 'change.recordId' })
  return record
}

/** The permission a proposal's decision needs: the record type's approve key where one exists, else its manage key. */
export function decideKey(recordType: string): PermissionKey {
  return decidePermission(RECORD_TYPES[recordType as RecordTypeKey])
}

/** The same for a proposal's question: a hand-off proposal is decided under program.handoffs.manage. */
export const decideKeyOf = (q: Pick<ProposalQuestion, 'recordType' | 'handoff'>): PermissionKey => (q.handoff ? 'program.handoffs.manage' : decideKey(q.recordType))

/** Filing needs what writing the record needs: the record type's manage key (a twin acts under its person's keys). */
export function fileKey(recordType: string): PermissionKey {
  return RECORD_TYPES[recordType as RecordTypeKey].permissions.manage
}

/** parseRecordChange with the issues' fields under `prefix` (change.fields.x, edits.fields.x). */
export function parseChangeAt(prefix: string, raw: unknown, recordType?: string): RecordChange {
  try { return parseRecordChange(raw, recordType as RecordTypeKey | undefined) } catch (e) {
    if (e instanceof InvalidInput) throw new InvalidInput(e.issues.map((i) => ({ field: i.field ? `${prefix}.${i.field}` : prefix, message: i.message })))
    throw e
  }
}

const FileInput = z.object({
  runId: IdInput,
  change: z.unknown(),
  basisRecordIds: z.array(IdInput).max(100).default([]),
  draft: z.string().trim().min(1).max(20_000),
  twinId: IdInput.nullish(),
  /** The tool that filed it (plans.propose_plan_change, ...), written on the tool_calls row of a twin's proposal. */
  tool: z.string().max(200).nullish(),
  /** The assertion lint the tool ran first in this transaction (evidence.propose_*), stored with the proposal. */
  lint: z.custom<ProposalLint>((v) => v != null && typeof v === 'object').nullish(),
})

/**
 * Files a proposal for the context's person (the twin's person when a twin files it): validates the change,
 * pins the basis (the target record is always part of it), and writes the draft artifact, the interrupt, the
 * tool call (twin proposals), the decision inbox item (announced live) and audit proposal.file in one transaction.
 */
export const fileProposal = command({
  input: FileInput,
  async load(q, input) {
    let change = parseChangeAt('change', input.change)
    const run = await q.agentRun.findFirst({ where: { id: input.runId } })
    if (!run) throw new NotFoundError('AgentRun', { field: 'runId' })
    const target = await targetOf(q, change)
    // An update's typed fields are checked against the type of the record it changes.
    if (target && change.kind === 'update') change = parseChangeAt('change', input.change, target.recordType)
    const programId = target?.programId ?? (change as Extract<RecordChange, { kind: 'create' }>).programId
    const recordType = target?.recordType ?? (change as Extract<RecordChange, { kind: 'create' }>).recordType
    if (run.programId !== programId) throw InvalidInput.of('runId', 'The run belongs to another program than the change.')
    const ids = [...new Set([...input.basisRecordIds, ...(target ? [target.id] : [])])]
    const versions = await currentVersions(q, ids)
    const inProgram = ids.length ? await q.programRecord.findMany({ where: { id: { in: ids }, programId }, select: { id: true } }) : []
    const missing = ids.filter((id) => !versions.has(id) || !inProgram.some((r) => r.id === id))
    if (missing.length) throw InvalidInput.of('basisRecordIds', `Not records of this program: ${missing.join(', ')}`)
    const title = ('title' in change && change.title) || target?.title || recordType
    return { change, run, programId, recordType, title, ids }
  },
  permission: (_i, t) => fileKey(t.recordType),
  program: (_i, t) => t.programId,
  audit: ['proposal.file'],
  async run(w, input, t) {
    const { session, actor } = w.ctx
    const twinId = actor.type === 'twin' ? actor.twinId : input.twinId ?? null
    // A twin files nothing past backpressure; the lock it takes orders the person's filings until this commits.
    if (twinId) await admitFiling(w.tx, session.userId, session.organizationId)
    // Read in the write's transaction, so the hash is of the versions this proposal really saw.
    const { basis, hash } = basisHash(await currentVersions(w.tx, t.ids))
    // A twin never files a second open proposal of the same kind on the same basis for the same person: under the
    // person's filing lock (taken by admitFiling above, held to commit) the one already waiting is the answer.
    if (twinId) {
      const waiting = await openProposalLike(w.tx, session.organizationId, {
        userId: session.userId, programId: t.programId, recordType: t.recordType, changeKind: t.change.kind,
        recordId: t.change.kind === 'create' ? null : t.change.recordId, title: t.title, basisHash: hash,
      })
      if (waiting) {
        return { alreadyWaiting: true, proposalId: waiting.id, title: waiting.title, basisHash: hash, inboxItemId: waiting.inboxItemId ?? '', draftArtifactId: waiting.draftArtifactId, toolCallId: null }
      }
    }
    const draft = await w.tx.artifact.create({
      data: {
        organizationId: session.organizationId, programId: t.programId, runId: t.run.id, kind: 'draft', agentGenerated: twinId !== null,
        content: { text: input.draft, label: FIXED_PHRASES.agentGeneratedDraft, recordType: t.recordType }, createdByUserId: session.userId,
      },
    })
    const toolCall = twinId
      ? await w.tx.toolCall.create({
        data: {
          organizationId: session.organizationId, programId: t.programId, runId: t.run.id, userId: session.userId,
          tool: input.tool ?? `${t.recordType.split('.')[0]}.propose_record_change`, status: 'ok', basisHash: hash,
          arguments: { change: t.change, basisRecordIds: t.ids } as object, resultArtifactId: draft.id,
        },
      })
      : null
    const question: ProposalQuestion = {
      type: 'proposal', programId: t.programId, recordType: t.recordType, title: t.title, change: t.change, basis, basisHash: hash,
      draftArtifactId: draft.id, proposer: { userId: session.userId, name: session.name, twinId, workingAs: twinId ? workingAsOf(t.run) : null }, toolCallId: toolCall?.id ?? null,
      ...(input.lint ? { lint: input.lint } : {}),
    }
    const expiresAt = await expiresAtFor(w.tx, twinId)
    // Detached: the run goes on (and may succeed) while the proposal waits for a person.
    const interrupt = await w.tx.runInterrupt.create({
      data: { organizationId: session.organizationId, runId: t.run.id, kind: 'write_approval', detached: true, question: question as object, expiresAt },
    })
    // Routed one hop under an active delegation of the person (delegated_from_user_id on the item).
    const route = await routeDecision(w.tx, { organizationId: session.organizationId, userId: session.userId, programId: t.programId })
    // A digest-priority run's filings wait for the twin's next digest moment, batched under its key (inbox-batches.ts).
    const batching = twinId ? await batchingFor(w.tx, t.run) : { priority: 'now' as const, batchKey: null }
    const item = await fileInboxItem(w.tx, {
      organizationId: session.organizationId, userId: route.userId, programId: t.programId, kind: 'decision',
      sourceType: 'proposal', sourceId: interrupt.id, interruptId: interrupt.id, title: t.title, dueAt: expiresAt, twinId,
      priority: batching.priority, batchKey: batching.batchKey, triggerId: t.run.triggerId ?? null,
      delegatedFromUserId: route.delegatedFromUserId,
    })
    await w.audit('proposal.file', { type: 'proposal', id: interrupt.id }, {
      record_type: t.recordType, change: t.change.kind, basis_hash: hash, run_id: t.run.id,
      ...(input.lint ? { lint_tool_call_id: input.lint.toolCallId, uncited_interpretations: input.lint.uncited.length } : {}),
    })
    return { alreadyWaiting: false, proposalId: interrupt.id, title: t.title, basisHash: hash, inboxItemId: item.id, draftArtifactId: draft.id, toolCallId: toolCall?.id ?? null }
  },
})

const FileHandoffInput = z.object({ runId: IdInput, draft: HandoffDraft, twinId: IdInput.nullish() })

/**
 * console.propose_handoff: the twin proposes a hand-off; nothing is sent. What a send would refuse is refused now
 * (self_handoff, handoff_exists, no recipient, the linked item); the proposal is a detached write_approval interrupt
 * (question.handoff) with an agent-generated draft and a decision item for the author only: a hand-off goes out in its
 * author's name, so it is never routed under delegation and only the author may approve it (bound_user_only).
 * Approval sends it (decisions.ts, audit handoff.send); the linked record, when it is one, is the proposal's basis.
 */
export const fileHandoffProposal = command({
  input: FileHandoffInput,
  async load(q, input) {
    const run = await q.agentRun.findFirst({ where: { id: input.runId } })
    if (!run) throw new NotFoundError('AgentRun', { field: 'runId' })
    if (run.programId !== input.draft.programId) throw InvalidInput.of('runId', 'The run belongs to another program than the hand-off.')
    return run
  },
  permission: 'program.handoffs.manage',
  program: (i) => i.draft.programId,
  errors: [HandoffExists, SelfHandoff],
  audit: ['proposal.file'],
  async run(w, input, run) {
    const { session, actor } = w.ctx
    const twinId = actor.type === 'twin' ? actor.twinId : input.twinId ?? null
    if (twinId) await admitFiling(w.tx, session.userId, session.organizationId)
    // Secrets never reach the proposal either; the recipients' read check runs again when it is sent.
    const draft: HandoffDraft = { ...input.draft, messageMd: redactSecrets(input.draft.messageMd).text }
    const { linked } = await checkSendable(w.tx, w.ctx, draft)
    const { basis, hash } = basisHash(draft.linkedType === 'program_record' ? await currentVersions(w.tx, [draft.linkedId]) : [])
    const title = `Hand-off to ${draft.toPersonaKey.replace(/_/g, ' ')} (${draft.kind}): ${linked.title}`
    const artifact = await w.tx.artifact.create({
      data: {
        organizationId: session.organizationId, programId: draft.programId, runId: run.id, kind: 'draft', agentGenerated: twinId !== null,
        content: { text: draft.messageMd, label: FIXED_PHRASES.agentGeneratedDraft, recordType: 'handoff' }, createdByUserId: session.userId,
      },
    })
    const question: ProposalQuestion = {
      type: 'proposal', programId: draft.programId, recordType: 'handoff', title,
      change: { kind: 'handoff', toPersonaKey: draft.toPersonaKey, toUserId: draft.toUserId ?? null, handoffKind: draft.kind, linkedType: draft.linkedType, linkedId: draft.linkedId } as unknown as RecordChange,
      basis, basisHash: hash, draftArtifactId: artifact.id, proposer: { userId: session.userId, name: session.name, twinId }, toolCallId: null, handoff: draft,
    }
    const expiresAt = await expiresAtFor(w.tx, twinId)
    const interrupt = await w.tx.runInterrupt.create({
      data: { organizationId: session.organizationId, runId: run.id, kind: 'write_approval', detached: true, question: question as object, expiresAt },
    })
    const item = await fileInboxItem(w.tx, {
      organizationId: session.organizationId, userId: session.userId, programId: draft.programId, kind: 'decision',
      sourceType: 'proposal', sourceId: interrupt.id, interruptId: interrupt.id, title, dueAt: expiresAt, priority: 'now', twinId,
    })
    await w.audit('proposal.file', { type: 'proposal', id: interrupt.id }, { record_type: 'handoff', change: 'handoff', basis_hash: hash, run_id: run.id, handoff_kind: draft.kind, to_persona_key: draft.toPersonaKey })
    return { proposalId: interrupt.id, basisHash: hash, inboxItemId: item.id, draftArtifactId: artifact.id }
  },
})

export interface ProposalView {
  id: string
  interrupt: RunInterrupt
  question: ProposalQuestion
  answer: ProposalAnswer | null
  status: 'open' | 'decided' | 'expired'
  stale: boolean
  currentBasisHash: string
  /** The card's fixed text: 'Changed since proposed' when stale, 'Expired, nothing written' when expired. */
  card: string | null
  /** The decision record: the proposal footer and, decided under delegation, the delegation line (one per line). */
  footer: string | null
  /** 'Routed under delegation from <Name>; decided by <Name> in their own right.' when a delegate decided it. */
  delegation: string | null
}

export const asQuestion = (i: RunInterrupt) => i.question as unknown as ProposalQuestion
export const isProposal = (i: RunInterrupt | null): i is RunInterrupt => !!i && i.kind === 'write_approval' && (i.question as { type?: string })?.type === 'proposal'

/** What a twin run worked as: its workbench role's name, or under a neutral persona harness the persona's name. */
export function workingAsOf(run: { harnessKey?: string | null; workbenchRoleKey?: string | null }): string | null {
  const role = run.workbenchRoleKey ? workbenchRole(run.workbenchRoleKey) : undefined
  if (role) return role.name
  return run.harnessKey && run.harnessKey in PERSONA_NAMES ? PERSONA_NAMES[run.harnessKey as ProgramPersona] : null
}

// Composed in core/text/footers.ts, the one place both a decided proposal's footer and a record version's footer are made.
export { decisionFooter, type DecisionFooterParts } from '../../core/text'

/**
 * The footer of every decision on a twin's proposal, approved or declined (the specification's record footer applies to
 * every decision); null while undecided and for a person's own proposal (no twin proposed it).
 */
export const footerOf = (q: ProposalQuestion, a: ProposalAnswer | null) =>
  a && q.proposer.twinId
    ? decisionFooter({ proposerName: q.proposer.name, workingAs: q.proposer.workingAs ?? null, decidedByName: a.decidedByName })
    : null

/** The decision record's lines: the footer above (whatever form it takes), then the delegation line when there is one. */
export const decisionRecordOf = (q: ProposalQuestion, a: ProposalAnswer | null) => [footerOf(q, a), delegationLine(a)].filter(Boolean).join('\n') || null

/**
 * A proposal as a card, its staleness computed now. `versions` are the current versions of its basis records when the
 * caller read them already for many proposals at once (getProposals); otherwise they are read here.
 */
export async function viewProposal(q: TenantTx, interrupt: RunInterrupt, now = new Date(), versions?: Map<string, number>): Promise<ProposalView> {
  const question = asQuestion(interrupt)
  const answer = (interrupt.answer as unknown as ProposalAnswer | null) ?? null
  const current = versions ? basisOf(question, versions) : await currentBasis(q, question)
  const stale = current.hash !== question.basisHash
  const status = answer ? 'decided' : interrupt.expiresAt && interrupt.expiresAt <= now ? 'expired' : 'open'
  const card = status === 'expired' ? FIXED_PHRASES.expiredNothingWritten : status === 'open' && stale ? TWINS.changedSinceProposed : null
  return { id: interrupt.id, interrupt, question, answer, status, stale, currentBasisHash: current.hash, card, footer: decisionRecordOf(question, answer), delegation: delegationLine(answer) }
}

/** A proposal the caller may read: a member of its program in the caller's organisation; anything else is null. */
export async function getProposal(ctx: Pick<DomainContext, 'session' | 'tdb'>, id: string): Promise<ProposalView | null> {
  if (!isId(id)) return null
  const interrupt = await ctx.tdb.runInterrupt.findFirst({ where: { id } })
  if (!isProposal(interrupt) || !ctx.session.programPersonas.has(asQuestion(interrupt).programId)) return null
  return viewProposal(ctx.tdb, interrupt)
}

/**
 * The proposals of many ids at once, in their order (null where getProposal answers null): one query for the
 * interrupts and one for the current versions of every basis record, however many proposals (an inbox page, the
 * role home's decisions). What the InboxItem.proposal loader batches.
 */
export async function getProposals(ctx: Pick<DomainContext, 'session' | 'tdb'>, ids: readonly string[]): Promise<(ProposalView | null)[]> {
  const valid = [...new Set(ids.filter(isId))]
  const rows = valid.length ? await ctx.tdb.runInterrupt.findMany({ where: { id: { in: valid } } }) : []
  const visible = new Map(rows.filter((i) => isProposal(i) && ctx.session.programPersonas.has(asQuestion(i).programId)).map((i) => [i.id, i]))
  const versions = await currentVersions(ctx.tdb, [...visible.values()].flatMap((i) => asQuestion(i).basis.map((b) => b.recordId)))
  const now = new Date()
  return Promise.all(ids.map((id) => {
    const interrupt = visible.get(id)
    return interrupt ? viewProposal(ctx.tdb, interrupt, now, versions) : null
  }))
}

/**
 * The decisions taken on one record, newest first: every decided proposal whose change targets it (an update or a
 * status decision, approved or declined) or whose approval created it, under the same rule as getProposal (a member of
 * its program in the caller's organisation). What the record page's decisions section reads, declines included.
 */
/** The most decisions one record's page lists at once. */
const RECORD_DECISIONS_MAX = 50

export async function getRecordDecisions(ctx: Pick<DomainContext, 'session' | 'tdb'>, recordId: string, first = 20): Promise<ProposalView[]> {
  // Refused, never clamped: a page size out of range is the caller's mistake to see (as pageSize() does for cursor pages).
  if (!Number.isInteger(first) || first < 1 || first > RECORD_DECISIONS_MAX) {
    throw InvalidInput.of('first', `Ask for 1 to ${RECORD_DECISIONS_MAX} items a page (default 20).`)
  }
  if (!isId(recordId)) return []
  const rows = await ctx.tdb.runInterrupt.findMany({
    where: {
      kind: 'write_approval', answeredAt: { not: null },
      OR: [{ question: { path: ['change', 'recordId'], equals: recordId } }, { answer: { path: ['recordId'], equals: recordId } }],
    },
    orderBy: [{ answeredAt: 'desc' }, { id: 'desc' }], take: first,
  })
  const visible = rows.filter((i) => isProposal(i) && ctx.session.programPersonas.has(asQuestion(i).programId))
  const now = new Date()
  return Promise.all(visible.map((i) => viewProposal(ctx.tdb, i, now)))
}

/** The draft artifact of a proposal. */
export function getDraft(ctx: Pick<DomainContext, 'tdb'>, view: ProposalView) {
  return ctx.tdb.artifact.findFirst({ where: { id: view.question.draftArtifactId } })
}
