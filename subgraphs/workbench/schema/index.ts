// Workbench subgraph schema: composes people (people.ts), programs (programs.ts) and membership (members.ts) over the
// shared entities it resolves.
import { createBuilder, defineCoreEntities } from '../../shared/builder'
import { addMembers } from './members'
import { addMemory } from './memory'
import { addPeople } from './people'
import { addPrograms } from './programs'

export type WorkbenchRefs = ReturnType<typeof defineCoreEntities>

export function buildWorkbenchSchema() {
  const builder = createBuilder()
  const refs = defineCoreEntities(builder)
  builder.mutationType({})
  addPeople(builder, refs)
  addPrograms(builder, refs)
  addMembers(builder, refs)
  addMemory(builder, refs)
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
