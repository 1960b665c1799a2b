// Owns QMS ingestion into sops / sop_versions: the delta poll (version_modified_date__v greater than the stored
// watermark, paged, the watermark advanced in the same transaction as the page it covers) and the nightly
// reconciliation (the whole ALLVERSIONS listing plus the document events endpoint: versions the poll missed, re-stated
// in place, deleted upstream, or superseded). Per version: the lifecycle label mapped per connection (unmapped when the
// map has no entry), effective_at from the effective-date field or the first observation (effective_on_observed),
// superseded_at from the source or the successor's effective_at, text from the text endpoint (preferred) else the
// rendition, a rendition downloaded only when (major, minor, rendition_hash) changed, the text through the shared
// outside-content sanitiser. Every vendor call for a page happens before its transaction: a failure writes nothing of
// the page and leaves the watermark where it was.
import { applySuccessorRule, lockQmsSync, markSopsWithoutVersionsDeleted } from './sql'
import { createHash } from 'node:crypto'
import type { Prisma, SopVersion } from '../../generated/prisma/client'
import { recordAudit, systemActor } from '../../core/audit'
import { transactionFor } from '../../core/database'
import { DomainError } from '../../core/errors'
import { sanitiseOutsideText } from '../../core/text'
import type { IntegrationContext, SyncReport } from '../adapters'
import { readScopeRules } from '../adapters'
import { VendorNotFound } from '../adapters'
import type { QmsClient } from './client'
import { mapLabel, qmsSettingsOf, type QmsSettings, type QmsState, type TemplateRole } from './settings'

export const PROVIDER_ID = 'qms_provider'
const ACTOR = systemActor('qms_sync')
/** Vendor calls in flight at once for one page (text and renditions). */
const FETCH_CONCURRENCY = 8
/** The oldest watermark: the first poll reads every version. */
export const EPOCH = '1970-01-01T00:00:00.000Z'

export interface VaultVersion {
  documentId: string
  major: number
  minor: number
  label: string | null
  modifiedAt: string
  number: string
  title: string
  documentType: string
  effectiveDate: string | null
  supersededDate: string | null
  renditionHash: string | null
  versionLabel: string
}

export interface QmsSyncReport extends SyncReport {
  unmapped: number
  restated: number
  superseded: number
  textsFetched: number
  renditionsFetched: number
  renditionsSkipped: number
  delayedAnswers: number
  pages: number
}

const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v))
const iso = (v: unknown) => {
  const s = str(v)
  if (!s) return null
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')

/** The configured settings, or connection_not_ready naming what to configure. */
export function requireSettings(ctx: IntegrationContext): QmsSettings {
  const s = qmsSettingsOf(ctx.connection)
  if (!s) throw new DomainError('connection_not_ready', 'Configure the QMS connection first (client id, instance id, query template, lifecycle map).', { field: 'providerSettings' })
  return s
}

export function selectList(s: QmsSettings): string[] {
  return [...new Set(Object.values(s.query_template).filter((f): f is string => Boolean(f)))]
}

/** The query over all versions, optionally after a watermark, ordered by the modification date (stable pages). */
export function versionsQuery(s: QmsSettings, after: string | null): string {
  const t = s.query_template
  const where = after ? ` WHERE ${t.modified} > '${after.replace(/'/g, '')}'` : ''
  return `SELECT ${selectList(s).join(', ')} FROM ALLVERSIONS documents${where} ORDER BY ${t.modified}`
}

/** One row of the vault in the template's field names, or a typed error naming what is missing (nothing is written). */
export function readRow(s: QmsSettings, row: Record<string, unknown>): VaultVersion {
  const t = s.query_template
  const get = (role: TemplateRole) => (t[role] ? row[t[role]!] : undefined)
  const documentId = str(get('id'))
  const major = Number(get('major'))
  const minor = Number(get('minor'))
  const modifiedAt = iso(get('modified'))
  if (!documentId || !Number.isInteger(major) || !Number.isInteger(minor) || !modifiedAt) {
    throw new DomainError('connection_not_ready', `The vault answered a version row without id, major, minor or modification date (document ${documentId ?? '?'}).`)
  }
  return {
    documentId, major, minor, modifiedAt, label: str(get('status')), number: str(get('number')) ?? documentId, title: str(get('title')) ?? str(get('number')) ?? documentId,
    documentType: str(get('documentType')) ?? 'unknown', effectiveDate: iso(get('effectiveDate')), supersededDate: iso(get('supersededDate')),
    renditionHash: str(get('renditionHash')), versionLabel: str(get('versionLabel')) ?? `${major}.${minor}`,
  }
}

interface Fetched { text: string | null; textSource: 'text_endpoint' | 'rendition' | null; rendition: Buffer | null }

async function inParallel<T, R>(items: T[], limit: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i])
    }
  }))
  return out
}

