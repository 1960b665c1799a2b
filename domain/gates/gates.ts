// Owns stage gates (twins document, R4): the only writer of programs.current_stage_id. The operations open, ready,
// reopen, review, close and supersede, each one command in one transaction, audited stage_gate.*; the transition
// table is core/states/twins.ts (stageGateStatus). Review and close are signed through the one signatures
// implementation (workbench domain/signatures.ts); close moves the program's stage in the same transaction, through
// the database trigger programs_stage_via_gate, which refuses every other writer (see the migration and docs/console-developers.md, Stage gates).
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Program, ProgramStage, Signature, StageGate } from '../../generated/prisma/client'
import { command, type DomainContext, type Write } from '../../core/jobs'
import type { TenantTx } from '../../core/database'
import { asClosingGate, lockGate, lockProgram } from './sql'
import {
  FreshSignInRequired, GateIncomplete, GateStageRestricted, InvalidTransition, NotFoundError, ReviewerRoleRequired, SameSigner,
} from '../../core/errors'
import { IdInput } from '../../core/text'
import { gateClosedBy } from '../../core/text'
import { hasPermission } from '../../core/permissions'
import { currentPersonaVersion } from '../../core/identity'
import { can, type Session } from '../../core/identity'
import { transition } from '../../core/states'
import { stageGateStatus } from '../../core/states'
import { notifyPerson } from '../../core/jobs'
import { publish } from '../../core/database'
import { keysetPage, type PageArgs } from '../../core/database'
import { manifestation, signTarget } from '../signatures'
import { closeItemsForSource, fileInboxItem } from '../inbox'
import {
  RequirementsInput, asRequiredRecords, card, computeReadiness, initialRequired, missingOf, type RequiredRecords,
} from './gate-readiness'

export const STAGE_GATE_STATUSES = stageGateStatus.states
export type StageGateStatus = StageGate['status']

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

// ---- Reads --------------------------------------------------------------------------------------------------------

/** A gate the caller may read (progress.stages.read in its program); anything else is not found, never forbidden. */
async function loadGate(q: TenantTx, session: Session, id: string, opts: { lock?: boolean } = {}): Promise<StageGate> {
  if (opts.lock) {
    // Serialises writes on one gate: of two people closing at once, the second waits and then sees it closed.
    await lockGate(q, session.organizationId, id)
  }
  const gate = await q.stageGate.findFirst({ where: { id } })
  if (!gate || !can(session, 'progress.stages.read', gate.programId)) throw new NotFoundError('StageGate', { field: 'id' })
  return gate
}

export async function getStageGate(ctx: Ctx, id: string): Promise<StageGate | null> {
  if (!IdInput.safeParse(id).success) return null
  try { return await loadGate(ctx.tdb, ctx.session, id) } catch (e) { if (e instanceof NotFoundError) return null; throw e }
}

/** A program's gates, newest first, in cursor pages (progress.stages.read). */
export function listStageGates(ctx: Ctx, programId: string, args: PageArgs & { status?: StageGateStatus[] | null } = {}) {
  if (!IdInput.safeParse(programId).success || !can(ctx.session, 'progress.stages.read', programId)) throw new NotFoundError('Program', { field: 'programId' })
  return keysetPage(args, 'openedAt', (q) => ctx.tdb.stageGate.findMany({
    ...q, where: { programId, ...(args.status?.length ? { status: { in: args.status } } : {}), ...q.where },
  }))
}

/** The latest readiness_brief of a gate (GET .../brief), or null before the first stage_readiness run wrote one. */
export async function stageGateBrief(ctx: Ctx, id: string) {
  const gate = await getStageGate(ctx, id)
  if (!gate?.briefArtifactId) return null
  return ctx.tdb.artifact.findFirst({ where: { id: gate.briefArtifactId, kind: 'readiness_brief' } })
}

export const gateCard = (gate: Pick<StageGate, 'requiredRecords'>) => card(asRequiredRecords(gate.requiredRecords))

