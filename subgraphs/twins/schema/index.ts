// Twins subgraph schema: composes the inbox (inbox.ts), proposals and decisions (decisions.ts), skills (skills.ts) and kinds (kinds.ts) over key-only Program (plus its name and slug) and User references.
import { createBuilder } from '../../shared/builder'
import { references } from './refs'
import type { InboxEvents } from '../../../domain/inbox'
import { addDecisions } from './decisions'
import { addInbox } from './inbox'
import { addKinds } from './kinds'
import { addCapabilities } from './capabilities'
import { addTwinDefaults } from './twin-defaults'
import { addModelSettings } from './model-settings'
import { addSkills } from './skills'
import { addTwins } from './twins'
import { addWorkbenchHome } from './workbench'
import { addHandoffs } from './handoffs'
import type { TwinRunEvents } from '../../../domain/twins'
import type { StageGateEvents } from '../../../domain/gates'
import { addStageGates } from './gates'
import { addAuditTrail } from './audit-trail'
import { addOversight } from './oversight'

export type { TwinsRefs } from './refs'

export function buildTwinsSchema(deps: { inboxEvents: InboxEvents; twinRunEvents: TwinRunEvents; stageGateEvents: StageGateEvents }) {
  const builder = createBuilder()
  const refs = references(builder)
  const inbox = addInbox(builder, refs, deps)
  addDecisions(builder, refs, inbox)
  addSkills(builder)
  addKinds(builder)
  addCapabilities(builder)
  addTwinDefaults(builder, refs)
  addModelSettings(builder)
  const { TwinRef } = addTwins(builder, refs, deps)
  addWorkbenchHome(builder, { InboxItemRef: inbox.InboxItemRef, TwinRef })
  addStageGates(builder, refs, deps)
  addHandoffs(builder, refs)
  addAuditTrail(builder)
  addOversight(builder, refs)
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
