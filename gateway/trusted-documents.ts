// Owns the gateway's trusted documents: the manifests of registered operations (the console's, written at build by
// npm run schema, plus any TRUSTED_DOCUMENTS_MANIFESTS a client team registers), a request naming an operation by its
// hash (`documentId: "sha256:<hex>"`, or Apollo's `extensions.persistedQuery.sha256Hash`), and whether a document is
// registered (TRUSTED_DOCUMENTS_ONLY: production can run only those; core/http/trusted-documents.ts says what the hash is of).
import fs from 'node:fs'
import path from 'node:path'
import type { DocumentNode } from 'graphql'
import type { Db } from '../core/database'
import { env, ROOT_DIR } from '../core/config'
import { can, loadSession } from '../core/identity'
import { documentHash } from '../core/http'
import type { SubgraphCallContext } from './subgraph-http'

/** The console's manifest (console/codegen.ts writes it). */
export const CONSOLE_MANIFEST = path.join(ROOT_DIR, 'console', 'src', 'generated', 'trusted-documents.json')

/** The code of a request naming an id no manifest holds. */
export const DOCUMENT_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND'
/** The code of an unregistered operation where only registered ones run. */
export const OPERATION_NOT_REGISTERED = 'OPERATION_NOT_REGISTERED'

export class TrustedDocuments {
  private readonly byHash = new Map<string, string>()
  /** each parsed document's verdict, computed once (the edge's document cache keeps the parsed documents) */
  private readonly verdicts = new WeakMap<DocumentNode, boolean>()

  /** `files`: manifests ({ "<sha256 hex>": "<document>" }); a missing or unreadable one fails the start, with its path. */
  constructor(files: string[]) {
    for (const file of files) {
      let manifest: Record<string, unknown>
      try { manifest = JSON.parse(fs.readFileSync(file, 'utf8')) } catch (e) {
        throw new Error(`The trusted documents manifest ${file} cannot be read: ${(e as Error).message}`)
      }
      for (const [hash, document] of Object.entries(manifest)) {
        if (typeof document !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) throw new Error(`The trusted documents manifest ${file} holds an entry that is not "<sha256 hex>": "<document>" (${hash}).`)
        this.byHash.set(hash, document)
      }
    }
  }

  get size(): number { return this.byHash.size }

  /** The registered document of an id: `sha256:<hex>` (GraphQL over HTTP's documentId) or the bare hex (Apollo's sha256Hash). */
  document(id: string): string | undefined {
    const hex = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id
    return this.byHash.get(hex.toLowerCase())
  }

  /** Whether a parsed document is registered: its canonical hash is in a manifest. */
  registered(document: DocumentNode): boolean {
    let verdict = this.verdicts.get(document)
    if (verdict === undefined) {
      verdict = this.byHash.has(documentHash(document))
      this.verdicts.set(document, verdict)
    }
    return verdict
  }
}

/** The manifests the gateway loads: the console's, then TRUSTED_DOCUMENTS_MANIFESTS (comma-separated paths). */
export function manifestFiles(extra: string | undefined): string[] {
  return [CONSOLE_MANIFEST, ...(extra ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((f) => path.resolve(f))]
}

/**
 * The pipeline's trusted-document options: the manifests, whether only registered operations run (`only`, default
 * TRUSTED_DOCUMENTS_ONLY), and who may run others there: a person holding org.settings.update in their organisation
 * (organisation owners and administrators: GraphiQL, support), read from the database when such a request comes.
 */
export function trustedDocumentOptions(db: Db, only?: boolean) {
  const e = env()
  return {
    trustedDocuments: new TrustedDocuments(manifestFiles(e.TRUSTED_DOCUMENTS_MANIFESTS)),
    trustedDocumentsOnly: only ?? e.TRUSTED_DOCUMENTS_ONLY,
    mayRunUnregistered: async (context: SubgraphCallContext) => can(await loadSession(db, context.identity.userId), UNREGISTERED_OPERATIONS_PERMISSION),
  }
}

/** The permission that lets a person run unregistered operations where only registered ones run. */
export const UNREGISTERED_OPERATIONS_PERMISSION = 'org.settings.update'
