// Owns the type of the shared entities the connectors schema's parts receive (index.ts defines them once per builder);
// a file of its own so the parts need not import the schema that composes them.
import type { defineCoreEntitiesKeyedByMembership } from '../../shared/builder'

export type ConnectorsRefs = ReturnType<typeof defineCoreEntitiesKeyedByMembership>
