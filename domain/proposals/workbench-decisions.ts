// Owns the twins subgraph's part of the role home (WorkbenchOut): 'Today's decisions' (the caller's open decision
// items in the program whose proposal writes one of the role's record types), other_decision_count (the caller's other
// open decisions there) and the twin panel (the caller's twin in the program). The workbench subgraph hands over the
// role's record types through the Workbench entity; this module reads only the twins' own tables.
import type { InboxItem, TwinDefinition } from '../../generated/prisma/client'
import type { DomainContext } from '../../core/jobs'
import { isMember } from '../../core/identity'
import { openRoleDecisions } from './sql'

type Ctx = Pick<DomainContext, 'session' | 'db' | 'tdb'>

/** How many decisions the home shows; the rest count in other_decision_count. */
export const HOME_DECISIONS = 10

export interface RoleDecisions { decisions: InboxItem[]; otherDecisionCount: number }

/**
 * Open decisions of the caller in the program, oldest due first. A decision belongs to the role when its proposal's
 * record type is one of `recordTypes` (null: every type, as under the neutral fallback); a decision item that names
 * no record type belongs to everyone's home.
 */
export async function roleDecisions(ctx: Ctx, programId: string, recordTypes: readonly string[] | null): Promise<RoleDecisions> {
  if (!isMember(ctx.session, programId)) return { decisions: [], otherDecisionCount: 0 }
  const { organizationId, userId } = ctx.session
  // Set-based: the shown rows and the count of all in one statement, however many decisions wait (a person with
  // hundreds open does not ship every item and every proposal's question to this process to pick ten).
  const { decisions, total } = await openRoleDecisions(ctx.db, organizationId, userId, programId, recordTypes, HOME_DECISIONS)
  return { decisions, otherDecisionCount: total - decisions.length }
}

/** The caller's twin in the program for the persona the home is for (else any of theirs), active before paused. */
export async function homeTwin(ctx: Ctx, programId: string, personaKey: string | null): Promise<TwinDefinition | null> {
  if (!isMember(ctx.session, programId)) return null
  const twins = await ctx.tdb.twinDefinition.findMany({
    where: { programId, userId: ctx.session.userId, status: { not: 'retired' } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  })
  const rank = (t: TwinDefinition) => (t.personaKey === personaKey ? 0 : 2) + (t.status === 'active' ? 0 : 1)
  return twins.sort((a, b) => rank(a) - rank(b))[0] ?? null
}