/** Text from the text endpoint; the rendition only when its triple changed, or when there is no text to parse. */
async function fetchVersion(client: QmsClient, s: QmsSettings, v: VaultVersion, existing: SopVersion | undefined, needText: boolean, report: QmsSyncReport): Promise<Fetched> {
  let text: string | null = null
  let textSource: Fetched['textSource'] = null
  if (needText) {
    text = await client.versionText(v.documentId, v.major, v.minor)
    if (text !== null) {
      textSource = 'text_endpoint'
      report.textsFetched += 1
    }
  }
  const tripleChanged = !existing || existing.renditionHash !== v.renditionHash || !existing.renditionFetchedAt
  let rendition: Buffer | null = null
  if (tripleChanged || (needText && text === null)) {
    rendition = await client.rendition(v.documentId, v.major, v.minor, s.rendition_type)
    report.renditionsFetched += 1
    if (needText && text === null) {
      text = renditionText(rendition)
      textSource = 'rendition'
    }
  } else {
    report.renditionsSkipped += 1
  }
  return { text, textSource, rendition }
}

/** Rendition parsing for viewable text files (the fallback when the vault has no text for a version). */
export function renditionText(b: Buffer): string {
  return b.toString('utf8').replace(/^%[A-Z-]+\n/, '').replace(/[^\x09\x0a\x0d\x20-\x7e\u00a0-\uffff]/g, '')
}

type Tx = Prisma.TransactionClient

/**
 * Writes one page in one transaction: sops and versions, sop_version.update audit rows for every change, superseded_at
 * from successors, and (poll) the watermark. Returns what changed.
 */
