// Fails a test file that leaves a worker, server or database connection running after its own afterAll hooks: this
// file's afterAll is registered first, so it runs last. Also makes sure `await using` has its symbols.
import { afterAll, beforeAll, inject } from 'vitest'
import { collectLeaks, snapshotHandles } from '../helpers/resources'

// Node 20.20 has both symbols; older runtimes get them once here (the names TypeScript's `using` lowering looks up).
;(Symbol as { asyncDispose?: symbol }).asyncDispose ??= Symbol.for('Symbol.asyncDispose')
;(Symbol as { dispose?: symbol }).dispose ??= Symbol.for('Symbol.dispose')

let before = new Set<object>()

function databasePort(): number | undefined {
  try {
    const url = inject('databaseServerUrl' as never) as string | undefined
    return url ? Number(new URL(url).port || 5432) : undefined
  } catch {
    return undefined
  }
}

beforeAll(() => {
  before = snapshotHandles()
})

afterAll(async () => {
  // Closing is asynchronous: give sockets a moment to finish closing before looking.
  await new Promise((r) => setTimeout(r, 50))
  const leaks = await collectLeaks(before, databasePort())
  if (leaks.length) throw new Error(`This test file left running: ${leaks.join('; ')}. Close it in afterAll, or use \`await using\`.`)
})
