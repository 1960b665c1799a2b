// Owns the reading of signatures on program records: the manifestation of each (printed name, date and time,
// meaning, as 21 CFR 11.50 shows a signature). Signatures are written by decisions (twins domain/decisions.ts).
import type { DomainContext } from '../../../core/command'

/** The signatures on a record, oldest first (the tenant client keeps them to the caller's organisation). */
export function recordSignatures(ctx: Pick<DomainContext, 'tdb'>, recordId: string) {
  return ctx.tdb.signature.findMany({ where: { targetId: recordId }, orderBy: { signedAt: 'asc' } })
}