/** 'Stage gate reviewed by <Name> (reviewed) and closed by <Name> (approved)' on a closed gate; null before. */
export async function gateFooter(q: Ctx['tdb'], gate: StageGate): Promise<string | null> {
  if (gate.status !== 'closed' || !gate.reviewSignatureId || !gate.closeSignatureId) return null
  const sigs = await q.signature.findMany({ where: { id: { in: [gate.reviewSignatureId, gate.closeSignatureId] } } })
  const review = sigs.find((s) => s.id === gate.reviewSignatureId)
  const close = sigs.find((s) => s.id === gate.closeSignatureId)
  return review && close ? gateClosedBy(review.printedName, close.printedName) : null
}

export async function gateSignatures(q: Ctx['tdb'], gate: StageGate): Promise<(Signature & { manifestation: string })[]> {
  const sigs = await q.signature.findMany({ where: { targetType: 'stage_gate', targetId: gate.id }, orderBy: { signedAt: 'asc' } })
  return sigs.map((s) => ({ ...s, manifestation: manifestation(s) }))
}

// ---- The stage plan and gate_stage_restricted ---------------------------------------------------------------------

/**
 * gate_stage_restricted (our condition, docs/console-developers.md, Stage gates): a gate is for the program's current stage (a program
 * without one is at its first stage) and leads to the stage right after it in the program's stage plan
 * (program_stages by position); and a gate closes only while its stage is still the program's current stage.
 */
async function stagePlan(q: TenantTx, programId: string) {
  const [program, stages] = await Promise.all([
    q.program.findFirst({ where: { id: programId } }),
    q.programStage.findMany({ where: { programId }, orderBy: { position: 'asc' } }),
  ])
  if (!program) throw new NotFoundError('Program', { field: 'programId' })
  const current = stages.find((s) => s.id === program.currentStageId) ?? stages[0] ?? null
  const next = current ? stages[stages.indexOf(current) + 1] ?? null : null
  return { program, stages, current, next }
}

function assertStageAllowed(plan: { current: ProgramStage | null; next: ProgramStage | null; stages: ProgramStage[] }, stageId: string, nextStageId: string) {
  const known = (id: string) => plan.stages.some((s) => s.id === id)
  if (!known(stageId)) throw new NotFoundError('ProgramStage', { field: 'stageId' })
  if (!known(nextStageId)) throw new NotFoundError('ProgramStage', { field: 'nextStageId' })
  if (plan.current?.id !== stageId) {
    throw new GateStageRestricted(`A gate is opened for the program's current stage (${plan.current?.name ?? 'none'}).`, { field: 'stageId' })
  }
  if (plan.next?.id !== nextStageId) {
    throw new GateStageRestricted(plan.next ? `The stage plan allows only ${plan.next.name} after ${plan.current!.name}.` : `${plan.current!.name} is the last stage of the plan.`, { field: 'nextStageId' })
  }
}

// ---- Writes -------------------------------------------------------------------------------------------------------

const announce = (w: { tx: TenantTx }, gate: StageGate) =>
  publish(w.tx, 'stage_gate_readiness_changed', { id: gate.id, programId: gate.programId, organizationId: gate.organizationId })

const OpenInput = z.object({
  programId: IdInput,
  stageId: IdInput,
  nextStageId: IdInput,
  requiredRecords: RequirementsInput,
})

