// Owns every raw statement over webhook_deliveries, webhook_delivery_ids and webhook_source_counters. The ingress
// stores a delivery for the organisation of the connection it verified against (storeVerifiedDelivery binds it). The
// rest runs before an organisation is known (a public route given a connection id, a rejected delivery that names no
// connection, a source address's counter) or in the worker, which is handed a delivery's or connection's id by its
// job: those functions say so (...AcrossOrganisations), and the id they are handed is the only key they read by.
import type { AnyTx, Db } from '../../core/database'
import { asTx } from '../../core/database'

// ---------------------------------------------------------------------------------------------------------------
// Ingress

export interface WebhookConnectionRow {
  id: string
  organizationId: string
  programId: string
  providerId: string
  status: string
  baseUrl: string | null
  appDefinitionId: string | null
}

/** The connection a hook URL names (public route: the organisation is learnt from this row). One raw query on the hot path. */
export async function webhookConnectionAcrossOrganisations(db: Db, connectionId: string): Promise<WebhookConnectionRow | null> {
  const [row] = await db.$queryRaw<WebhookConnectionRow[]>`
    SELECT id, organization_id AS "organizationId", program_id AS "programId", provider_id AS "providerId", status,
           base_url AS "baseUrl", app_definition_id AS "appDefinitionId"
    FROM connections WHERE id = ${connectionId}::uuid`
  return row ?? null
}

export interface VerifiedDelivery {
  rowId: string
  connection: { id: string; programId: string }
  providerId: string
  requestedConnectionId: string
  deliveryId: string
  eventType: string
  knownType: boolean
  source: string
  bodyBytes: number
  timestamp: Date
  /** The verified body (stored as jsonb unless it is a replay). */
  text: string
  replayWindowSeconds: number
  /** The processing job's task and payload (added only when the delivery is enqueued). */
  job: { task: string; payload: string }
}

/**
 * One statement, one round trip, its own transaction: claim the delivery id for the replay window (the first delivery
 * inside the window wins, concurrent copies wait on the claim's row lock), store the row, and add the processing job
 * only when the claim succeeded and the event type is known.
 */
export async function storeVerifiedDelivery(db: Db, organizationId: string, d: VerifiedDelivery): Promise<{ replay: boolean; outcome: string }> {
  const [answer] = await db.$queryRaw<{ replay: boolean; outcome: string }[]>`
    WITH claim AS (
      INSERT INTO webhook_delivery_ids (connection_id, delivery_id, organization_id, first_received_at)
      VALUES (${d.connection.id}::uuid, ${d.deliveryId}, ${organizationId}::uuid, now())
      ON CONFLICT (connection_id, delivery_id) DO UPDATE SET first_received_at = now()
        WHERE webhook_delivery_ids.first_received_at < now() - make_interval(secs => ${d.replayWindowSeconds})
      RETURNING 1
    ), stored AS (
      INSERT INTO webhook_deliveries (id, organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
        event_type, signature_ok, replay, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp, payload)
      SELECT ${d.rowId}::uuid, ${organizationId}::uuid, ${d.connection.programId}::uuid, ${d.connection.id}::uuid, ${d.providerId}, ${d.requestedConnectionId},
        ${d.deliveryId}, ${d.eventType}, true, c.n = 0,
        (CASE WHEN c.n = 0 OR NOT ${d.knownType} THEN 'ignored' ELSE 'enqueued' END)::webhook_outcome,
        CASE WHEN c.n = 0 THEN 'replay' WHEN NOT ${d.knownType} THEN 'unknown_event_type' END,
        CASE WHEN c.n = 0 OR NOT ${d.knownType} THEN 200 ELSE 202 END,
        ${d.source}, ${d.bodyBytes}, ${d.timestamp},
        CASE WHEN c.n = 0 THEN NULL ELSE ${d.text}::jsonb END
      FROM (SELECT count(*) AS n FROM claim) c
      RETURNING replay, outcome
    ), queued AS (
      SELECT graphile_worker.add_job(${d.job.task}, ${d.job.payload}::json) FROM stored WHERE outcome = 'enqueued'
    )
    SELECT stored.replay, stored.outcome::text AS outcome, (SELECT count(*) FROM queued) AS jobs FROM stored`
  return answer
}

/** The HTTP layer answered otherwise than the row says (its deadline passed first): the row says what was sent. */
export async function noteAnsweredStatusAcrossOrganisations(db: Db, rowId: string, status: number) {
  await db.$executeRaw`UPDATE webhook_deliveries SET status_code = ${status} WHERE id = ${rowId}::uuid`
}

// ---------------------------------------------------------------------------------------------------------------
// Rejected deliveries and the per-source-address limit (rows may name no connection, hence no organisation)

export interface RejectedRow {
  organizationId: string | null
  programId: string | null
  connectionId: string | null
  providerId: string
  requestedConnectionId: string
  deliveryId: string | null
  signatureOk: boolean
  reason: string
  statusCode: number
  sourceAddress: string
  bodyBytes: number
  webhookTimestamp: Date | null
}

