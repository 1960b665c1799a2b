// Owns the QMS connector's raw statements over sops, sop_versions and requirement_sets: the per-connection sync lock,
// the successor rule and the upstream deletion of documents. Every function takes the organisation first and binds it.
import type { AnyTx } from '../../core/database'
import { asTx } from '../../core/database'

/** A poll and a reconciliation of the same connection commit one page at a time, in turn. */
export async function lockQmsSync(tx: AnyTx, connectionId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`qms_sync:${connectionId}`}, 0))`
}

/**
 * superseded_at from the successor (spec 000 §States rule 3): a superseded version without a date from the source
 * takes the effective_at of the next version (by major, minor) that has one. Accepted requirement sets of versions that
 * stopped being effective are superseded: only effective versions bind checks. Returns the versions dated.
 */
export async function applySuccessorRule(tx: AnyTx, organizationId: string, sopIds: string[]): Promise<number> {
  if (!sopIds.length) return 0
  const db = asTx(tx)
  const n = await db.$executeRaw`
    UPDATE sop_versions v SET superseded_at = nxt.effective_at, updated_at = now()
    FROM (
      SELECT v1.id, (SELECT v2.effective_at FROM sop_versions v2
                     WHERE v2.sop_id = v1.sop_id AND v2.deleted_at IS NULL AND v2.effective_at IS NOT NULL
                       AND (v2.major, v2.minor) > (v1.major, v1.minor)
                     ORDER BY v2.major, v2.minor LIMIT 1) AS effective_at
      FROM sop_versions v1
      WHERE v1.sop_id = ANY(${sopIds}::uuid[]) AND v1.organization_id = ${organizationId}::uuid
        AND v1.lifecycle_state = 'superseded' AND v1.superseded_at IS NULL
    ) nxt
    WHERE v.id = nxt.id AND nxt.effective_at IS NOT NULL`
  await db.$executeRaw`
    UPDATE requirement_sets r SET status = 'superseded', updated_at = now()
    FROM sop_versions v
    WHERE r.sop_version_id = v.id AND v.sop_id = ANY(${sopIds}::uuid[]) AND r.organization_id = ${organizationId}::uuid
      AND r.status IN ('draft', 'accepted') AND (v.lifecycle_state <> 'effective' OR v.deleted_at IS NOT NULL)`
  return n
}

/** A document none of whose versions is listed any more is deleted upstream too. */
export async function markSopsWithoutVersionsDeleted(tx: AnyTx, organizationId: string, sopIds: string[], at: Date) {
  await asTx(tx).$executeRaw`UPDATE sops s SET deleted_at = ${at} WHERE s.id = ANY(${sopIds}::uuid[]) AND s.organization_id = ${organizationId}::uuid
    AND s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM sop_versions v WHERE v.sop_id = s.id AND v.deleted_at IS NULL)`
}
