// Owns signatures: the one way a signature (and the approval it backs) is written, and how a signature manifests
// (printed name, date and time, meaning, as 21 CFR 11.50 requires). Decisions on records (twins domain/decisions.ts)
// and stage gates (twins domain/gates.ts) sign through signTarget (built on sign, which the QMS acceptance uses too); records and gates read the manifestation here.
import type { Signature } from '../../generated/prisma/client'
import type { DomainContext, Write } from '../../core/jobs'
import type { ApprovalTargetType, SignatureTargetType } from '../../core/config'
import { FreshSignInRequired } from '../../core/errors'
import { env } from '../../core/config'

export type SignatureMeaning = 'review' | 'approval' | 'responsibility' | 'authorship'

/** The signatures on a record, oldest first (the tenant client keeps them to the caller's organisation). */
export function recordSignatures(ctx: Pick<DomainContext, 'tdb'>, recordId: string) {
  return ctx.tdb.signature.findMany({ where: { targetId: recordId }, orderBy: { signedAt: 'asc' } })
}

/** The line printed with what was signed: "<printed name>, <ISO date and time>, <meaning>". */
export function manifestation(s: Pick<Signature, 'printedName' | 'signedAt' | 'meaning'>): string {
  return `${s.printedName}, ${s.signedAt.toISOString()}, ${s.meaning}`
}

export interface SignInput {
  programId: string
  meaning: SignatureMeaning
  targetType: SignatureTargetType | ApprovalTargetType
  targetId: string
  /** When set, no signature is written: the approval stands without one (a hypothesis, an open item). */
  unsigned?: boolean
  /** An approvals row pointing at the signature (target the same), audited approval.create. */
  approval?: { decision: 'approved'; comment?: string | null; details?: Record<string, unknown> }
  /** The audit target of approval.create (default the signed target). */
  approvalAuditTarget?: { type: string; id: string }
  at?: Date
}

/**
 * Signs as the write's person, in the write's transaction: a signatures row (printed name from the session, time,
 * meaning) audited signature.create with its signature_id, and where asked an approvals row audited approval.create.
 * Callers sign only after every check passed, so a refused action never leaves a signature.
 */
export async function signTarget(w: Write<'signature.create' | 'approval.create'>, input: SignInput) {
  const { session } = w.ctx
  const at = input.at ?? new Date()
  const signature = input.unsigned ? null
    : await sign(w as unknown as Write<'signature.create'>, { programId: input.programId, meaning: input.meaning, targetType: input.targetType, targetId: input.targetId, signedAt: at })
  const approval = input.approval ? await w.tx.approval.create({
    data: {
      organizationId: session.organizationId, programId: input.programId, targetType: input.targetType, targetId: input.targetId,
      approverUserId: session.userId, decision: input.approval.decision, comment: input.approval.comment ?? null, signatureId: signature?.id ?? null,
    },
  }) : null
  if (approval) {
    await w.audit('approval.create', input.approvalAuditTarget ?? { type: input.targetType, id: input.targetId },
      { approval_id: approval.id, ...input.approval!.details },
      { ...(signature ? { signatureId: signature.id } : {}), subjects: [{ table: 'approvals', id: approval.id }] })
  }
  return { signature, approval }
}

/**
 * When the signer authenticated, for a signature made now: a person calling through the gateway must have signed in
 * at the identity provider within SIGNATURE_AUTH_MAX_AGE_SECONDS (their token's auth_time), as 21 CFR 11.200 expects
 * of a signature made in a session; the console asks the provider for a fresh sign-in (prompt=login, max_age) first.
 * Code acting without a sign-in of its own (seeds, jobs) signs with no authentication time.
 */
export function signerAuthentication(ctx: Pick<DomainContext, 'authentication'>, now = new Date()): Date | null {
  if (!ctx.authentication) return null
  const at = ctx.authentication.authTime
  const maxAgeMs = env().SIGNATURE_AUTH_MAX_AGE_SECONDS * 1000
  // a few seconds of clock difference between the identity provider and this service are not a stale sign-in
  if (!at || now.getTime() - at.getTime() > maxAgeMs || at.getTime() - now.getTime() > 30_000) {
    throw new FreshSignInRequired(`An electronic signature needs a sign-in within the last ${Math.round(maxAgeMs / 1000)} seconds: sign in again, then sign.`)
  }
  return at
}

/** Signs `target` as the session's person with `meaning`, in the caller's transaction, and audits signature.create. */
export async function sign(w: Write<'signature.create'>, input: { programId: string | null; meaning: SignatureMeaning; targetType: string; targetId: string; signedAt?: Date }): Promise<Signature> {
  const { session } = w.ctx
  const signedAt = input.signedAt ?? new Date()
  const authenticatedAt = signerAuthentication(w.ctx, signedAt)
  const signature = await w.tx.signature.create({
    data: {
      organizationId: session.organizationId, programId: input.programId, signerUserId: session.userId, printedName: session.name,
      signedAt, authenticatedAt, meaning: input.meaning, targetType: input.targetType, targetId: input.targetId,
    },
  })
  await w.audit('signature.create', { type: 'signature', id: signature.id }, {
    meaning: input.meaning, target_type: input.targetType, target_id: input.targetId,
    ...(authenticatedAt ? { authenticated_at: authenticatedAt.toISOString() } : {}),
  }, { signatureId: signature.id })
  return signature
}
