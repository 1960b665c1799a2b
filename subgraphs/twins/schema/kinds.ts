// The kind enumerations and the tone map in the twins subgraph, read-only: Query.kinds and Query.toneMap (a console
// renders statuses with the tone map). Values come from core/config/kinds.ts.
import { RELEASES } from '../../../core/config'
import { currentRelease } from '../../../core/identity'
import { TONES, kindsAt, toneMap, type ToneEntry } from '../../../core/config'
import type { Builder } from '../../shared/builder'

export function addKinds(builder: Builder) {
  const Release = builder.enumType('Release', { values: RELEASES })
  const Tone = builder.enumType('Tone', { values: TONES })
  const Kinds = builder.objectRef<ReturnType<typeof kindsAt>>('KindSets').implement({
    description: 'The closed kind sets of a release (AGENT_RUN_KINDS, INTERRUPT_KINDS, NOTIFICATION_KINDS, ARTIFACT_KINDS, SIGNATURE_TARGET_TYPES, APPROVAL_TARGET_TYPES).',
    fields: (t) => ({
      release: t.field({ type: Release, resolve: (k) => k.release }),
      agentRunKinds: t.stringList({ resolve: (k) => [...k.agentRunKinds] }),
      interruptKinds: t.stringList({ resolve: (k) => [...k.interruptKinds] }),
      notificationKinds: t.stringList({ resolve: (k) => [...k.notificationKinds] }),
      artifactKinds: t.stringList({ resolve: (k) => [...k.artifactKinds] }),
      signatureTargetTypes: t.stringList({ resolve: (k) => [...k.signatureTargetTypes] }),
      approvalTargetTypes: t.stringList({ resolve: (k) => [...k.approvalTargetTypes] }),
    }),
  })
  const Entry = builder.objectRef<ToneEntry>('ToneEntry').implement({
    description: 'The tone a status word is rendered in: pass, review, fail, info or neutral.',
    fields: (t) => ({
      status: t.exposeString('status'),
      tone: t.field({ type: Tone, resolve: (e) => e.tone }),
    }),
  })
  builder.queryFields((t) => ({
    kinds: t.field({
      type: Kinds,
      description: "The kind sets of a release (default: this deployment's). Read-only; needs only authentication.",
      args: { release: t.arg({ type: Release, required: false }) },
      resolve: (_r, { release }) => kindsAt(release ?? currentRelease()),
    }),
    toneMap: t.field({
      type: [Entry],
      description: "The tone map of a release (default: this deployment's): every status word and its tone. Read-only.",
      args: { release: t.arg({ type: Release, required: false }) },
      resolve: (_r, { release }) => toneMap(release ?? currentRelease()),
    }),
  }))
}
