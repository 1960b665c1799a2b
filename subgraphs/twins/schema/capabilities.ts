// The seeded twin capabilities (domain/capabilities.ts) as Query.twinCapabilities and Query.twinCapability(key):
// read-only descriptions, context of use, limitations and risk class; they need only authentication.
import type { Builder } from '../../shared/builder'
import { capabilityPersonas, RISK_CLASSES, SEEDED_CAPABILITIES, seededCapability, type SeededCapability } from '../../../domain/twins'

export function addCapabilities(builder: Builder) {
  const RiskClass = builder.enumType('TwinCapabilityRiskClass', {
    values: RISK_CLASSES,
    description: 'Model influence against decision consequence: low when both are low, medium when either is medium, high when the consequence is high.',
  })
  const Capability = builder.objectRef<SeededCapability>('TwinCapability').implement({
    description: 'A seeded twin capability: what a twin is seeded to do, its context of use, limitations and risk class. Its duty template (dutyKey) implements it.',
    fields: (t) => ({
      key: t.exposeString('key'),
      name: t.exposeString('name'),
      release: t.exposeString('release'),
      dutyKey: t.exposeString('dutyKey', { description: "The duty a twin's duties list holds to run it." }),
      personas: t.stringList({ description: 'The personas whose twin may hold it.', resolve: (c) => capabilityPersonas(c) }),
      contextOfUse: t.exposeString('contextOfUse'),
      limitations: t.stringList({ resolve: (c) => [...c.limitations] }),
      riskClass: t.field({ type: RiskClass, resolve: (c) => c.riskClass }),
      riskRationale: t.exposeString('riskRationale'),
    }),
  })
  builder.queryFields((t) => ({
    twinCapabilities: t.field({
      type: [Capability], description: 'The seeded twin capabilities (console.twin_literature_watch, console.twin_handoff, review.twin_check_triage).',
      resolve: () => [...SEEDED_CAPABILITIES],
    }),
    twinCapability: t.field({
      type: Capability, nullable: true, description: 'One seeded twin capability by key.',
      args: { key: t.arg.string({ required: true }) }, resolve: (_r, { key }) => seededCapability(key),
    }),
  }))
}
