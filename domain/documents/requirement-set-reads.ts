// Owns the one read other subgraphs' domains make of requirement sets (the QMS contract, connectors subgraph): which
// sets of a program are accepted. Stage gates (twins domain/gate-readiness.ts) call it inside their own transaction,
// so "accepted requirement sets" are judged on the same snapshot as the rest of a gate's readiness. The tenant
// filter is explicit: the caller names the organisation.
import { asTx, type AnyTx, type Db } from '../../core/database'

export interface AcceptedRequirementSet { id: string; sopVersionId: string; title: string; acceptedAt: Date | null }

export async function acceptedRequirementSets(q: AnyTx | Db, organizationId: string, programId: string): Promise<AcceptedRequirementSet[]> {
  return asTx(q as AnyTx).requirementSet.findMany({
    where: { organizationId, programId, status: 'accepted' },
    select: { id: true, sopVersionId: true, title: true, acceptedAt: true },
  })
}
