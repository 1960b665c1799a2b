// Owns the raw SQL of outgoing e-mail (email_outbox): the delivery job claims due messages of every organisation at
// once, so its claim says so in its name.
import type { Tx } from '../database'

export interface DueEmail { id: string; to_address: string; subject: string; body: string; attempts: number }

/** Due pending e-mail, oldest first, claimed with SKIP LOCKED in `tx` so two workers never send the same message. */
export function claimDueEmailsAcrossOrganisations(tx: Tx, args: { now: Date; onlyId: string | null; limit: number }): Promise<DueEmail[]> {
  return tx.$queryRaw<DueEmail[]>`
    SELECT id, to_address, subject, body, attempts FROM email_outbox
    WHERE status = 'pending' AND deliver_after <= ${args.now}
      AND (${args.onlyId}::uuid IS NULL OR id = ${args.onlyId}::uuid)
    ORDER BY deliver_after LIMIT ${args.limit}
    FOR UPDATE SKIP LOCKED`
}
