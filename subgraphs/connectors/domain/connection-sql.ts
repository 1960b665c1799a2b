// Owns the raw statements over connections (the model API covers the rest): the per-program, per-provider creation
// lock and the health mark of a connection whose vendor refused its credentials. Tenant functions take the organisation
// first and bind it.
import type { AnyTx, Db } from '../../../core/db'
import { asTx } from '../../../core/db'

/** One app or integration user per program and provider: creations of the same program and provider take turns. */
export async function lockProgramProviderConnection(tx: AnyTx, programId: string, providerId: string) {
  await asTx(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`connection:${programId}:${providerId}`}, 0))`
}

/** The vendor refused the connection's credentials: health says failing, with the refusal's words. */
export async function markConnectionFailing(db: Db, organizationId: string, connectionId: string, error: string) {
  await db.$executeRaw`
    UPDATE connections SET health = jsonb_set(jsonb_set(health::jsonb, '{status}', '"failing"'), '{last_error}', to_jsonb(${error}::text)),
      health_checked_at = now()
    WHERE id = ${connectionId}::uuid AND organization_id = ${organizationId}::uuid`
}
