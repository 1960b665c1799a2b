// Owns the key-only Program (plus its name and slug) and User references every part of the twins schema receives;
// a file of its own so the parts need not import the schema that composes them (index.ts).
import { programReferenceWithNames, referenceEntity, type createBuilder } from '../../shared/builder'

export type TwinsRefs = ReturnType<typeof references>

export function references(builder: ReturnType<typeof createBuilder>) {
  // Program answers name and slug here too: the inbox's `program { name slug }` needs no other subgraph
  return { ProgramRef: programReferenceWithNames(builder), UserRef: referenceEntity(builder, 'User') }
}