async function commitPage(ctx: IntegrationContext, s: QmsSettings, items: { v: VaultVersion; existing?: SopVersion; fetched: Fetched | null }[], watermark: string | null, report: QmsSyncReport, observedAt: Date) {
  const c = ctx.connection
  await transactionFor(ctx.db, ctx.connection.organizationId, async (tx: Tx) => {
    // A poll and a reconciliation of the same connection commit one page at a time, in turn; each writes against the
    // rows as they are now (another run may have written some of them since they were read).
    await lockQmsSync(tx, c.id)
    const current = items.length
      ? await tx.sopVersion.findMany({ where: { connectionId: c.id, OR: items.map(({ v }) => ({ documentId: v.documentId, major: v.major, minor: v.minor })) } })
      : []
    const now = new Map(current.map((e) => [`${e.documentId}|${e.major}|${e.minor}`, e]))
    const touchedSops = new Set<string>()
    // One upsert per document of the page (its versions share it).
    const sops = new Map<string, { id: string }>()
    for (const { v, fetched } of items) {
      const existing = now.get(`${v.documentId}|${v.major}|${v.minor}`)
      let sop = sops.get(v.documentId)
      if (!sop) {
        sop = await tx.sop.upsert({
          where: { connectionId_externalDocumentId: { connectionId: c.id, externalDocumentId: v.documentId } },
          create: { organizationId: c.organizationId, programId: c.programId, origin: 'connector', connectionId: c.id, externalDocumentId: v.documentId, documentNumber: v.number, documentType: v.documentType, title: v.title },
          update: { documentNumber: v.number, documentType: v.documentType, title: v.title, deletedAt: null },
          select: { id: true },
        })
        sops.set(v.documentId, sop)
      }
      touchedSops.add(sop.id)
      const state: QmsState = mapLabel(s, v.label)
      if (state === 'unmapped') report.unmapped += 1
      // effective_at: the source's effective date; else, for an effective version, its first observation as effective.
      let effectiveAt: Date | null = v.effectiveDate ? new Date(v.effectiveDate) : null
      let effectiveOnObserved = false
      if (!effectiveAt && existing?.effectiveAt && existing.effectiveOnObserved) {
        effectiveAt = existing.effectiveAt
        effectiveOnObserved = true
      } else if (!effectiveAt && state === 'effective') {
        effectiveAt = observedAt
        effectiveOnObserved = true
      }
      const supersededAt = v.supersededDate ? new Date(v.supersededDate) : state === 'superseded' ? existing?.supersededAt ?? null : null
      const clean = fetched?.text !== null && fetched?.text !== undefined ? sanitiseOutsideText(fetched.text) : null
      const data = {
        documentId: v.documentId, externalVersionId: `${v.documentId}_${v.major}_${v.minor}`, externalVersionLabel: v.versionLabel, vendorLabel: v.label,
        lifecycleState: state, effectiveAt, effectiveOnObserved, supersededAt, renditionHash: v.renditionHash, externalModifiedAt: new Date(v.modifiedAt),
        lastSeenAt: observedAt, deletedAt: null,
        ...(clean ? { text: clean.text, textHash: sha256(clean.text), textSource: fetched!.textSource, sanitiserFindings: clean.findings } : {}),
        ...(fetched?.rendition ? { renditionType: s.rendition_type, renditionSha256: sha256(fetched.rendition), renditionBytes: fetched.rendition.length, renditionFetchedAt: observedAt } : {}),
      }
      const row = existing
        ? await tx.sopVersion.update({ where: { id: existing.id }, data })
        : await tx.sopVersion.create({ data: { organizationId: c.organizationId, programId: c.programId, sopId: sop.id, connectionId: c.id, major: v.major, minor: v.minor, firstObservedAt: observedAt, ...data } })
      const changes = diff(existing, row)
      if (!existing) report.created += 1
      else if (Object.keys(changes).length) {
        report.updated += 1
        if (existing.externalModifiedAt && existing.externalModifiedAt.getTime() === row.externalModifiedAt?.getTime()) report.restated += 1
      } else report.unchanged += 1
      if (!existing || Object.keys(changes).length) {
        await recordAudit(tx, {
          organizationId: c.organizationId, programId: c.programId, action: 'sop_version.update', actor: ACTOR, target: { type: 'sop_version', id: row.id },
          details: { connection_id: c.id, document_number: v.number, version: `${v.major}.${v.minor}`, vendor_label: v.label, created: !existing, changes },
        })
      }
    }
    report.superseded += await applySuccessorRule(tx, c.organizationId, [...touchedSops])
    if (watermark) await tx.connection.update({ where: { id: c.id }, data: { syncCursor: watermark } })
  }, { timeout: 120_000 })
}

const AUDITED: (keyof SopVersion)[] = ['lifecycleState', 'vendorLabel', 'effectiveAt', 'effectiveOnObserved', 'supersededAt', 'renditionHash', 'textHash', 'externalVersionLabel', 'deletedAt']
function diff(before: SopVersion | undefined, after: SopVersion): Record<string, { from: unknown; to: unknown }> {
  if (!before) return {}
  const out: Record<string, { from: unknown; to: unknown }> = {}
  for (const k of AUDITED) {
    const a = before[k] instanceof Date ? (before[k] as Date).toISOString() : before[k]
    const b = after[k] instanceof Date ? (after[k] as Date).toISOString() : after[k]
    if (a !== b) out[k] = { from: a ?? null, to: b ?? null }
  }
  return out
}

