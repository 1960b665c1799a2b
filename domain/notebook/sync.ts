// Owns how one notebook entry becomes the service's records. Full sync and webhook-driven updates both go through
// recordEntry, which is why they give the same result; an entry whose modifiedAt and review state are unchanged writes
// nothing new (only last_seen_at / last_fetched_at move).
//
// Per entry and transaction: connector_objects (entry + its attachments), a source of type eln_entry, its document
// (customer_internal, days kept in content_json), the experiment whose eln_source_id points to the source, attachment
// metadata, registry entities linked by id only, and an audit row (connector_object.create / connector_object.update).
import { lockEntry, markEntrySeen } from './sql'
import { readScopeRules, type ScopeRules } from '../adapters'
import { transactionFor, type Tx } from '../../core/database'
import { recordAudit, systemActor } from '../../core/audit'
import type { IntegrationContext } from '../adapters'
import {
  PROVIDER_ID, entryPayloadHash, externalVersion, flattenEntry, mention, targetRef,
  type NotebookEntry, type NotebookLink,
} from './canonical'
import { MAX_ATTACHMENT_BYTES, VendorNotFound, type AttachmentMetadata, type NotebookClient } from './client'

export const ENTRY = 'entry'
export const ATTACHMENT = 'attachment'
/** Mentions that are people or other entries, not registry entities. */
const NOT_REGISTRY = new Set(['user', 'entry'])

export { readScopeRules, type ScopeRules }

export type EntryOutcome = 'created' | 'updated' | 'unchanged' | 'stale' | 'out_of_scope' | 'archived' | 'not_found'

/** The notebook project or folder an entry sits in (vendors send folderId; some also send projectId). */
export function scopeKeysOf(entry: NotebookEntry): string[] {
  return [entry.projectId, entry.folderId].filter((v): v is string => typeof v === 'string' && v.length > 0)
}

/**
 * scope_rules are enforced here, whatever the vendor token can read: only entries in a mapped project (or folder) are
 * synced. An empty list maps nothing.
 */
export function inScope(rules: ScopeRules, entry: NotebookEntry): boolean {
  return scopeKeysOf(entry).some((k) => rules.project_ids.includes(k))
}

export function registryLinks(entry: NotebookEntry): string[] {
  const out = new Set<string>()
  const add = (l: NotebookLink | null | undefined) => { if (l && l.id && l.type && !NOT_REGISTRY.has(l.type)) out.add(mention(l)) }
  for (const day of entry.days ?? []) {
    for (const part of day.notes ?? []) {
      for (const l of part.links ?? []) add(l)
      for (const row of part.table?.rows ?? []) for (const cell of row.cells ?? []) add(cell.link)
    }
  }
  return [...out].sort()
}

function attachmentIds(entry: NotebookEntry): string[] {
  const ids = new Set<string>()
  for (const day of entry.days ?? []) for (const part of day.notes ?? []) {
    if (part.type === 'external_file' && typeof part.externalFileId === 'string' && part.externalFileId) ids.add(part.externalFileId)
  }
  return [...ids]
}

const modifiedAtOf = (version: string | null | undefined) => (version ? version.slice(version.indexOf('@') + 1) : null)
const stateOf = (entry: NotebookEntry) => (entry.reviewRecord?.status ? String(entry.reviewRecord.status) : null)
const actor = systemActor(`connector:${PROVIDER_ID}`)

/** Runs inside every path's transaction (the webhook processor marks its delivery processed there). */
export type Finalize = (tx: Tx, outcome: EntryOutcome) => Promise<void>


/**
 * Records what the vendor answered for an entry. `fetchStartedAt` is when the request that produced `entry` was sent:
 * any delivery received before it is covered by this version (the processor skips those without a fetch).
 */
