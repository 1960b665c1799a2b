// Owns signatures on records: writing one (a deliberate act of one person on one target, with its meaning, as 21 CFR
// 11.50 shows a signature: printed name, date and time, meaning) with its signature.create audit row, and reading the
// manifestation of each. Decisions on proposals (twins domain/decisions.ts) and requirement-set acceptance (connectors
// domain/qms/review.ts) sign here.
import type { DomainContext, Write } from '../../../core/command'
import type { Signature } from '../../../generated/prisma/client'

type SignatureMeaning = 'review' | 'approval' | 'responsibility' | 'authorship'

/** Signs `target` as the session's person with `meaning`, in the caller's transaction, and audits signature.create. */
export async function sign(w: Write<'signature.create'>, input: { programId: string | null; meaning: SignatureMeaning; targetType: string; targetId: string; signedAt?: Date }): Promise<Signature> {
  const { session } = w.ctx
  const signature = await w.tx.signature.create({
    data: {
      organizationId: session.organizationId, programId: input.programId, signerUserId: session.userId, printedName: session.name,
      signedAt: input.signedAt ?? new Date(), meaning: input.meaning, targetType: input.targetType, targetId: input.targetId,
    },
  })
  await w.audit('signature.create', { type: 'signature', id: signature.id }, { meaning: input.meaning, target_type: input.targetType, target_id: input.targetId }, { signatureId: signature.id })
  return signature
}

/** The signatures on a record, oldest first (the tenant client keeps them to the caller's organisation). */
export function recordSignatures(ctx: Pick<DomainContext, 'tdb'>, recordId: string) {
  return ctx.tdb.signature.findMany({ where: { targetId: recordId }, orderBy: { signedAt: 'asc' } })
}
