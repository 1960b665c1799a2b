// Service plumbing, not tenant data: the statements about the connection and the machinery itself (does the database
// answer, a savepoint around an audit hook, graphile-worker's add_job), none of which reads or writes an
// organisation's rows. Listed as plumbing in tests/platform/sql-road.test.ts, so a reviewer of tenancy may skip it.
import { randomBytes } from 'node:crypto'
import { asTx, type AnyTx, type Db, type Tx } from '../database'

/** Readiness: true when the database answers a round trip (gateway, subgraphs and worker /readyz). */
export function databaseAnswers(db: Db): Promise<boolean> {
  return db.$queryRaw`SELECT 1`.then(() => true, () => false)
}

/**
 * Runs `step` inside a savepoint of `tx`: when it throws, only its own statements are rolled back and the error is
 * answered (the transaction goes on); otherwise the savepoint is released and null answered.
 */
export async function inSavepoint(tx: Tx, prefix: string, step: () => Promise<void>): Promise<unknown> {
  const savepoint = `${prefix}_${randomBytes(6).toString('hex')}` // a trusted identifier: prefix is a constant
  await tx.$executeRawUnsafe(`SAVEPOINT ${savepoint}`)
  try {
    await step()
    await tx.$executeRawUnsafe(`RELEASE SAVEPOINT ${savepoint}`)
    return null
  } catch (err) {
    await tx.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${savepoint}`)
    return err ?? new Error('the step failed')
  }
}

export interface GraphileJob {
  task: string
  payload: Record<string, unknown>
  queueName: string | null
  runAt: Date | null
  maxAttempts: number | null
  jobKey: string | null
  jobKeyMode: 'replace' | 'preserve_run_at' | 'unsafe_dedupe'
  priority: number | null
}

/** graphile_worker.add_job in the caller's transaction (core/jobs/jobs.ts enqueue validates the payload first). */
export async function addGraphileJob(tx: AnyTx, job: GraphileJob): Promise<void> {
  await asTx(tx).$executeRaw`SELECT graphile_worker.add_job(
    identifier => ${job.task}::text,
    payload => ${JSON.stringify(job.payload)}::json,
    queue_name => ${job.queueName}::text,
    run_at => ${job.runAt}::timestamptz,
    max_attempts => ${job.maxAttempts}::int,
    job_key => ${job.jobKey}::text,
    priority => ${job.priority}::int,
    job_key_mode => ${job.jobKeyMode}::text
  )`
}
