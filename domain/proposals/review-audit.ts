// Owns review_audit_reviews (twins document, R4): the monthly QA oversight summary of a program, counts and ids only
// (never titles, bodies, reasons or names), produced for a period from the audit trail and the signatures, kept as a
// server-written summary artifact, and accepted by a quality reviewer.
import { z } from 'zod'
import type { ReviewAuditReview } from '../../generated/prisma/client'
import { command, type DomainContext } from '../../core/jobs'
import { InvalidInput, InvalidTransition, NotFoundError, ReviewerRoleRequired } from '../../core/errors'
import { IdInput } from '../../core/text'
import type { TenantTx } from '../../core/database'
import { auditActionsInPeriod } from './sql'
import { can } from '../../core/identity'

/** Ids listed per group; the count is always complete. */
export const SUMMARY_ID_LIMIT = 500

export interface ReviewAuditSummary {
  period: { start: string; end: string }
  /** Audit rows of the program in the period, per action: how many and the ids of their targets. */
  actions: Record<string, { count: number; target_ids: string[] }>
  /** Signatures given in the program in the period, per meaning. */
  signatures: Record<string, { count: number; ids: string[] }>
  /** Stage gates of the program by status now, with the ids of those closed in the period. */
  stage_gates: { by_status: Record<string, number>; closed_in_period: string[] }
}

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date, YYYY-MM-DD')
const ProduceInput = z.object({
  programId: IdInput,
  /** Inclusive; default the first day of last month (UTC). */
  periodStart: Day.optional(),
  /** Exclusive; default the first day of this month (UTC). */
  periodEnd: Day.optional(),
})

function monthBefore(now: Date) {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
  return { start, end }
}

export async function summarise(q: TenantTx, organizationId: string, programId: string, start: Date, end: Date): Promise<ReviewAuditSummary> {
  const [actions, signatures, gates, closed] = await Promise.all([
    auditActionsInPeriod(q, organizationId, programId, start, end, SUMMARY_ID_LIMIT),
    q.signature.findMany({ where: { programId, signedAt: { gte: start, lt: end } }, select: { id: true, meaning: true }, orderBy: { signedAt: 'asc' } }),
    q.stageGate.groupBy({ by: ['status'], where: { programId }, _count: { _all: true } }),
    q.stageGate.findMany({ where: { programId, closedAt: { gte: start, lt: end } }, select: { id: true }, take: SUMMARY_ID_LIMIT }),
  ])
  const bySig: ReviewAuditSummary['signatures'] = {}
  for (const s of signatures) {
    const g = (bySig[s.meaning] ??= { count: 0, ids: [] })
    g.count++
    if (g.ids.length < SUMMARY_ID_LIMIT) g.ids.push(s.id)
  }
  return {
    period: { start: start.toISOString(), end: end.toISOString() },
    actions: Object.fromEntries(actions.map((a) => [a.action, { count: Number(a.n), target_ids: a.ids }])),
    signatures: bySig,
    stage_gates: { by_status: Object.fromEntries(gates.map((g) => [g.status, g._count._all])), closed_in_period: closed.map((g) => g.id) },
  }
}

/**
 * Produces the summary of a period (ours: Mutation.produceReviewAuditReview, under program.audit.read), one per
 * program and period: producing it again answers the one that exists (and refreshes it while not yet accepted).
 */
export const produceReviewAuditReview = command({
  permission: 'program.audit.read',
  input: ProduceInput,
  program: (input) => input.programId,
  audit: ['review_audit_review.create'],
  async run(w, input) {
    const dflt = monthBefore(new Date())
    const start = input.periodStart ? new Date(`${input.periodStart}T00:00:00Z`) : dflt.start
    const end = input.periodEnd ? new Date(`${input.periodEnd}T00:00:00Z`) : dflt.end
    if (!(end > start)) throw InvalidInput.of('periodEnd', 'the period ends after it starts')
    if (end.getTime() - start.getTime() > 92 * 86400_000) throw InvalidInput.of('periodEnd', 'a period is at most three months')
    const existing = await w.tx.reviewAuditReview.findFirst({ where: { programId: input.programId, periodStart: start, periodEnd: end } })
    if (existing?.acceptedAt) return existing
    const summary = await summarise(w.tx, w.ctx.session.organizationId, input.programId, start, end)
    const artifact = await w.tx.artifact.create({
      data: { organizationId: w.ctx.session.organizationId, programId: input.programId, kind: 'summary', content: { type: 'review_audit_review', ...summary } as object, createdByUserId: w.ctx.session.userId },
    })
    const row = existing
      ? await w.tx.reviewAuditReview.update({ where: { id: existing.id }, data: { summary: summary as object, artifactId: artifact.id } })
      : await w.tx.reviewAuditReview.create({
        data: { organizationId: w.ctx.session.organizationId, programId: input.programId, periodStart: start, periodEnd: end, summary: summary as object, artifactId: artifact.id, createdByUserId: w.ctx.session.userId },
      })
    await w.audit('review_audit_review.create', { type: 'review_audit_review', id: row.id }, { period_start: summary.period.start, period_end: summary.period.end, artifact_id: artifact.id })
    return row
  },
})

/** Accepted by a quality reviewer: the quality_reviewer persona in the program (reviewer_role_required otherwise), once. */
export const acceptReviewAuditReview = command({
  permission: 'review.stage_reviews.approve',
  input: z.object({ id: IdInput }),
  load: async (q, input, ctx) => {
    const row = await q.reviewAuditReview.findFirst({ where: { id: input.id } })
    if (!row || !can(ctx.session, 'progress.stages.read', row.programId)) throw new NotFoundError('ReviewAuditReview', { field: 'id' })
    return row
  },
  program: (_i, row) => row.programId,
  audit: ['review_audit_review.accept'],
  errors: [ReviewerRoleRequired, InvalidTransition],
  async run(w, _input, row) {
    if (!(w.ctx.session.programPersonas.get(row.programId) ?? []).includes('quality_reviewer')) {
      throw new ReviewerRoleRequired('A quality reviewer accepts the monthly QA oversight summary.', { field: 'id' })
    }
    const [accepted] = await w.tx.reviewAuditReview.updateManyAndReturn({
      where: { id: row.id, acceptedAt: null }, data: { acceptedBy: w.ctx.session.userId, acceptedAt: new Date() },
    })
    if (!accepted) throw new InvalidTransition('accepted', 'accepted', 'This summary was accepted already.')
    await w.audit('review_audit_review.accept', { type: 'review_audit_review', id: row.id }, {})
    return accepted
  },
})

export function listReviewAuditReviews(ctx: Pick<DomainContext, 'session' | 'tdb'>, programId: string): Promise<ReviewAuditReview[]> {
  if (!IdInput.safeParse(programId).success || !can(ctx.session, 'program.audit.read', programId)) throw new NotFoundError('Program', { field: 'programId' })
  return ctx.tdb.reviewAuditReview.findMany({ where: { programId }, orderBy: { periodStart: 'desc' }, take: 24 })
}
