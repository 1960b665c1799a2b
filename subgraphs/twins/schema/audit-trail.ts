// The audit chain in the twins subgraph (issue 35): Query.auditChainVerification (org.audit.read) and
// Query.auditTrail(programId, targetId) (program members). Resolvers translate; domain/audit-trail.ts decides.
import type { Builder } from '../../shared/builder'
import type { ChainBreak, Verification } from '../../../core/audit'
import { auditTrailOf, verifyMyOrganisationChain, type AuditTrail } from '../../../domain/audit'

export function addAuditTrail(builder: Builder) {
  const Reason = builder.enumType('AuditChainBreakReason', {
    description: 'Why an audit entry does not verify (docs/operators.md, "The audit chain").',
    values: {
      content_changed: { description: 'Its recomputed hash differs: the entry or a row it records was changed.' },
      link_broken: { description: "Its prev_hash is not the previous entry's hash." },
      entries_missing: { description: 'Entries before it are missing.' },
      head_mismatch: { description: 'The chain head says the chain is longer than its entries: entries were removed at the end.' },
      not_chained: { description: 'An audit row written after the chain began holds no chain position.' },
    } as const,
  })
  const Break = builder.objectRef<ChainBreak>('AuditChainBreak').implement({
    description: 'The first audit entry that does not verify.',
    fields: (t) => ({
      seq: t.int({ nullable: true, description: 'Its position in the chain (null for a row outside it).', resolve: (b) => (b.seq === null ? null : Number(b.seq)) }),
      entryId: t.id({ nullable: true, description: 'The audit entry (null when the entries at the end are gone).', resolve: (b) => b.entryId }),
      reason: t.field({ type: Reason, nullable: false, resolve: (b) => b.reason }),
    }),
  })
  const Verified = builder.objectRef<Verification>('AuditChainVerification').implement({
    description: "One verification of the organisation's audit chain, from its first entry.",
    fields: (t) => ({
      verified: t.exposeBoolean('verified', { nullable: false }),
      entries: t.int({ nullable: false, description: 'Entries that verified (up to the first break).', resolve: (v) => v.entries }),
      headSeq: t.int({ nullable: false, description: "The chain head's sequence number.", resolve: (v) => Number(v.headSeq) }),
      headHash: t.string({ nullable: false, description: "The chain head's hash (sha256, hex); keep it to check a later export against.", resolve: (v) => v.headHash }),
      beforeChain: t.int({ nullable: false, description: 'Audit rows written before the chain began: kept, never hashed.', resolve: (v) => v.beforeChain }),
      firstBreak: t.field({ type: Break, nullable: true, resolve: (v) => v.firstBreak }),
      verifiedAt: t.field({ type: 'DateTime', nullable: false, resolve: (v) => v.verifiedAt }),
    }),
  })
  const State = builder.enumType('AuditTrailState', {
    values: {
      verified: { description: 'The last verification covered it and the chain verified up to there.' },
      pending: { description: 'Recorded after the last verification; the next (daily) one covers it.' },
      broken: { description: 'The last verification found an entry that does not verify at or before it.' },
    } as const,
  })
  const Trail = builder.objectRef<AuditTrail>('AuditTrail').implement({
    description: 'Whether the audit trail of one record or proposal verified, and when (the console\'s "Trail verified" line).',
    fields: (t) => ({
      state: t.field({ type: State, nullable: false, resolve: (a) => a.state }),
      verifiedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the organisation\'s chain was last verified.', resolve: (a) => a.verifiedAt }),
      entrySeq: t.int({ nullable: true, description: 'The chain position of its latest audit entry.', resolve: (a) => a.entrySeq }),
    }),
  })
  builder.queryFields((t) => ({
    auditChainVerification: t.field({
      type: Verified, nullable: false,
      description: "Verifies the caller's organisation's audit chain now and names the first entry that does not verify (org.audit.read).",
      resolve: (_r, _a, ctx) => verifyMyOrganisationChain(ctx),
    }),
    auditTrail: t.field({
      type: Trail, nullable: true,
      description: "The audit trail of a record or proposal (targetId) in a program the caller is a member of; null when nothing about it is chained.",
      args: { programId: t.arg.id({ required: true }), targetId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => auditTrailOf(ctx, String(a.programId), String(a.targetId)),
    }),
  }))
}
