// What the fake QMS (document vault) holds: one vault (instance id), integration users, sessions, documents with
// versions (lifecycle labels configured per vault, text, a viewable rendition and its checksum), document events,
// the burst window, and the faults a test orders. Everything it holds is illustrative. Imports nothing of the service.
import { createHash, randomBytes } from 'node:crypto'
import { illustrative } from '../common/ids'

export const SUPPORTED_VERSIONS = ['v25.3', 'v26.1', 'v26.2'] as const
export const PAGE_SIZE = 1000

/** The document fields the vault knows (queryable); a query naming another field fails like the real vault. */
export const DOCUMENT_FIELDS = [
  'id', 'name__v', 'type__v', 'document_number__v', 'major_version_number__v', 'minor_version_number__v', 'status__v',
  'version_modified_date__v', 'effective_date__v', 'superseded_date__v', 'md5checksum__v', 'version_label__v',
] as const

export const DEFAULT_LIFECYCLE_LABELS = ['Draft', 'In Review', 'Approved', 'Effective', 'Superseded', 'Obsolete', 'Pending Retirement'] as const

export interface FakeVersion {
  major: number
  minor: number
  status: string
  modifiedAt: string
  effectiveDate: string | null
  supersededDate: string | null
  text: string
  rendition: Buffer
  deleted: boolean
}

export interface FakeDocument {
  id: string
  name: string
  type: string
  number: string
  versions: FakeVersion[]
  events: { name: string; label: string; properties: Record<string, unknown> }[]
}

export interface FakeQmsFaults {
  /** Every answer waits this long and carries X-VaultAPI-ResponseDelay. */
  responseDelayMs: number
  /** The next N text requests answer 404 (the adapter falls back to the rendition). */
  textUnavailableNext: number
  /** The next N rendition downloads break after half the bytes. */
  renditionBreakNext: number
  /** Every download of this version ('docId/major/minor') breaks after half the bytes. */
  renditionBreakFor: string | null
  /** The ALLVERSIONS query is not available to the integration user. */
  allVersionsUnavailable: boolean
  /** The next N authenticated calls answer INVALID_SESSION_ID (a session expired on the vault side). */
  expireSessionsNext: number
  /** Every auth attempt fails (expired password), even with the right credentials. */
  authBroken: boolean
}

export const NO_QMS_FAULTS: FakeQmsFaults = {
  responseDelayMs: 0, textUnavailableNext: 0, renditionBreakNext: 0, renditionBreakFor: null, allVersionsUnavailable: false, expireSessionsNext: 0, authBroken: false,
}

export interface FakeQmsOptions {
  port?: number
  host?: string
  vaultId?: number
  burstLimit?: number
  authBurstLimit?: number
  lifecycleLabels?: string[]
  clock?: () => number
}

export interface RequestLogEntry { at: number; method: string; path: string; clientId: string | null }

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex')

export class FakeQmsState {
  vaultId: number
  vaultName = illustrative('QMS vault')
  users = new Map<string, string>()
  sessions = new Map<string, { username: string }>()
  documents = new Map<string, FakeDocument>()
  lifecycleLabels: string[]
  fields = new Set<string>(DOCUMENT_FIELDS)
  burstLimit: number
  authBurstLimit: number
  burst = { startedAt: 0, used: 0 }
  authBurst = { startedAt: 0, used: 0 }
  faults: FakeQmsFaults = { ...NO_QMS_FAULTS }
  /** Rows per query page (the vault's is 1000; tests page with fewer). */
  pageSize = PAGE_SIZE
  log: RequestLogEntry[] = []
  private seq = 0
  readonly clock: () => number

  constructor(o: FakeQmsOptions = {}) {
    this.vaultId = o.vaultId ?? 4242
    this.burstLimit = o.burstLimit ?? 2000
    this.authBurstLimit = o.authBurstLimit ?? 20
    this.lifecycleLabels = [...(o.lifecycleLabels ?? DEFAULT_LIFECYCLE_LABELS)]
    this.clock = o.clock ?? Date.now
  }

  addUser(username: string, password: string) {
    this.users.set(username, password)
  }

  /** Modification stamps strictly increase, like the vault's. */
  private stamp(): string {
    const t = Math.max(this.clock(), this.seq + 1)
    this.seq = t
    return new Date(t).toISOString()
  }

