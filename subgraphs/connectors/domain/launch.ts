// Owns notebook canvas launches: one-time launch_ids (10-minute expiry) created by a click, opened once by the console,
// swept 24 h after expiry.
import type { Db, Tx } from '../../../core/db'
import { DomainError } from '../../../core/errors'
import { assertCan } from '../../../core/session'
import { recordAudit } from '../../../core/audit'
import type { GraphQLContext } from '../../shared/context'
import { PROVIDER_ID } from './notebook/canonical'

export const LAUNCH_TTL_MS = 10 * 60_000
export const LAUNCH_SWEEP_AFTER_MS = 24 * 60 * 60_000

type Ctx = Pick<GraphQLContext, 'session' | 'tdb' | 'db'>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function createLaunch(
  tx: Tx,
  input: { id: string; organizationId: string; programId: string; connectionId: string; entryId: string; sourceId: string | null; canvasId: string | null; notebookUserId: string | null; now?: Date },
) {
  const createdAt = input.now ?? new Date()
  return tx.launchId.create({
    data: {
      id: input.id, organizationId: input.organizationId, programId: input.programId, connectionId: input.connectionId,
      entryExternalId: input.entryId, sourceId: input.sourceId, canvasId: input.canvasId, notebookUserId: input.notebookUserId,
      createdAt, expiresAt: new Date(createdAt.getTime() + LAUNCH_TTL_MS),
    },
  })
}

export interface LaunchTarget {
  launchId: string
  programId: string
  connectionId: string
  sourceSystem: string
  entryId: string
  entryName: string | null
  sourceId: string | null
  experimentId: string | null
  targetRef: string | null
}

const notFound = () => new DomainError('launch_not_found', 'This launch link is not known here.', { status: 404 })

/**
 * Opens a launch exactly once: the console learns which entry and program to open. A second use answers launch_used,
 * an expired one launch_expired. Needs evidence.sources.read in the launch's program.
 */
export async function openLaunch(ctx: Ctx, launchId: string): Promise<LaunchTarget> {
  if (!UUID.test(launchId)) throw notFound()
  const launch = await ctx.tdb.launchId.findFirst({ where: { id: launchId } })
  if (!launch) throw notFound()
  assertCan(ctx.session, 'evidence.sources.read', launch.programId)
  return ctx.tdb.$transaction(async (tx) => {
    const now = new Date()
    const consumed = await tx.launchId.updateMany({
      where: { id: launchId, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now, usedByUserId: ctx.session.userId },
    })
    if (consumed.count !== 1) {
      const row = await tx.launchId.findFirst({ where: { id: launchId } })
      if (row?.usedAt) throw new DomainError('launch_used', 'This launch link was used already; click the prompt in the notebook again.', { status: 409 })
      throw new DomainError('launch_expired', 'This launch link expired (launch links are valid for 10 minutes); click the prompt in the notebook again.', { status: 410 })
    }
    const object = await tx.connectorObject.findFirst({
      where: { connectionId: launch.connectionId, externalType: 'entry', externalId: launch.entryExternalId },
    })
    const sourceId = launch.sourceId ?? (object?.mappedType === 'source' ? object.mappedId : null)
    const source = sourceId ? await tx.source.findFirst({ where: { id: sourceId } }) : null
    const experiment = source ? await tx.experiment.findFirst({ where: { elnSourceId: source.id } }) : null
    await recordAudit(tx, {
      organizationId: launch.organizationId, programId: launch.programId, action: 'launch.open',
      actor: { type: 'user', userId: ctx.session.userId }, target: { type: 'launch_id', id: launch.id },
      details: { connection_id: launch.connectionId, entry_id: launch.entryExternalId, source_system: PROVIDER_ID },
    })
    return {
      launchId: launch.id,
      programId: launch.programId,
      connectionId: launch.connectionId,
      sourceSystem: PROVIDER_ID,
      entryId: launch.entryExternalId,
      entryName: source?.title ?? null,
      sourceId: source?.id ?? null,
      experimentId: experiment?.id ?? null,
      targetRef: source?.targetRef ?? null,
    }
  })
}

/** Deletes launch ids 24 h after they expired (daily job). */
export async function sweepLaunchIds(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - LAUNCH_SWEEP_AFTER_MS)
  const r = await db.launchId.deleteMany({ where: { expiresAt: { lt: cutoff } } })
  return r.count
}
