// Twins subgraph schema: composes the inbox (inbox.ts) and skills (skills.ts) over key-only Program and User references.
import { createBuilder, referenceEntity } from '../../shared/builder'
import type { InboxEvents } from '../domain/inbox-events'
import { addInbox } from './inbox'
import { addSkills } from './skills'
import { addTwins } from './twins'
import type { TwinRunEvents } from '../domain/twin-run-events'

export type TwinsRefs = ReturnType<typeof references>

function references(builder: ReturnType<typeof createBuilder>) {
  return { ProgramRef: referenceEntity(builder, 'Program'), UserRef: referenceEntity(builder, 'User') }
}

export function buildTwinsSchema(deps: { inboxEvents: InboxEvents; twinRunEvents: TwinRunEvents }) {
  const builder = createBuilder()
  const refs = references(builder)
  addInbox(builder, refs, deps)
  addSkills(builder)
  addTwins(builder, refs, deps)
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
