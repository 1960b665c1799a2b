// ProgramRecord.signatures in the workbench subgraph: the signature manifestation on a record (printed name, date and
// time, meaning), written when a decision requires a signature (twins subgraph, decisions).
import type { InterfaceRef } from '@pothos/core'
import type { ProgramRecord, Signature } from '../../../generated/prisma/client'
import type { Builder, SchemaTypes } from '../../shared/builder'
import { manifestation, recordSignatures } from '../../../domain/signatures'
import type { WorkbenchRefs } from './refs'

export function addRecordSignatures(builder: Builder, { UserRef }: WorkbenchRefs, RecordRef: InterfaceRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, ProgramRecord>) {
  const Meaning = builder.enumType('SignatureMeaning', { values: ['review', 'approval', 'responsibility', 'authorship'] as const })
  const RecordSignature = builder.objectRef<Signature>('RecordSignature').implement({
    description: 'A signature on a record as 21 CFR 11.50 shows it: printed name, date and time, and meaning.',
    fields: (t) => ({
      id: t.exposeID('id'),
      printedName: t.exposeString('printedName'),
      signedAt: t.field({ type: 'DateTime', resolve: (s) => s.signedAt }),
      meaning: t.field({ type: Meaning, resolve: (s) => s.meaning }),
      authenticatedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the signer authenticated for this signature (a fresh sign-in at the identity provider, 21 CFR 11.200); null for signatures made without one (seeds) and before it was recorded.', resolve: (s) => s.authenticatedAt }),
      signer: t.field({ type: UserRef, nullable: true, resolve: (s, _a, ctx) => ctx.loaders.user.load(s.signerUserId) }),
      manifestation: t.string({
        description: 'The line printed with the record: "<printed name>, <ISO date and time>, <meaning>".',
        resolve: (s) => manifestation(s),
      }),
    }),
  })
  builder.interfaceField(RecordRef, 'signatures', (t) => t.field({
    type: [RecordSignature], description: 'Signatures on this record, oldest first.',
    resolve: (r, _a, ctx) => recordSignatures(ctx, r.id),
  }))
}