/**
 * One statement: the source's counter upsert (row-locked, the window restarts when it is over `windowSeconds` old)
 * and the rejected row's insert guarded by the count.
 */
export async function countAndStoreRejectedAcrossOrganisations(db: Db, row: RejectedRow, perWindow: number, windowSeconds: number) {
  const [r] = await db.$queryRaw<{ rejected: number; retry_after: number; stored: bigint }[]>`
    WITH counted AS (
      INSERT INTO webhook_source_counters AS c (source_address, window_started_at, rejected)
      VALUES (${row.sourceAddress}, now(), 1)
      ON CONFLICT (source_address) DO UPDATE SET
        window_started_at = CASE WHEN c.window_started_at <= now() - make_interval(secs => ${windowSeconds}) THEN now() ELSE c.window_started_at END,
        rejected = CASE WHEN c.window_started_at <= now() - make_interval(secs => ${windowSeconds}) THEN 1 ELSE c.rejected + 1 END
      RETURNING rejected, window_started_at
    ), stored AS (
      INSERT INTO webhook_deliveries (organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
        signature_ok, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp)
      SELECT ${row.organizationId}::uuid, ${row.programId}::uuid, ${row.connectionId}::uuid, ${row.providerId}, ${row.requestedConnectionId},
        ${row.deliveryId}, ${row.signatureOk}, 'rejected'::webhook_outcome, ${row.reason}, ${row.statusCode}, ${row.sourceAddress},
        ${row.bodyBytes}, ${row.webhookTimestamp}::timestamptz
      FROM counted WHERE counted.rejected <= ${perWindow}
      RETURNING 1
    )
    SELECT counted.rejected,
      GREATEST(1, ceil(extract(epoch FROM counted.window_started_at + make_interval(secs => ${windowSeconds}) - now())))::int AS retry_after,
      (SELECT count(*) FROM stored) AS stored
    FROM counted`
  return r
}

/** A rejected row that does not count against its source. */
export async function storeRejectedAcrossOrganisations(db: Db, row: RejectedRow) {
  await db.$executeRaw`
    INSERT INTO webhook_deliveries (organization_id, program_id, connection_id, provider_id, requested_connection_id, delivery_id,
      signature_ok, outcome, reason, status_code, source_address, body_bytes, webhook_timestamp)
    VALUES (${row.organizationId}::uuid, ${row.programId}::uuid, ${row.connectionId}::uuid, ${row.providerId}, ${row.requestedConnectionId},
      ${row.deliveryId}, ${row.signatureOk}, 'rejected'::webhook_outcome, ${row.reason}, ${row.statusCode}, ${row.sourceAddress},
      ${row.bodyBytes}, ${row.webhookTimestamp}::timestamptz)`
}

/** webhook_retention: counters whose window ended more than `olderThanSeconds` ago, of every source address. */
export function sweepSourceCountersAcrossOrganisations(db: Db, olderThanSeconds: number): Promise<number> {
  return db.$executeRaw`DELETE FROM webhook_source_counters WHERE window_started_at < now() - make_interval(secs => ${olderThanSeconds})`
}

// ---------------------------------------------------------------------------------------------------------------
// Processing (the worker, handed a delivery's or a connection's id by its job)

/** Marks a delivery processed, only once: the number of rows marked (0 when it was already). */
export function markProcessedAcrossOrganisations(anyTx: AnyTx, rowId: string, result: string): Promise<number> {
  return asTx(anyTx).$executeRaw`
    UPDATE webhook_deliveries
    SET processed_at = now(), processing_result = ${result}, processing_attempts = processing_attempts + 1, last_error = NULL
    WHERE id = ${rowId}::uuid AND processed_at IS NULL`
}

export async function noteAttemptAcrossOrganisations(anyTx: AnyTx, rowId: string, error: string) {
  await asTx(anyTx).$executeRaw`
    UPDATE webhook_deliveries SET processing_attempts = processing_attempts + 1, last_error = ${error}
    WHERE id = ${rowId}::uuid AND processed_at IS NULL`
}

/** Notes why a delivery waits and queues the connection's keyed drain job at runAt, in one statement. */
export async function postponeWithDrainAcrossOrganisations(db: Db, rowId: string, error: string, drain: { task: string; payload: string; runAt: Date; jobKey: string }) {
  await db.$queryRaw`
    WITH noted AS (
      UPDATE webhook_deliveries SET processing_attempts = processing_attempts + 1, last_error = ${error}
      WHERE id = ${rowId}::uuid AND processed_at IS NULL
      RETURNING id
    )
    SELECT (graphile_worker.add_job(${drain.task}, ${drain.payload}::json, run_at => ${drain.runAt}::timestamptz,
      job_key => ${drain.jobKey}, job_key_mode => 'preserve_run_at')).id
    FROM noted`
}

/** Unprocessed accepted deliveries of a connection, oldest first. */
export async function waitingDeliveryIdsAcrossOrganisations(db: Db, connectionId: string, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM webhook_deliveries
    WHERE connection_id = ${connectionId}::uuid AND processed_at IS NULL AND outcome = 'enqueued'
    ORDER BY received_at LIMIT ${limit}`
  return rows.map((r) => r.id)
}