function emptyReport(mode: 'full' | 'incremental', cursor: string | null): QmsSyncReport {
  return { mode, seen: 0, created: 0, updated: 0, unchanged: 0, outOfScope: 0, deleted: 0, cursor, unmapped: 0, restated: 0, superseded: 0, textsFetched: 0, renditionsFetched: 0, renditionsSkipped: 0, delayedAnswers: 0, pages: 0 }
}

/** Processes one page of vault rows: scope, fetch (outside any transaction), commit. */
async function processPage(ctx: IntegrationContext, client: QmsClient, s: QmsSettings, rows: Record<string, unknown>[], report: QmsSyncReport, opts: { watermark: boolean; force: boolean }, seen?: Set<string>) {
  const scope = readScopeRules(ctx.connection.scopeRules).document_types
  const versions = rows.map((r) => readRow(s, r))
  report.seen += versions.length
  let maxModified: string | null = null
  for (const v of versions) if (!maxModified || v.modifiedAt > maxModified) maxModified = v.modifiedAt
  const inScope = versions.filter((v) => {
    const ok = scope.length === 0 || scope.includes(v.documentType)
    if (!ok) report.outOfScope += 1
    else seen?.add(`${v.documentId}|${v.major}|${v.minor}`)
    return ok
  })
  const existing = inScope.length
    ? await ctx.tdb.sopVersion.findMany({ where: { connectionId: ctx.connection.id, OR: inScope.map((v) => ({ documentId: v.documentId, major: v.major, minor: v.minor })) } })
    : []
  const byKey = new Map(existing.map((e) => [`${e.documentId}|${e.major}|${e.minor}`, e]))
  const work = inScope.map((v) => {
    const e = byKey.get(`${v.documentId}|${v.major}|${v.minor}`)
    const changed = !e || e.deletedAt !== null || e.externalModifiedAt?.toISOString() !== v.modifiedAt || e.vendorLabel !== v.label
      || e.renditionHash !== v.renditionHash || (v.effectiveDate ?? null) !== (e.effectiveOnObserved ? null : e.effectiveAt?.toISOString() ?? null)
      || (v.supersededDate !== null && v.supersededDate !== e.supersededAt?.toISOString())
    return { v, existing: e, changed: changed || opts.force }
  })
  const toWrite = work.filter((w) => w.changed)
  report.unchanged += work.length - toWrite.length
  const observedAt = new Date()
  const fetched = await inParallel(toWrite, FETCH_CONCURRENCY, async (w) => {
    const needText = !w.existing || !w.existing.textHash || w.existing.externalModifiedAt?.toISOString() !== w.v.modifiedAt || w.existing.deletedAt !== null || opts.force
    try {
      return await fetchVersion(client, s, w.v, w.existing, needText, report)
    } catch (e) {
      if (e instanceof DomainError) e.message = `${w.v.number} ${w.v.major}.${w.v.minor}: ${e.message}`
      throw e
    }
  })
  // Unchanged rows are still seen: one statement for all of them.
  const unchangedIds = work.filter((w) => !w.changed && w.existing).map((w) => w.existing!.id)
  await transactionFor(ctx.db, ctx.connection.organizationId, async (tx: Tx) => {
    if (unchangedIds.length) await tx.sopVersion.updateMany({ where: { id: { in: unchangedIds } }, data: { lastSeenAt: observedAt } })
  })
  await commitPage(ctx, s, toWrite.map((w, i) => ({ v: w.v, existing: w.existing, fetched: fetched[i] })), opts.watermark ? maxModified : null, report, observedAt)
  if (opts.watermark && maxModified && (!report.cursor || maxModified > report.cursor)) report.cursor = maxModified
  report.pages += 1
}

