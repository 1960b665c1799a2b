// npm run bench [-- name ...]: runs every bench module present (or the named ones), one after another, in this
// process. Each bench prints `name value` lines; this prints a header per bench and a summary. The exit code is
// non-zero only when a bench crashed (or an unknown name was asked for); timings are never asserted.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { installDomain } from '../subgraphs/install'

const HERE = path.dirname(fileURLToPath(import.meta.url))

interface BenchModule { name: string; file: string; fn: string }
const BENCHES: BenchModule[] = [
  { name: 'edge', file: 'edge.ts', fn: 'benchEdge' },
  { name: 'skills', file: 'skills.ts', fn: 'benchSkills' },
  { name: 'webhooks', file: 'webhooks.ts', fn: 'benchWebhooks' },
  { name: 'records', file: 'records.ts', fn: 'benchRecords' },
  { name: 'decisions', file: 'decisions.ts', fn: 'benchDecisions' },
  { name: 'memory', file: 'memory.ts', fn: 'benchMemory' },
  { name: 'tools', file: 'tools.ts', fn: 'benchTools' },
  { name: 'twins', file: 'twins.ts', fn: 'benchTwins' },
  { name: 'throughput', file: 'throughput.ts', fn: 'benchThroughput' },
  { name: 'throughput-pair', file: 'throughput-pair.ts', fn: 'benchThroughputPair' },
  { name: 'roles', file: 'roles.ts', fn: 'benchRoles' },
  { name: 'gates', file: 'gates.ts', fn: 'benchGates' },
  { name: 'qms', file: 'qms.ts', fn: 'benchQms' },
  { name: 'literature', file: 'literature.ts', fn: 'benchLiterature' },
  { name: 'handoffs', file: 'handoffs.ts', fn: 'benchHandoffs' },
  { name: 'console', file: 'console.ts', fn: 'benchConsole' },
  { name: 'audit', file: 'audit.ts', fn: 'benchAudit' },
  { name: 'peers', file: 'peers.ts', fn: 'benchPeers' },
]

type Outcome = { name: string; status: 'ok' | 'crashed' | 'absent'; seconds?: number; figures?: number; error?: string }

/** Counts the `name value` lines a bench prints, passing everything through unchanged. */
function countFigures<T>(run: () => Promise<T>): { promise: Promise<T>; figures: () => number } {
  let figures = 0
  const original = console.log
  console.log = (...args: unknown[]) => {
    if (args.length === 1 && typeof args[0] === 'string' && /^[a-z][\w-]*(\.[\w-]+)+ \S/.test(args[0])) figures++
    original(...args)
  }
  const promise = run().finally(() => { console.log = original })
  return { promise, figures: () => figures }
}

async function runOne(b: BenchModule): Promise<Outcome> {
  const file = path.join(HERE, b.file)
  console.log(`\n=== bench ${b.name} (bench/${b.file}) ===`)
  if (!fs.existsSync(file)) {
    console.log(`(bench/${b.file} is not present: skipped)`)
    return { name: b.name, status: 'absent' }
  }
  const t0 = performance.now()
  let counter: ReturnType<typeof countFigures> | undefined
  try {
    // Imported only when run: `npm run bench -- skills` never loads the edge stack, and a broken module
    // counts as that bench crashing rather than stopping the others.
    const mod = (await import(`./${b.file.replace(/\.ts$/, '')}`)) as Record<string, unknown>
    const fn = mod[b.fn]
    if (typeof fn !== 'function') throw new Error(`bench/${b.file} does not export ${b.fn}()`)
    counter = countFigures(() => (fn as () => Promise<void>)())
    await counter.promise
    return { name: b.name, status: 'ok', seconds: (performance.now() - t0) / 1000, figures: counter.figures() }
  } catch (e) {
    console.error(`bench ${b.name} crashed:`, e)
    return { name: b.name, status: 'crashed', seconds: (performance.now() - t0) / 1000, figures: counter?.figures(), error: (e as Error)?.message ?? String(e) }
  }
}

async function main(): Promise<number> {
  installDomain() // every bench runs in this process, as the service's components would: hooks and error factories in place
  const args = process.argv.slice(2).filter((a) => a !== '--')
  // --smoke: tiny knobs (bench/figures.ts), so CI runs every bench's whole path and fails on a crash; figures not judged.
  if (args.includes('--smoke')) process.env.BENCH_SMOKE = '1'
  const asked = args.filter((a) => a !== '--smoke')
  const unknown = asked.filter((a) => !BENCHES.some((b) => b.name === a))
  if (unknown.length) {
    console.error(`Unknown bench: ${unknown.join(', ')}. Known: ${BENCHES.map((b) => b.name).join(', ')}.`)
    return 2
  }
  const selected = asked.length ? BENCHES.filter((b) => asked.includes(b.name)) : BENCHES
  const outcomes: Outcome[] = []
  for (const b of selected) outcomes.push(await runOne(b))

  console.log(`\n=== summary${process.env.BENCH_SMOKE === '1' ? ' (smoke mode: tiny knobs, figures not judged)' : ''} ===`)
  for (const o of outcomes) {
    const detail = o.status === 'absent' ? 'not present'
      : `${o.seconds!.toFixed(1)} s, ${o.figures ?? 0} figures${o.error ? ` — ${o.error.split('\n')[0]}` : ''}`
    console.log(`${o.name.padEnd(10)} ${o.status.padEnd(8)} ${detail}`)
  }
  return outcomes.some((o) => o.status === 'crashed') ? 1 : 0
}

// Exit explicitly: a bench that left a handle open (a pool, a timer) must not keep the run alive.
main().then((code) => process.exit(code), (e) => {
  console.error(e)
  process.exit(1)
})
