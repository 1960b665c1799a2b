// Owns the schema side of cursor pages: `PageInfo`, one `<Name>Connection { nodes edges pageInfo }` per paged type and
// the `first`/`after` arguments, so every growing list reads and pages the same way (core/database/pagination.ts decides).
import type { ObjectRef } from '@pothos/core'
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, type Edge, type Page } from '../../core/database'
import type { Builder, SchemaTypes } from './builder'

type Types = PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>
type PageInfoShape = Page<unknown>['pageInfo']
const pageInfos = new WeakMap<Builder, ObjectRef<Types, PageInfoShape>>()

function pageInfo(builder: Builder) {
  let ref = pageInfos.get(builder)
  if (!ref) {
    // Every subgraph that pages defines the same value type, hence @shareable fields.
    ref = builder.objectRef<PageInfoShape>('PageInfo').implement({
      description: 'Where a page ends: pass endCursor as `after` to read the next page while hasNextPage is true.',
      fields: (t) => ({
        endCursor: t.string({ nullable: true, shareable: true, resolve: (p) => p.endCursor }),
        hasNextPage: t.boolean({ shareable: true, resolve: (p) => p.hasNextPage }),
      }),
    })
    pageInfos.set(builder, ref)
  }
  return ref
}

/** `<name>Connection` and `<name>Edge` over `node`: the type of a paged list field. */
export function connectionType<T>(builder: Builder, name: string, node: ObjectRef<Types, T>, description?: string) {
  const PageInfo = pageInfo(builder)
  const EdgeRef = builder.objectRef<Edge<T>>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor', { description: 'Opaque; pass it as `after` to read what follows this node.' }),
      // Pothos cannot check a generic node type here; connectionType's signature ties node and page together.
      node: t.field({ type: node, resolve: (e) => e.node as never }),
    }),
  })
  return builder.objectRef<Page<T>>(`${name}Connection`).implement({
    description: description ?? `A page of ${name} items, newest first.`,
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.edges.map((e) => e.node) }),
      edges: t.field({ type: [EdgeRef], resolve: (p) => p.edges }),
      pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pageInfo }),
    }),
  })
}

type ArgBuilder = Parameters<Parameters<Builder['queryFields']>[0]>[0]['arg']

/** The paging arguments every connection field takes; domain functions check them (core/database/pagination.ts). */
export function pageArgs(arg: ArgBuilder) {
  return {
    first: arg.int({ required: false, description: `Page size, 1 to ${PAGE_SIZE_MAX} (default ${PAGE_SIZE_DEFAULT}); outside that range the answer is invalid_input on first.` }),
    after: arg.string({ required: false, description: "The previous page's pageInfo.endCursor (or an edge's cursor); a cursor this service did not give out is invalid_input on after." }),
  }
}