/** POST P/progress/stage-gates: opens version 1 (or the next version after a closed one) for the current stage. */
export const openStageGate = command({
  permission: 'progress.stages.manage',
  input: OpenInput,
  program: (input) => input.programId,
  audit: ['stage_gate.open'],
  errors: [GateStageRestricted, InvalidTransition, NotFoundError],
  async run(w, input) {
    if (!can(w.ctx.session, 'progress.stages.read', input.programId)) throw new NotFoundError('Program', { field: 'programId' })
    await lockProgram(w.tx, w.ctx.session.organizationId, input.programId)
    const plan = await stagePlan(w.tx, input.programId)
    assertStageAllowed(plan, input.stageId, input.nextStageId)
    const live = await w.tx.stageGate.findFirst({ where: { programId: input.programId, stageId: input.stageId, status: { not: 'closed' } } })
    if (live) throw new InvalidTransition(live.status, 'open', `A ${live.status} gate exists for this stage (version ${live.version}); supersede it instead.`, { field: 'stageId' })
    const last = await w.tx.stageGate.findFirst({ where: { programId: input.programId, stageId: input.stageId }, orderBy: { version: 'desc' } })
    const created = await w.tx.stageGate.create({
      data: {
        organizationId: w.ctx.session.organizationId, programId: input.programId, stageId: input.stageId, nextStageId: input.nextStageId,
        version: (last?.version ?? 0) + 1, requiredRecords: initialRequired(input.requiredRecords) as object, openedBy: w.ctx.session.userId,
      },
    })
    const gate = await storeReadiness(w.tx, created)
    await w.audit('stage_gate.open', { type: 'stage_gate', id: gate.id }, { stage_id: gate.stageId, next_stage_id: gate.nextStageId, version: gate.version, required: input.requiredRecords.length })
    await announce(w, gate)
    // The first readiness_brief is written by the worker's stage_readiness run, once this commits.
    await w.enqueue('stage_readiness_refresh', { gateId: gate.id }, { jobKey: `stage_readiness_refresh:${gate.id}` })
    return gate
  },
})

async function storeReadiness(tx: TenantTx, gate: StageGate): Promise<StageGate> {
  const required = await computeReadiness(tx, gate)
  return tx.stageGate.update({ where: { id: gate.id }, data: { requiredRecords: required as object } })
}

const GateId = z.object({ id: IdInput })
const lockedGate = (q: TenantTx, input: { id: string }, ctx: DomainContext) => loadGate(q, ctx.session, input.id)

/**
 * Commands on one gate lock its row first. A command that does not run inside a transaction yet (no `within`) loads
 * outside one, so these load again, locked, inside `run` (relock) before deciding anything.
 */
const relock = (w: { tx: TenantTx; ctx: DomainContext }, id: string) => loadGate(w.tx, w.ctx.session, id, { lock: true })

/** The people who can review a gate: active members of its program holding review.stage_reviews.approve now. */
async function reviewersOf(tx: TenantTx, gate: StageGate): Promise<string[]> {
  const rows = await tx.roleAssignment.findMany({ where: { programId: gate.programId }, select: { userId: true, personaKey: true } })
  const members = await tx.programMembership.findMany({ where: { programId: gate.programId, endedAt: null, user: { deactivatedAt: null } }, select: { userId: true } })
  const active = new Set(members.map((m) => m.userId))
  const byUser = new Map<string, string[]>()
  for (const r of rows) if (active.has(r.userId)) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.personaKey])
  const version = currentPersonaVersion()
  return [...byUser].filter(([, personas]) => hasPermission({ programPersonas: new Map([[gate.programId, personas]]), orgPersonas: [] }, 'review.stage_reviews.approve', gate.programId, version)).map(([u]) => u)
}

/**
 * POST .../ready: every required record present (recomputed now, under the row lock), else gate_incomplete naming
 * what is missing, nothing written. Then a stage inbox item and a stage_ready notification to each person who can
 * review it.
 */
