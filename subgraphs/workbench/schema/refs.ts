// Owns the type of the shared entities the workbench schema's parts receive (index.ts defines them once per builder);
// a file of its own so the parts need not import the schema that composes them.
import type { defineCoreEntities } from '../../shared/builder'

export type WorkbenchRefs = ReturnType<typeof defineCoreEntities>
