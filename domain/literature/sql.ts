// Owns the raw statements over literature_clusters: every function takes the organisation first and binds it.
import type { Db, TenantTx } from '../../core/database'
import { Prisma } from '../../core/database'
import type { ClusterOut } from './policy'

/** Keeps the page's clusters for the organisation (new aliases and provenance merged in), so records can cite them. */
export async function keepClusters(db: Db, organizationId: string, clusters: readonly ClusterOut[]): Promise<void> {
  if (!clusters.length) return
  const rows = clusters.map((c) => Prisma.sql`(${organizationId}::uuid, ${c.clusterKey}, ${c.aliases}::text[], ${c.title ?? c.clusterKey}, ${c.licence},
    ${JSON.stringify(c.provenance)}::jsonb, ${c.successorKey})`)
  await db.$executeRaw`
    INSERT INTO literature_clusters (organization_id, cluster_key, aliases, title, licence, provenance, successor_key)
    VALUES ${Prisma.join(rows)}
    ON CONFLICT (organization_id, cluster_key) DO UPDATE SET
      aliases = ARRAY(SELECT DISTINCT a FROM unnest(literature_clusters.aliases || EXCLUDED.aliases) a ORDER BY a),
      title = EXCLUDED.title, licence = EXCLUDED.licence, provenance = EXCLUDED.provenance,
      successor_key = COALESCE(EXCLUDED.successor_key, literature_clusters.successor_key), last_seen_at = now()`
}

/** The cluster an organisation has seen under a key or alias (a DOI compares lower case), else null. */
export async function findCluster(tx: Pick<TenantTx, '$queryRaw'>, organizationId: string, ref: string) {
  const key = /^10\./.test(ref) ? ref.toLowerCase() : ref.replace(/^pmcid:pmc/i, 'pmcid:PMC').replace(/^w/i, 'W')
  const [row] = await tx.$queryRaw<{ cluster_key: string }[]>`
    SELECT cluster_key FROM literature_clusters
    WHERE organization_id = ${organizationId}::uuid AND (cluster_key = ${key} OR aliases @> ARRAY[${key}]::text[]) LIMIT 1`
  return row ?? null
}

