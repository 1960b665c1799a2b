// Owns notebook canvas launches: one-time launch_ids (10-minute expiry) created by a click, opened once by the console,
// swept 24 h after expiry.
import { z } from 'zod'
import type { Db, Tx } from '../../core/database'
import { LaunchExpired, LaunchNotFound, LaunchUsed } from '../../core/errors'
import { command } from '../../core/jobs'
import { PROVIDER_ID } from './canonical'
import { isId } from '../../core/text'
import { checkForLaunch } from '../qms'

export const LAUNCH_TTL_MS = 10 * 60_000
export const LAUNCH_SWEEP_AFTER_MS = 24 * 60 * 60_000


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
  /** The check the launch opened ("Check this entry against the effective SOP"), or null with the reason. */
  checkId: string | null
  checkNote: string | null
}

/**
 * Opens a launch exactly once: the console learns which entry and program to open. A second use answers launch_used,
 * an expired one launch_expired; an unknown or malformed id launch_not_found. Needs evidence.sources.read in the
 * launch's program.
 */
export const openLaunch = command({
  permission: 'evidence.sources.read',
  input: z.object({ launchId: z.string().max(200) }),
  async load(q, { launchId }) {
    const launch = isId(launchId) ? await q.launchId.findFirst({ where: { id: launchId } }) : null
    if (!launch) throw new LaunchNotFound('This launch link is not known here.', { field: 'launchId' })
    return launch
  },
  program: (_input, launch) => launch.programId,
  errors: [LaunchNotFound, LaunchUsed, LaunchExpired],
  audit: ['launch.open', 'sop_check.create'],
  async run(w, _input, launch): Promise<LaunchTarget> {
    const now = new Date()
    const consumed = await w.tx.launchId.updateMany({
      where: { id: launch.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now, usedByUserId: w.ctx.session.userId },
    })
    if (consumed.count !== 1) {
      const row = await w.tx.launchId.findFirst({ where: { id: launch.id } })
      if (row?.usedAt) throw new LaunchUsed('This launch link was used already; click the prompt in the notebook again.')
      throw new LaunchExpired('This launch link expired (launch links are valid for 10 minutes); click the prompt in the notebook again.')
    }
    const object = await w.tx.connectorObject.findFirst({
      where: { connectionId: launch.connectionId, externalType: 'entry', externalId: launch.entryExternalId },
    })
    const sourceId = launch.sourceId ?? (object?.mappedType === 'source' ? object.mappedId : null)
    const source = sourceId ? await w.tx.source.findFirst({ where: { id: sourceId } }) : null
    const experiment = source ? await w.tx.experiment.findFirst({ where: { elnSourceId: source.id } }) : null
    await w.audit('launch.open', { type: 'launch_id', id: launch.id },
      { connection_id: launch.connectionId, entry_id: launch.entryExternalId, source_system: PROVIDER_ID })
    // The launch is the act of a person who clicked the check prompt on a verified canvas: it opens the check.
    const check = await checkForLaunch(w, { id: launch.id, programId: launch.programId, sourceId: source?.id ?? null })
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
      checkId: check.checkId,
      checkNote: check.reason,
    }
  },
})

/** Deletes launch ids 24 h after they expired (daily job). */
export async function sweepLaunchIds(db: Db, now = new Date()): Promise<number> {
  return (await deleteExpiredLaunchIdsAcrossOrganisations(db, new Date(now.getTime() - LAUNCH_SWEEP_AFTER_MS))).count
}

/** The daily sweep is one rule for every organisation's launch ids, so it spans them. */
function deleteExpiredLaunchIdsAcrossOrganisations(db: Db, cutoff: Date) {
  return db.launchId.deleteMany({ where: { expiresAt: { lt: cutoff } } })
}
