// A delivery is processed once or retried, never marked processed with its write lost. The failure is a real one:
// a PostgreSQL trigger fails the write that marks the delivery processed, once (a sequence counts the attempts, and a
// sequence is not rolled back with the failed transaction), and the worker must retry the job instead of completing it.
import { afterEach, describe, expect, it } from 'vitest'
import { createTenant } from '../helpers/factories'
import { entryUpdated, jobCount, makeJobsDue, sampleEntry, useNotebookStack } from './helpers'

const { fake, db, work, connect } = useNotebookStack()

/** Fails the first `times` updates that mark a delivery processed; `removeInjectedFailure` takes the trigger away. */
async function failProcessedMark(times = 1) {
  await db().$executeRawUnsafe('DROP TRIGGER IF EXISTS injected_mark_failure ON webhook_deliveries')
  await db().$executeRawUnsafe('DROP SEQUENCE IF EXISTS injected_mark_attempts')
  await db().$executeRawUnsafe('CREATE SEQUENCE injected_mark_attempts')
  await db().$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION injected_mark_failure() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF OLD.processed_at IS NULL AND NEW.processed_at IS NOT NULL AND nextval('injected_mark_attempts') <= ${times} THEN
        RAISE EXCEPTION 'injected failure: the processing mark could not be written';
      END IF;
      RETURN NEW;
    END $$`)
  await db().$executeRawUnsafe(`
    CREATE TRIGGER injected_mark_failure BEFORE UPDATE ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION injected_mark_failure()`)
}
afterEach(async () => {
  await db().$executeRawUnsafe('DROP TRIGGER IF EXISTS injected_mark_failure ON webhook_deliveries')
  fake.control.behave()
})

const delivery = (deliveryId: string) => db().webhookDelivery.findFirstOrThrow({ where: { deliveryId } })
const lastJobError = async () => {
  const [job] = await db().$queryRaw<{ last_error: string | null; attempts: number }[]>`
    SELECT last_error, attempts FROM graphile_worker.jobs WHERE task_identifier = 'connector_delivery_process'`
  return job
}

describe('webhook processing under a failed write', () => {
  it('retries a delivery for a disconnected connection whose processing mark failed, instead of completing it unmarked', async () => {
    const tenant = await createTenant(db(), 'Lost mark')
    const nb = await connect(tenant)
    sampleEntry(fake, 'etr_lost_1')
    const sent = await nb.send(entryUpdated('etr_lost_1'))
    expect(sent.status).toBe(202)
    // Disconnected after the 202 and before the worker runs: the delivery's result is connection_disconnected.
    await db().connection.update({ where: { id: nb.connection.id }, data: { status: 'disconnected' } })
    await failProcessedMark()

    await work()
    expect((await delivery(sent.deliveryId)).processedAt).toBeNull()
    // The job failed with the write's error and waits for its retry (today's code completed it and forgot the delivery).
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(1)
    expect(await lastJobError()).toMatchObject({ attempts: 1, last_error: expect.stringContaining('injected failure') })

    await makeJobsDue(db())
    await work()
    const row = await delivery(sent.deliveryId)
    expect(row.processedAt).not.toBeNull()
    expect(row.processingResult).toBe('connection_disconnected')
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(0)
  })

  it('writes an entry once when the mark committed with it failed: nothing of the first attempt stays, the retry writes it', async () => {
    const tenant = await createTenant(db(), 'Lost entry')
    const nb = await connect(tenant)
    sampleEntry(fake, 'etr_lost_2')
    const sent = await nb.send(entryUpdated('etr_lost_2'))
    await failProcessedMark()

    await work()
    expect((await delivery(sent.deliveryId)).processedAt).toBeNull()
    const objects = () => db().connectorObject.findMany({ where: { connectionId: nb.connection.id, externalId: 'etr_lost_2' } })
    expect(await objects()).toEqual([]) // rolled back with the mark
    expect(await jobCount(db(), 'connector_delivery_process')).toBe(1)

    await makeJobsDue(db())
    await work()
    const row = await delivery(sent.deliveryId)
    expect(row).toMatchObject({ processingResult: 'created' })
    expect(row.processedAt).not.toBeNull()
    const [object] = await objects()
    expect(await db().auditEvent.count({ where: { action: 'connector_object.create', targetId: object.id } })).toBe(1)
  })
})
