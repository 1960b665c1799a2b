// The "Trail verified" line (issue 35): one small line saying whether the audit trail of a record or a decided
// proposal verified, and when. Placed on the decided card and under a record's versions; it shows nothing when the
// API has nothing chained about the target (or the person may not see it).
import { useQuery } from 'urql'
import { AuditTrailDocument } from '../generated/graphql'
import { formatDateTime } from '../format'

/** What the line says for each state; exported so tests and other screens say the same. */
export function trailText(state: string, verifiedAt: string | null | undefined): string {
  if (state === 'verified') return `Trail verified ${formatDateTime(verifiedAt)}.`
  if (state === 'broken') return "Trail does not verify: your organisation's administrators have been told."
  return verifiedAt ? `Trail not verified yet: recorded after the last check (${formatDateTime(verifiedAt)}).` : 'Trail not verified yet: the trail is checked daily.'
}

export function TrailLine({ programId, targetId }: { programId: string | null | undefined; targetId: string | null | undefined }) {
  const [{ data }] = useQuery({ query: AuditTrailDocument, variables: { programId: programId ?? '', targetId: targetId ?? '' }, pause: !programId || !targetId })
  const trail = data?.auditTrail
  if (!trail) return null
  return <p className={`muted trail trail-${trail.state}`} data-testid="trail-line">{trailText(trail.state, trail.verifiedAt)}</p>
}