export const markStageGateReady = command({
  permission: 'progress.stages.manage',
  input: GateId,
  load: lockedGate,
  program: (_i, gate) => gate.programId,
  audit: ['stage_gate.ready'],
  errors: [GateIncomplete, InvalidTransition],
  async run(w, input) {
    const gate = await relock(w, input.id)
    if (gate.status !== 'open') throw new InvalidTransition(gate.status, 'ready')
    const required = await computeReadiness(w.tx, gate)
    if (required.present < required.total) {
      const missing = missingOf(required)
      throw new GateIncomplete(`${card(required)}. Missing: ${missing.join('; ')}.`, { field: 'requiredRecords', missing })
    }
    const now = new Date()
    const ready = await transition(w.tx, stageGateStatus, 'ready', gate, { readyBy: w.ctx.session.userId, readyAt: now, requiredRecords: required as object })
    await w.audit('stage_gate.ready', { type: 'stage_gate', id: gate.id }, { present: required.present, total: required.total })
    const stage = await w.tx.programStage.findFirst({ where: { id: gate.stageId }, select: { name: true } })
    for (const userId of await reviewersOf(w.tx, gate)) {
      const item = await fileInboxItem(w.tx, {
        userId, organizationId: gate.organizationId, programId: gate.programId, kind: 'stage', sourceType: 'stage_gate', sourceId: gate.id,
        title: `Stage gate ready for review: ${stage?.name ?? 'stage'} (version ${gate.version})`, priority: 'now',
      })
      await notifyPerson(w.tx, {
        organizationId: gate.organizationId, programId: gate.programId, userId, kind: 'stage_ready',
        payload: { stage_gate_id: gate.id, inbox_item_id: item.id, card: card(required) },
      })
    }
    await announce(w, ready)
    return ready
  },
})

/** Reopen: a ready or reviewed gate goes back to open (its review signature stays in the trail, no longer the gate's). */
export const reopenStageGate = command({
  permission: 'progress.stages.manage',
  input: GateId.extend({ reason: personText(2000, 'say why the gate reopens') }),
  load: lockedGate,
  program: (_i, gate) => gate.programId,
  audit: ['stage_gate.reopen'],
  errors: [InvalidTransition],
  async run(w, input) {
    const gate = await relock(w, input.id)
    const reopened = await transition(w.tx, stageGateStatus, 'reopen', gate, { readyBy: null, readyAt: null, reviewSignatureId: null })
    await closeItemsForSource(w.tx, { organizationId: gate.organizationId, sourceType: 'stage_gate', sourceId: gate.id }, w.ctx.session.userId)
    const fresh = await storeReadiness(w.tx, reopened)
    await w.audit('stage_gate.reopen', { type: 'stage_gate', id: gate.id }, { from: gate.status, reason: input.reason, review_signature_id: gate.reviewSignatureId })
    await announce(w, fresh)
    return fresh
  },
})

const Signing = <M extends string>(meaning: M) => z.object({
  meaning: z.literal(meaning, { error: () => `this step is signed with the meaning ${meaning}` }),
})

/** Whether the session may sign a gate's review: review.stage_reviews.approve in its program (reviewStageGate's rule). */
const mayReviewGate = (session: Session, gate: Pick<StageGate, 'programId'>) => can(session, 'review.stage_reviews.approve', gate.programId)

/** The same person may not review and close a gate (closeStageGate's same_signer rule). */
const signedTheReview = (session: Session, review: { signerUserId: string } | null) => review?.signerUserId === session.userId

/** What the caller may do to a gate now, and when the next step is not theirs, why (in words, before they try). */
export interface GateViewerActions { markReady: boolean; review: boolean; close: boolean; reason: string | null }

/**
 * The gate's next step as the caller may take it, asked of the same checks the commands make (Command.permits, then
 * each command's own rule): mark ready (progress.stages.manage), review (review.stage_reviews.approve), close
 * (progress.stages.approve, by someone other than the reviewer). A closed gate has no next step.
 */
