// Owns the stage gates' raw SQL (everything else goes through the tenant client of core/database/db.ts): each tenant function
// takes the organisation first and binds it in its filter; a function that reads across organisations (the hourly
// readiness refresh) says so in its name.
import { asTx, type AnyTx, type Db } from '../../core/database'

/** Locks one gate of the organisation (FOR UPDATE): of two people closing it at once, the second waits and sees it closed. */
export async function lockGate(tx: AnyTx, organizationId: string, gateId: string) {
  await asTx(tx).$queryRaw`SELECT id FROM stage_gates WHERE id = ${gateId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/** Locks one program of the organisation (FOR UPDATE): its stage plan and current stage stay put while a gate opens or closes. */
export async function lockProgram(tx: AnyTx, organizationId: string, programId: string) {
  await asTx(tx).$queryRaw`SELECT id FROM programs WHERE id = ${programId}::uuid AND organization_id = ${organizationId}::uuid FOR UPDATE`
}

/**
 * Runs `write` with the transaction-local setting that lets the stage_gates migration's trigger accept a write of
 * programs.current_stage_id: the closing gate's id, cleared afterwards. The setting reads and writes no rows.
 */
export async function asClosingGate<T>(tx: AnyTx, gateId: string, write: () => Promise<T>): Promise<T> {
  await asTx(tx).$executeRaw`SELECT set_config('app.stage_gate_close', ${gateId}, true)`
  const result = await write()
  await asTx(tx).$executeRaw`SELECT set_config('app.stage_gate_close', '', true)`
  return result
}

/** The program's skill results of these skills, newest first: who ran each, what it cites, whether a twin ran it (gate-evidence.ts). */
export function skillResultRows(tx: AnyTx, organizationId: string, programId: string, skills: readonly string[]) {
  return asTx(tx).$queryRaw<{ id: string; skill_key: string; created_by_user_id: string | null; refs: string[]; by_twin: boolean }[]>`
    SELECT a.id, a.content->>'skill_key' AS skill_key, a.created_by_user_id,
      CASE WHEN jsonb_typeof(a.content->'citations') = 'array'
        THEN ARRAY(SELECT COALESCE(c->>'ref', '') FROM jsonb_array_elements(a.content->'citations') c) ELSE '{}'::text[] END AS refs,
      EXISTS (SELECT 1 FROM tool_calls t WHERE t.organization_id = a.organization_id AND t.result_artifact_id = a.id AND t.twin_id IS NOT NULL) AS by_twin
    FROM artifacts a
    WHERE a.organization_id = ${organizationId}::uuid AND a.program_id = ${programId}::uuid AND a.kind = 'skill_result'
      AND a.content->>'skill_key' = ANY(${[...skills]}::text[])
    ORDER BY a.created_at DESC, a.id DESC`
}

/** stage_readiness_refresh sweeps every organisation: the programs with open gates (only `gateId`'s when given). */
export function programsWithOpenGatesAcrossOrganisations(db: Db, gateId: string | null) {
  return db.$queryRaw<{ organization_id: string; program_id: string }[]>`
    SELECT DISTINCT organization_id, program_id FROM stage_gates
    WHERE status = 'open' AND (${gateId}::uuid IS NULL OR id = ${gateId}::uuid)`
}

/** Locks a program's open gates (only `gateId` when given), skipping any another write holds; answers their ids. */
export function lockOpenGates(tx: AnyTx, organizationId: string, programId: string, gateId: string | null) {
  return asTx(tx).$queryRaw<{ id: string }[]>`
    SELECT id FROM stage_gates WHERE organization_id = ${organizationId}::uuid AND program_id = ${programId}::uuid AND status = 'open'
      AND (${gateId}::uuid IS NULL OR id = ${gateId}::uuid)
    FOR UPDATE SKIP LOCKED`
}
