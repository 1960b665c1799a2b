// Owns the DocumentIngestor: what a connector brings in becomes the service's own records (sources, documents,
// experiments, attachment metadata), always naming the source system. Callers pass their transaction.
import { asTx, type AnyTx } from '../../core/database'
import { sanitiseOutsideText, type Sanitised } from '../../core/text'
import type { AttachmentInput, DocumentIngestor, SourceInput } from '../adapters'

export function createDocumentIngestor(scope: { organizationId: string; programId: string }): DocumentIngestor {
  const { organizationId, programId } = scope
  return {
    async upsertSource(anyTx: AnyTx, input: SourceInput) {
      const tx = asTx(anyTx)
      const fields = {
        sourceType: input.sourceType,
        sourceSystem: input.sourceSystem,
        externalId: input.externalId,
        title: input.title,
        url: input.url,
        targetRef: input.targetRef,
        externalVersion: input.externalVersion,
        linkedEntities: input.linkedEntities,
      }
      const existing = await tx.source.findUnique({ where: { connectorObjectId: input.connectorObjectId } })
      const source = existing
        ? await tx.source.update({ where: { id: existing.id }, data: fields })
        : await tx.source.create({ data: { organizationId, programId, connectionId: input.connectionId, connectorObjectId: input.connectorObjectId, ...fields } })

      const doc = input.document
      const current = await tx.document.findUnique({ where: { sourceId: source.id } })
      const document = current
        ? await tx.document.update({
            where: { id: current.id },
            data: {
              title: doc.title, classification: doc.classification, targetRef: input.targetRef, externalVersion: input.externalVersion,
              // A new document version only when the content itself changed.
              ...(current.contentHash !== doc.contentHash
                ? { text: doc.text, contentJson: doc.contentJson as object, contentHash: doc.contentHash, version: current.version + 1 }
                : {}),
            },
          })
        : await tx.document.create({
            data: {
              organizationId, programId, sourceId: source.id, sourceSystem: input.sourceSystem, classification: doc.classification,
              title: doc.title, text: doc.text, contentJson: doc.contentJson as object, contentHash: doc.contentHash,
              targetRef: input.targetRef, externalVersion: input.externalVersion,
            },
          })

      let experimentId: string | null = null
      if (input.experiment) {
        const experiment = await tx.experiment.upsert({
          where: { elnSourceId: source.id },
          update: { title: input.experiment.title },
          create: { organizationId, programId, title: input.experiment.title, elnSourceId: source.id },
        })
        experimentId = experiment.id
      }
      return { sourceId: source.id, documentId: document.id, experimentId, created: !existing }
    },

    async upsertAttachment(anyTx: AnyTx, input: AttachmentInput) {
      const tx = asTx(anyTx)
      const data = {
        sourceId: input.sourceId, entryExternalId: input.entryExternalId, name: input.name, mimeType: input.mimeType,
        sizeBytes: BigInt(input.sizeBytes), sha256: input.sha256, fetchable: input.fetchable,
      }
      const row = await tx.attachment.upsert({
        where: { connectionId_externalId: { connectionId: input.connectionId, externalId: input.externalId } },
        update: data,
        create: { organizationId, programId, connectionId: input.connectionId, externalId: input.externalId, ...data },
      })
      return { attachmentId: row.id }
    },
  }
}

/**
 * What an agent may read of an ingested document's text (a notebook entry today): the vendor's text is stored as it
 * came (hashes and evidence are of the original), and every agent-facing read passes the shared outside-text
 * sanitiser, the provider's `<type:id>` mentions kept as `[type:id]`. The tools that hand document text to an agent
 * (documents.list_assets, documents.read_table_rows, through document-reads.ts) call this, never the raw column.
 */
export function documentTextForAgent(text: string): Sanitised {
  return sanitiseOutsideText(text, { mentions: true })
}