  addDocument(d: { number: string; name: string; type?: string; id?: string }): FakeDocument {
    const doc: FakeDocument = { id: d.id ?? String(100 + this.documents.size + 1), name: illustrative(d.name), type: d.type ?? 'sop__c', number: d.number, versions: [], events: [] }
    this.documents.set(doc.id, doc)
    return doc
  }

  addVersion(docId: string, v: { major: number; minor: number; status: string; text: string; effectiveDate?: string | null; supersededDate?: string | null; rendition?: Buffer; modifiedAt?: string }): FakeVersion {
    const doc = this.doc(docId)
    const version: FakeVersion = {
      major: v.major, minor: v.minor, status: v.status, modifiedAt: v.modifiedAt ?? this.stamp(), effectiveDate: v.effectiveDate ?? null,
      supersededDate: v.supersededDate ?? null, text: v.text, rendition: v.rendition ?? Buffer.from(`%ILLUSTRATIVE-RENDITION\n${v.text}`), deleted: false,
    }
    doc.versions.push(version)
    doc.events.push({ name: 'version_created', label: 'Version created', properties: { event_date__v: version.modifiedAt, major_version_number__v: v.major, minor_version_number__v: v.minor } })
    return version
  }

  /** A change the vault records with a new modification date (the delta poll sees it). */
  updateVersion(docId: string, major: number, minor: number, changes: Partial<Pick<FakeVersion, 'status' | 'text' | 'effectiveDate' | 'supersededDate' | 'rendition'>>, { touch = true } = {}): FakeVersion {
    const v = this.version(docId, major, minor)
    Object.assign(v, changes)
    if (touch) v.modifiedAt = this.stamp()
    return v
  }

  /** Deleted upstream: the version leaves every query; an event records it. */
  deleteVersion(docId: string, major: number, minor: number) {
    const v = this.version(docId, major, minor)
    v.deleted = true
    this.doc(docId).events.push({ name: 'version_deleted', label: 'Version deleted', properties: { event_date__v: this.stamp(), major_version_number__v: major, minor_version_number__v: minor } })
  }

  doc(id: string): FakeDocument {
    const d = this.documents.get(id)
    if (!d) throw new Error(`fake QMS: no document ${id}`)
    return d
  }

  version(docId: string, major: number, minor: number): FakeVersion {
    const v = this.doc(docId).versions.find((x) => x.major === major && x.minor === minor)
    if (!v) throw new Error(`fake QMS: no version ${docId} ${major}.${minor}`)
    return v
  }

  /** One row per (document, version) in the vault's field names. */
  row(d: FakeDocument, v: FakeVersion): Record<string, unknown> {
    return {
      id: Number(d.id), name__v: d.name, type__v: d.type, document_number__v: d.number, major_version_number__v: v.major,
      minor_version_number__v: v.minor, status__v: v.status, version_modified_date__v: v.modifiedAt, effective_date__v: v.effectiveDate,
      superseded_date__v: v.supersededDate, md5checksum__v: md5(v.rendition), version_label__v: `${v.major}.${v.minor}`,
    }
  }

  allRows(): Record<string, unknown>[] {
    const rows: Record<string, unknown>[] = []
    for (const d of this.documents.values()) for (const v of d.versions) if (!v.deleted) rows.push(this.row(d, v))
    return rows
  }

  newSession(username: string): string {
    const id = randomBytes(24).toString('hex')
    this.sessions.set(id, { username })
    return id
  }

  /** Counts one request in a 5-minute (or 1-minute, auth) window; answers what is left. */
  takeBurst(auth: boolean): { limit: number; remaining: number } {
    const w = auth ? this.authBurst : this.burst
    const windowMs = (auth ? 60 : 300) * 1000
    const limit = auth ? this.authBurstLimit : this.burstLimit
    const now = this.clock()
    if (now - w.startedAt >= windowMs) Object.assign(w, { startedAt: now, used: 0 })
    w.used += 1
    return { limit, remaining: Math.max(0, limit - w.used) }
  }

  resetBurst() {
    this.burst = { startedAt: 0, used: 0 }
    this.authBurst = { startedAt: 0, used: 0 }
  }
}