export async function recordEntry(
  ctx: IntegrationContext,
  client: NotebookClient,
  entry: NotebookEntry,
  fetchStartedAt: Date,
  finalize?: Finalize,
): Promise<EntryOutcome> {
  const { db, tdb, connection } = ctx
  const rules = readScopeRules(connection.scopeRules)
  const key = { connectionId_externalType_externalId: { connectionId: connection.id, externalType: ENTRY, externalId: entry.id } }
  const state = stateOf(entry)

  if (!inScope(rules, entry) || entry.archiveRecord) {
    const outcome: EntryOutcome = entry.archiveRecord ? 'archived' : 'out_of_scope'
    await transactionFor(db, connection.organizationId, async (tx) => {
      await lockEntry(tx, connection.id, entry.id)
      const existing = await tx.connectorObject.findUnique({ where: key })
      if (existing && !existing.deletedAt) {
        // Moved out of the mapped projects (or archived): hidden from the service, kept as history.
        await tx.connectorObject.update({ where: { id: existing.id }, data: { deletedAt: new Date(), lastSeenAt: new Date(), state } })
        await recordAudit(tx, {
          organizationId: connection.organizationId, programId: connection.programId, action: 'connector_object.update', actor,
          target: { type: 'connector_object', id: existing.id },
          details: { connection_id: connection.id, source_system: PROVIDER_ID, external_id: entry.id, removed: outcome },
        })
      }
      await finalize?.(tx, outcome)
    })
    return outcome
  }

  const existing = await tdb.connectorObject.findUnique({ where: key })
  const unchanged = (o: typeof existing) => Boolean(o && !o.deletedAt && modifiedAtOf(o.externalVersion) === entry.modifiedAt && o.state === state)
  if (unchanged(existing)) {
    await transactionFor(db, connection.organizationId, async (tx) => {
      await markEntrySeen(tx, existing!.organizationId, existing!.id, fetchStartedAt)
      await finalize?.(tx, 'unchanged')
    })
    return 'unchanged'
  }

  // The attachments' digests are part of the payload hash: read their metadata (never their bytes) first.
  const metadata = new Map<string, AttachmentMetadata>()
  for (const fileId of attachmentIds(entry)) {
    try {
      metadata.set(fileId, await client.getAttachmentMetadata(entry.id, fileId))
    } catch (e) {
      if (!(e instanceof VendorNotFound)) throw e
    }
  }
  const digests = Object.fromEntries([...metadata].map(([id, m]) => [id, m.sha256]))
  const hash = entryPayloadHash(entry, { attachmentSha256: digests })
  const version = externalVersion(hash, entry.modifiedAt)
  const ref = targetRef(entry.id, hash)
  const flat = flattenEntry(entry, { attachmentSha256: digests })
  const modifiedAt = new Date(entry.modifiedAt)

  return transactionFor(db, connection.organizationId, async (tx) => {
    await lockEntry(tx, connection.id, entry.id)
    const current = await tx.connectorObject.findUnique({ where: key })
    // Another job stored a newer version meanwhile: this answer is older, keep what is there.
    if (current?.externalModifiedAt && !Number.isNaN(modifiedAt.getTime()) && current.externalModifiedAt > modifiedAt) {
      await finalize?.(tx, 'stale')
      return 'stale' as const
    }
    if (unchanged(current) || (current && !current.deletedAt && current.externalVersion === version && current.state === state)) {
      await markEntrySeen(tx, current!.organizationId, current!.id, fetchStartedAt)
      await finalize?.(tx, 'unchanged')
      return 'unchanged' as const
    }
    const scopeKey = scopeKeysOf(entry).find((k) => rules.project_ids.includes(k)) ?? null
    const fields = {
      externalVersion: version, payloadHash: hash, externalModifiedAt: Number.isNaN(modifiedAt.getTime()) ? null : modifiedAt,
      lastSeenAt: new Date(), deletedAt: null, state, scopeKey, lastFetchedAt: fetchStartedAt,
    }
    const object = current
      ? await tx.connectorObject.update({ where: { id: current.id }, data: fields })
      : await tx.connectorObject.create({
          data: {
            organizationId: connection.organizationId, programId: connection.programId, connectionId: connection.id,
            externalType: ENTRY, externalId: entry.id, ...fields,
          },
        })
    const ingested = await ctx.documents.upsertSource(tx, {
      connectionId: connection.id,
      connectorObjectId: object.id,
      sourceType: 'eln_entry',
      sourceSystem: PROVIDER_ID,
      externalId: entry.id,
      title: entry.name,
      url: typeof entry.webURL === 'string' ? entry.webURL : null,
      targetRef: ref,
      externalVersion: version,
      linkedEntities: registryLinks(entry),
      document: { classification: 'customer_internal', title: entry.name, text: flat.text, contentJson: flat.content_json, contentHash: hash },
      experiment: { title: entry.name },
    })
    if (!current || current.mappedId !== ingested.sourceId) {
      await tx.connectorObject.update({ where: { id: object.id }, data: { mappedType: 'source', mappedId: ingested.sourceId } })
    }
    for (const [fileId, m] of metadata) {
      const fetchable = m.size < MAX_ATTACHMENT_BYTES
      const { attachmentId } = await ctx.documents.upsertAttachment(tx, {
        connectionId: connection.id, sourceId: ingested.sourceId, externalId: fileId, entryExternalId: entry.id,
        name: m.name ?? fileId, mimeType: m.mimeType ?? null, sizeBytes: m.size, sha256: m.sha256 ?? null, fetchable,
      })
      const attachmentFields = {
        externalVersion: m.sha256 ? `${m.sha256}@${entry.modifiedAt}` : null, payloadHash: m.sha256 ?? null,
        externalModifiedAt: fields.externalModifiedAt, lastSeenAt: new Date(), deletedAt: null,
        mappedType: 'attachment', mappedId: attachmentId, scopeKey,
      }
      await tx.connectorObject.upsert({
        where: { connectionId_externalType_externalId: { connectionId: connection.id, externalType: ATTACHMENT, externalId: fileId } },
        update: attachmentFields,
        create: { organizationId: connection.organizationId, programId: connection.programId, connectionId: connection.id, externalType: ATTACHMENT, externalId: fileId, ...attachmentFields },
      })
    }
    await recordAudit(tx, {
      organizationId: connection.organizationId,
      programId: connection.programId,
      action: current ? 'connector_object.update' : 'connector_object.create',
      actor,
      target: { type: 'connector_object', id: object.id },
      details: {
        connection_id: connection.id, source_system: PROVIDER_ID, external_type: ENTRY, external_id: entry.id,
        external_version: version, previous_version: current?.externalVersion ?? null, target_ref: ref,
        state, previous_state: current?.state ?? null, content_changed: current?.payloadHash !== hash,
        source_id: ingested.sourceId,
      },
    })
    await finalize?.(tx, current ? 'updated' : 'created')
    return current ? ('updated' as const) : ('created' as const)
  })
}

/** An entry the vendor no longer has (404): hidden, kept as history. */
export async function recordEntryGone(ctx: IntegrationContext, entryId: string, finalize?: Finalize): Promise<'not_found'> {
  const { db, connection } = ctx
  await transactionFor(db, connection.organizationId, async (tx) => {
    await lockEntry(tx, connection.id, entryId)
    const existing = await tx.connectorObject.findUnique({
      where: { connectionId_externalType_externalId: { connectionId: connection.id, externalType: ENTRY, externalId: entryId } },
    })
    if (existing && !existing.deletedAt) {
      await tx.connectorObject.update({ where: { id: existing.id }, data: { deletedAt: new Date() } })
      await recordAudit(tx, {
        organizationId: connection.organizationId, programId: connection.programId, action: 'connector_object.update', actor,
        target: { type: 'connector_object', id: existing.id },
        details: { connection_id: connection.id, source_system: PROVIDER_ID, external_id: entryId, removed: 'deleted_in_source' },
      })
    }
    await finalize?.(tx, 'not_found')
  })
  return 'not_found'
}
