// Builds the project's import graph from the source itself (the TypeScript compiler's parser and module resolution),
// for tests/platform/import-graph.test.ts: which module imports which, and how (a value import, a type-only import,
// or a dynamic import()). Run it directly to print the graph's cycles: `npx tsx tests/helpers/import-graph.ts`.
import path from 'node:path'
import { API } from 'typescript/unstable/sync'
import { SyntaxKind, type Node } from 'typescript/unstable/ast'

export type ImportKind = 'value' | 'type' | 'dynamic'
export type ImportEdge = { from: string; to: string; specifier: string; kind: ImportKind }

export const ROOT = path.resolve(import.meta.dirname, '../..')

// TypeScript 7 has no in-process compiler API: its API drives the native compiler (tsgo) over a pipe. The program is
// the root tsconfig's (the console has its own tsconfig and build); module resolution is the compiler's own.
type AnyNode = Node & Record<string, any>

/** How a module specifier is imported: erased at run time (`import type`, `import { type A }`, `import('x').T`), a
 *  dynamic `import()`, or a value import (which includes `export ... from`). */
function kindOf(specifier: AnyNode): ImportKind {
  const parent = specifier.parent as AnyNode
  switch (parent?.kind) {
    case SyntaxKind.CallExpression: return 'dynamic'
    case SyntaxKind.LiteralType: return 'type'
    case SyntaxKind.ImportDeclaration: {
      const clause = parent.importClause as AnyNode | undefined
      if (!clause) return 'value'
      if (clause.phaseModifier === SyntaxKind.TypeKeyword) return 'type'
      const named = clause.namedBindings as AnyNode | undefined
      const allTypes = !clause.name && named?.kind === SyntaxKind.NamedImports && named.elements.length > 0
        && named.elements.every((e: AnyNode) => e.isTypeOnly)
      return allTypes ? 'type' : 'value'
    }
    case SyntaxKind.ExportDeclaration: {
      if (parent.isTypeOnly) return 'type'
      const named = parent.exportClause as AnyNode | undefined
      const allTypes = named?.kind === SyntaxKind.NamedExports && named.elements.length > 0 && named.elements.every((e: AnyNode) => e.isTypeOnly)
      return allTypes ? 'type' : 'value'
    }
    case SyntaxKind.ExternalModuleReference: return (parent.parent as AnyNode)?.isTypeOnly ? 'type' : 'value'
    default: return 'value'
  }
}

/** Edges between the project's own modules (packages and generated code are left out), from the compiler's program. */
export function importGraph(): { files: string[]; edges: ImportEdge[] } {
  const api = new API({ cwd: ROOT })
  try {
    const project = api.updateSnapshot({ openProject: path.join(ROOT, 'tsconfig.json') }).getProjects()[0]
    const own = (file: string) => file.startsWith(ROOT + '/') && !file.includes('/node_modules/') && !file.startsWith(path.join(ROOT, 'generated') + '/')
    const files = project.program.getSourceFileNames().filter(own)
    const specifiers: { file: string; node: AnyNode }[] = []
    for (const file of files) for (const node of project.program.getSourceFile(file)!.imports) specifiers.push({ file, node: node as AnyNode })
    // The module symbol a specifier names is declared by the file it resolves to.
    const symbols = project.checker.getSymbolAtLocation(specifiers.map((s) => s.node))
    const edges: ImportEdge[] = []
    specifiers.forEach(({ file, node }, i) => {
      const target = symbols[i]?.declarations?.[0]?.path
      if (target && own(target)) edges.push({ from: path.relative(ROOT, file), to: path.relative(ROOT, target), specifier: node.text, kind: kindOf(node) })
    })
    return { files: files.map((f) => path.relative(ROOT, f)).sort(), edges }
  } finally {
    api.close()
  }
}

/** Strongly connected components of more than one module (or one module importing itself): each is an import cycle. */
export function cycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const components: string[][] = []
  let counter = 0
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the call stack.
  for (const start of next.keys()) {
    if (index.has(start)) continue
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }]
    index.set(start, counter); low.set(start, counter); counter++; stack.push(start); onStack.add(start)
    while (work.length) {
      const frame = work[work.length - 1]
      const successors = next.get(frame.node) ?? []
      if (frame.i < successors.length) {
        const to = successors[frame.i++]
        if (!index.has(to)) {
          index.set(to, counter); low.set(to, counter); counter++; stack.push(to); onStack.add(to)
          work.push({ node: to, i: 0 })
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!))
        }
        continue
      }
      work.pop()
      if (work.length) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(frame.node)!))
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = []
        let member: string
        do { member = stack.pop()!; onStack.delete(member); component.push(member) } while (member !== frame.node)
        const selfLoop = (next.get(frame.node) ?? []).includes(frame.node)
        if (component.length > 1 || selfLoop) components.push(component.sort())
      }
    }
  }
  return components.sort((a, b) => a[0].localeCompare(b[0]))
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { edges } = importGraph()
  const runtime = edges.filter((e) => e.kind !== 'type')
  for (const [label, set] of [['all imports', edges], ['run-time imports (types left out)', runtime]] as const) {
    const found = cycles(set)
    console.log(`${found.length} cycles over ${label}:`)
    for (const c of found) console.log(`  ${c.join('  ')}`)
  }
}