export async function gateViewerActions(ctx: Pick<DomainContext, 'session' | 'tdb'>, gate: StageGate): Promise<GateViewerActions> {
  const { session } = ctx
  const none: GateViewerActions = { markReady: false, review: false, close: false, reason: null }
  if (gate.status === 'open') {
    return markStageGateReady.permits(session, { id: gate.id }, gate)
      ? { ...none, markReady: true }
      : { ...none, reason: 'Marking a gate ready for review is for the program lead, the owner or the manufacturing specialist.' }
  }
  if (gate.status === 'ready') {
    return reviewStageGate.permits(session, { id: gate.id }, gate) && mayReviewGate(session, gate)
      ? { ...none, review: true }
      : { ...none, reason: 'Reviewing a gate is for a quality reviewer, the program lead or the owner.' }
  }
  if (gate.status === 'reviewed') {
    if (!closeStageGate.permits(session, { id: gate.id }, gate)) return { ...none, reason: 'Closing a gate is for the program lead or the owner.' }
    const review = gate.reviewSignatureId ? await ctx.tdb.signature.findFirst({ where: { id: gate.reviewSignatureId }, select: { signerUserId: true } }) : null
    return signedTheReview(session, review) ? { ...none, reason: 'You signed the review of this gate; another person closes it.' } : { ...none, close: true }
  }
  return none
}

/**
 * POST .../review (signature): review.stage_reviews.approve (reviewer_role_required otherwise) and a signature with the
 * meaning review. The checks all come first; the signature is written only once the transition succeeded.
 */
export const reviewStageGate = command({
  permission: 'progress.stages.read',
  input: GateId.extend({ signature: Signing('review'), comment: personText(2000).nullish() }),
  load: lockedGate,
  program: (_i, gate) => gate.programId,
  audit: ['stage_gate.review', 'signature.create'],
  errors: [ReviewerRoleRequired, InvalidTransition, FreshSignInRequired],
  async run(w, input) {
    const gate = await relock(w, input.id)
    if (!mayReviewGate(w.ctx.session, gate)) {
      throw new ReviewerRoleRequired('Reviewing a stage gate needs review.stage_reviews.approve (quality reviewer, program lead or owner).', { field: 'id' })
    }
    const now = new Date()
    await transition(w.tx, stageGateStatus, 'review', gate)
    const { signature } = await signTarget(w as unknown as Write<'signature.create' | 'approval.create'>, { programId: gate.programId, meaning: 'review', targetType: 'stage_gate', targetId: gate.id, at: now })
    const done = await w.tx.stageGate.update({ where: { id: gate.id }, data: { reviewSignatureId: signature!.id } })
    await closeItemsForSource(w.tx, { organizationId: gate.organizationId, sourceType: 'stage_gate', sourceId: gate.id }, w.ctx.session.userId)
    await w.audit('stage_gate.review', { type: 'stage_gate', id: gate.id }, { comment: input.comment ?? null }, { signatureId: signature!.id })
    await announce(w, done)
    return done
  },
})

/**
 * POST .../close (signature and approval): progress.stages.approve, someone other than the reviewer (same_signer),
 * the gate's stage still the program's current stage (gate_stage_restricted). In one transaction: the transition, the
 * signature (meaning approval) and the approval, then programs.current_stage_id := next_stage_id, which the trigger
 * programs_stage_via_gate admits only because app.stage_gate_close names this closed, signed gate.
 */
