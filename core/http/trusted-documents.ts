// Owns what a trusted document is: the canonical text of an operation (with the fragments it uses) and its SHA-256,
// the key of the manifest the console's operations are registered in at build (npm run schema writes
// console/src/generated/trusted-documents.json) and the gateway accepts by (gateway/trusted-documents.ts). Canonical:
// printed by graphql-js (whitespace, commas and comments do not count), operations then fragments each sorted by name,
// and unaliased `__typename` selections left out (clients such as urql's cache add them; they read no data).
import { createHash } from 'node:crypto'
import { Kind, parse, print, visit, type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql'

export function canonicalDocument(document: DocumentNode): string {
  const stripped = visit(document, {
    Field: (node) => (node.name.value === '__typename' && !node.alias ? null : undefined),
  })
  const byName = (a: DefinitionNode, b: DefinitionNode) => nameOf(a).localeCompare(nameOf(b))
  const operations = stripped.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION).sort(byName)
  const fragments = stripped.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).sort(byName)
  return [...operations, ...fragments].map((d) => print(d)).join('\n\n')
}

const nameOf = (d: DefinitionNode) => ('name' in d && d.name ? d.name.value : '')

/** The SHA-256 (hex) of a document's canonical text: its id in the manifest. */
export function documentHash(document: DocumentNode | string): string {
  const text = canonicalDocument(typeof document === 'string' ? parse(document) : document)
  return createHash('sha256').update(text).digest('hex')
}

/**
 * The manifest of a set of GraphQL definitions (operations and fragments): for each operation, a document holding it
 * and the fragments it uses (transitively), keyed by its hash; the value is the canonical text.
 */
export function manifestOf(source: string): Record<string, string> {
  const document = parse(source)
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]))
  const manifest: Record<string, string> = {}
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue
    const used = new Map<string, FragmentDefinitionNode>()
    const collect = (node: OperationDefinitionNode | FragmentDefinitionNode) => visit(node, {
      FragmentSpread: (spread) => {
        const f = fragments.get(spread.name.value)
        if (f && !used.has(f.name.value)) { used.set(f.name.value, f); collect(f) }
      },
    })
    collect(operation)
    const single: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] }
    const text = canonicalDocument(single)
    manifest[createHash('sha256').update(text).digest('hex')] = text
  }
  return Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => a.localeCompare(b)))
}
