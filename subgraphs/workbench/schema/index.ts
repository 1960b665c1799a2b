// Workbench subgraph schema: composes people (people.ts), programs (programs.ts) and membership (members.ts) over the
// shared entities it resolves, program records (records.ts) and their signatures (record-signatures.ts), memory
// (memory.ts) and workbench roles with the role home (workbench-roles.ts).
import { createBuilder, defineCoreEntities } from '../../shared/builder'
import { addMembers } from './members'
import { addMemory } from './memory'
import { addPeople } from './people'
import { addPrograms } from './programs'
import { addRecords } from './records'
import { addRecordSignatures } from './record-signatures'
import { addWorkbenchRoles } from './workbench-roles'
import { addMyOpenInboxCount } from '../../shared/open-inbox-count'
import { countMyOpenInboxByProgram } from '../../../domain/inbox'

export type { WorkbenchRefs } from './refs'

export function buildWorkbenchSchema() {
  const builder = createBuilder()
  const refs = defineCoreEntities(builder)
  builder.mutationType({})
  const { Me } = addPeople(builder, refs)
  addPrograms(builder, refs)
  addMembers(builder, refs)
  const { RecordRef } = addRecords(builder, refs)
  addRecordSignatures(builder, refs, RecordRef)
  const { MemoryRecordRef } = addMemory(builder, refs)
  addWorkbenchRoles(builder, refs, { Me, MemoryRecord: MemoryRecordRef, ProgramRecord: RecordRef as never })
  // the console lists `me { programs { program { myOpenInboxCount } } }`: answered here, no fetch to twins for it
  addMyOpenInboxCount(builder, refs.ProgramRef, countMyOpenInboxByProgram)
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })
}