export const closeStageGate = command({
  permission: 'progress.stages.approve',
  input: GateId.extend({ signature: Signing('approval'), comment: personText(2000).nullish() }),
  load: lockedGate,
  program: (_i, gate) => gate.programId,
  audit: ['stage_gate.close', 'signature.create', 'approval.create'],
  errors: [SameSigner, GateStageRestricted, InvalidTransition, FreshSignInRequired],
  async run(w, input) {
    const gate = await relock(w, input.id)
    if (gate.status !== 'reviewed') throw new InvalidTransition(gate.status, 'closed')
    const review = gate.reviewSignatureId ? await w.tx.signature.findFirst({ where: { id: gate.reviewSignatureId } }) : null
    if (signedTheReview(w.ctx.session, review)) {
      throw new SameSigner('You signed the review of this gate; another person closes it.', { field: 'id' })
    }
    await lockProgram(w.tx, gate.organizationId, gate.programId)
    const plan = await stagePlan(w.tx, gate.programId)
    if (plan.current?.id !== gate.stageId) {
      throw new GateStageRestricted(`The program is no longer at this gate's stage (now ${plan.current?.name ?? 'none'}).`, { field: 'id' })
    }
    const now = new Date()
    await transition(w.tx, stageGateStatus, 'close', gate, { closedAt: now })
    const { signature, approval } = await signTarget(w as unknown as Write<'signature.create' | 'approval.create'>, {
      programId: gate.programId, meaning: 'approval', targetType: 'stage_gate', targetId: gate.id, at: now,
      approval: { decision: 'approved', comment: input.comment ?? null, details: { next_stage_id: gate.nextStageId } },
    })
    const closed = await w.tx.stageGate.update({ where: { id: gate.id }, data: { closeSignatureId: signature!.id, closeApprovalId: approval!.id } })
    await moveStage(w.tx, closed)
    await w.audit('stage_gate.close', { type: 'stage_gate', id: gate.id }, { from_stage_id: gate.stageId, to_stage_id: gate.nextStageId }, { signatureId: signature!.id })
    await announce(w, closed)
    return closed
  },
})

/** The only statement that writes programs.current_stage_id (see the trigger in the stage_gates migration). */
async function moveStage(tx: TenantTx, gate: StageGate): Promise<Program> {
  const [program] = await asClosingGate(tx, gate.id, () => tx.program.updateManyAndReturn({ where: { id: gate.programId }, data: { currentStageId: gate.nextStageId } }))
  return program
}

/**
 * Supersede: a gate that is not closed is replaced by a new version (supersedes_id naming it) with the given (or the
 * same) requirements and next stage; the old version is closed without a stage change, in the same transaction.
 */
export const supersedeStageGate = command({
  permission: 'progress.stages.manage',
  input: GateId.extend({ requiredRecords: RequirementsInput.optional(), nextStageId: IdInput.optional(), reason: personText(2000, 'say why') }),
  load: lockedGate,
  program: (_i, gate) => gate.programId,
  audit: ['stage_gate.supersede', 'stage_gate.open'],
  errors: [GateStageRestricted, InvalidTransition],
  async run(w, input) {
    const old = await relock(w, input.id)
    const plan = await stagePlan(w.tx, old.programId)
    const nextStageId = input.nextStageId ?? old.nextStageId
    assertStageAllowed(plan, old.stageId, nextStageId)
    const now = new Date()
    await transition(w.tx, stageGateStatus, 'supersede', old, { closedAt: now })
    const reqs = input.requiredRecords ?? asRequiredRecords(old.requiredRecords).items.map(({ key: _k, present: _p, found: _f, missing: _m, ...q }) => ({ ...q, label: q.label }))
    const created = await w.tx.stageGate.create({
      data: {
        organizationId: old.organizationId, programId: old.programId, stageId: old.stageId, nextStageId, version: old.version + 1,
        requiredRecords: initialRequired(RequirementsInput.parse(reqs)) as object, openedBy: w.ctx.session.userId, supersedesId: old.id,
      },
    })
    const gate = await storeReadiness(w.tx, created)
    await closeItemsForSource(w.tx, { organizationId: old.organizationId, sourceType: 'stage_gate', sourceId: old.id }, w.ctx.session.userId)
    await w.audit('stage_gate.supersede', { type: 'stage_gate', id: old.id }, { superseded_by: gate.id, from: old.status, reason: input.reason })
    await w.audit('stage_gate.open', { type: 'stage_gate', id: gate.id }, { stage_id: gate.stageId, next_stage_id: gate.nextStageId, version: gate.version, supersedes_id: old.id })
    await w.enqueue('stage_readiness_refresh', { gateId: gate.id }, { jobKey: `stage_readiness_refresh:${gate.id}` })
    await announce(w, gate)
    return { gate, superseded: await w.tx.stageGate.findFirstOrThrow({ where: { id: old.id } }) }
  },
})

export type { RequiredRecords }
