// Owns who may decide a twin's proposal ("Your twin proposes. You decide."), beside the decide key itself (decideKeyOf,
// checked live by command()). The rule, in order:
//   1. the person the twin works for (proposer.userId);
//   2. their delegate under a delegation in force now, covering the proposal's program (one hop; decided in the
//      delegate's own right, under the delegate's own live keys; the decision carries delegated_from_user_id);
//   3. for a record type with an approval key of its own (evidence.hypotheses.approve, plans.plans.approve), a holder
//      of that key: approving such a record is an authority of its own that the twin's person may not hold (at persona
//      v3 the scientist stops approving hypotheses and plans), so the approver decides the twin's proposal in their own
//      right;
//   anyone else, the holders of the manage key that decides the other types included, is refused bound_user_only.
// A hand-off proposal is stricter (decisions.ts): it goes out in its author's name, so only the author decides it.
// A proposal filed by a person (no twin) is decided by whoever holds its decide key, as before.
import type { Session } from '../../core/identity'
import { can } from '../../core/identity'
import type { TenantTx } from '../../core/database'
import { BoundUserOnly } from '../../core/errors'
import { RECORD_TYPES, type RecordTypeKey } from '../records'
import { delegationBetween } from '../collaboration'
import type { ProposalQuestion } from './proposals'

export interface DeciderStanding {
  /** The person the decision was delegated from (the proposer), when the caller decides as their live delegate. */
  delegatedFromUserId: string | null
}

/**
 * Whether `session` may decide the twin proposal `question` now; throws bound_user_only otherwise. Answers the
 * delegation the caller decides under, if any (a delegate who also holds the approval key still decides as delegate,
 * so the record's line names the delegation).
 */
export async function assertMayDecide(q: TenantTx, session: Session, question: Pick<ProposalQuestion, 'proposer' | 'recordType' | 'programId' | 'handoff'>): Promise<DeciderStanding> {
  const { proposer } = question
  if (session.userId === proposer.userId) return { delegatedFromUserId: null }
  const delegation = await delegationBetween(q, session.organizationId, proposer.userId, session.userId, question.programId)
  if (delegation) return { delegatedFromUserId: proposer.userId }
  if (!proposer.twinId) return { delegatedFromUserId: null }
  const approve = RECORD_TYPES[question.recordType as RecordTypeKey]?.permissions.approve
  if (approve && can(session, approve, question.programId)) return { delegatedFromUserId: null }
  throw new BoundUserOnly(
    `Only ${proposer.name}, whose twin proposed this, or their delegate under a delegation in force may decide it${approve ? `, or a holder of ${approve}` : ''}.`,
    { field: 'id' },
  )
}

/** A hand-off goes out in its author's name: only the person the twin is bound to decides it (bound_user_only). */
export const mayDecideHandoff = (session: Session, question: Pick<ProposalQuestion, 'proposer' | 'handoff'>) =>
  !question.handoff || session.userId === question.proposer.userId

/** assertMayDecide as a yes or no, for a client asking before the person tries (Proposal.viewerCanDecide). */
export async function mayDecide(q: TenantTx, session: Session, question: Pick<ProposalQuestion, 'proposer' | 'recordType' | 'programId' | 'handoff'>): Promise<boolean> {
  if (!mayDecideHandoff(session, question)) return false
  try {
    await assertMayDecide(q, session, question)
    return true
  } catch (e) {
    if (e instanceof BoundUserOnly) return false
    throw e
  }
}