/** The delta poll (poll_qms): versions modified after the watermark, page by page. */
export async function pollVersions(ctx: IntegrationContext, client: QmsClient): Promise<QmsSyncReport> {
  const s = requireSettings(ctx)
  const watermark = ctx.connection.syncCursor ?? null
  const report = emptyReport('incremental', watermark)
  let page = await client.query(versionsQuery(s, watermark ?? EPOCH))
  for (;;) {
    await processPage(ctx, client, s, page.rows, report, { watermark: true, force: false })
    if (!page.next) break
    page = await client.query({ next: page.next })
  }
  report.delayedAnswers = client.delays.count
  return report
}

/**
 * The nightly reconciliation (reconcile_qms): every version of the ALLVERSIONS listing is compared with the mirror and
 * repaired when it differs (changes the poll missed, versions re-stated in place); versions the listing no longer
 * shows are marked deleted upstream, dated from the document events endpoint. The watermark moves forward only.
 */
export async function reconcileVersions(ctx: IntegrationContext, client: QmsClient): Promise<QmsSyncReport> {
  const s = requireSettings(ctx)
  const report = emptyReport('full', ctx.connection.syncCursor ?? null)
  const seen = new Set<string>()
  let page = await client.query(versionsQuery(s, null))
  for (;;) {
    // The watermark is not advanced by reconciliation pages (they are not in modification order relative to the poll's
    // last page); the poll continues from its own mark.
    await processPage(ctx, client, s, page.rows, report, { watermark: false, force: false }, seen)
    if (!page.next) break
    page = await client.query({ next: page.next })
  }
  const mirrored = await ctx.tdb.sopVersion.findMany({ where: { connectionId: ctx.connection.id, deletedAt: null }, select: { id: true, documentId: true, major: true, minor: true, sopId: true, lifecycleState: true } })
  const gone = mirrored.filter((m) => !seen.has(`${m.documentId}|${m.major}|${m.minor}`))
  const eventsByDoc = new Map<string, { name: string; properties: Record<string, unknown> }[]>()
  for (const g of gone) {
    if (!g.documentId || eventsByDoc.has(g.documentId)) continue
    try {
      eventsByDoc.set(g.documentId, await client.events(g.documentId))
    } catch (e) {
      if (!(e instanceof VendorNotFound)) throw e
      eventsByDoc.set(g.documentId, [])
    }
  }
  const now = new Date()
  if (gone.length) {
    await transactionFor(ctx.db, ctx.connection.organizationId, async (tx: Tx) => {
      for (const g of gone) {
        const ev = (eventsByDoc.get(g.documentId!) ?? []).filter((e) => e.name === 'version_deleted'
          && Number(e.properties.major_version_number__v) === g.major && Number(e.properties.minor_version_number__v) === g.minor).at(-1)
        const deletedAt = iso(ev?.properties.event_date__v) ? new Date(iso(ev!.properties.event_date__v)!) : now
        await tx.sopVersion.update({ where: { id: g.id }, data: { deletedAt } })
        await recordAudit(tx, {
          organizationId: ctx.connection.organizationId, programId: ctx.connection.programId, action: 'sop_version.update', actor: ACTOR,
          target: { type: 'sop_version', id: g.id }, details: { connection_id: ctx.connection.id, version: `${g.major}.${g.minor}`, changes: { deletedAt: { from: null, to: deletedAt.toISOString() } }, event: ev ? 'version_deleted' : null },
        })
        report.deleted += 1
      }
      await applySuccessorRule(tx, ctx.connection.organizationId, [...new Set(gone.map((g) => g.sopId))])
      // A document none of whose versions is listed any more is deleted upstream too.
      await markSopsWithoutVersionsDeleted(tx, ctx.connection.organizationId, [...new Set(gone.map((g) => g.sopId))], now)
    })
  }
  await ctx.tdb.connection.update({ where: { id: ctx.connection.id }, data: { providerSettings: { ...(ctx.connection.providerSettings as object), reconciled_at: now.toISOString() } } })
  report.delayedAnswers = client.delays.count
  return report
}
