// Owns what the API says about the audit chain (issue 35): Query.auditChainVerification (org.audit.read) verifies the
// caller's organisation's chain now and names the first entry that does not verify; Query.auditTrail tells a program
// member whether the trail of one thing they see (a record, a proposal) was verified, and when: the console's
// "Trail verified" line. The chain itself is core/audit/audit-chain.ts.
import type { DomainContext } from '../../core/jobs'
import { trailStatus, verifyChain, type Verification } from '../../core/audit'
import { latestChainSeqAbout } from '../../core/sql'
import { assertCan } from '../../core/identity'
import { isId } from '../../core/text'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db'>

/** Verifies the caller's organisation's chain from its first entry (org.audit.read), recording the outcome. */
export async function verifyMyOrganisationChain(ctx: Ctx): Promise<Verification> {
  assertCan(ctx.session, 'org.audit.read')
  return verifyChain(ctx.db, ctx.session.organizationId)
}

export type TrailState =
  /** The last verification covered the latest entry about it, and the chain verified up to there. */
  | 'verified'
  /** Recorded after the last verification: the next one covers it. */
  | 'pending'
  /** The last verification found an entry that does not verify at or before this one. */
  | 'broken'

export interface AuditTrail { state: TrailState; verifiedAt: Date | null; entrySeq: number | null }

/**
 * The trail of `targetId` in a program the caller is a member of (null otherwise, or when nothing about it is in
 * the chain): its latest chained audit entry, measured against the organisation's last verification.
 */
export async function auditTrailOf(ctx: Ctx, programId: string, targetId: string): Promise<AuditTrail | null> {
  if (!isId(programId) || !ctx.session.programPersonas.has(programId)) return null
  const seq = await latestChainSeqAbout(ctx.tdb, ctx.session.organizationId, programId, targetId)
  if (seq === null) return null
  const status = await trailStatus(ctx.db, ctx.session.organizationId)
  const state: TrailState = status.brokenSeq !== null && status.brokenSeq <= seq ? 'broken'
    : status.broken && status.brokenSeq === null ? 'broken'
      : status.verifiedSeq !== null && seq <= status.verifiedSeq ? 'verified' : 'pending'
  return { state, verifiedAt: status.verifiedAt, entrySeq: Number(seq) }
}
