// Owns reading the throughput bench's CPU profiles: self time per component, grouped by package (or project
// folder) and by function, so "where did the time go" is a table rather than a flame graph.
// Usage: tsx bench/profile-summary.ts <folder with *.cpuprofile> [top functions, default 15] [last seconds only]; the
// throughput bench prints it itself with BENCH_THROUGHPUT_PROFILE.
// (the last argument leaves out start-up: module loading dominates a short run otherwise)
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** The package a frame belongs to (node_modules/<pkg>), or the project folder, or node's own internals. */
function groupOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/')
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`
  const m = /\/(core|domain|gateway|subgraphs\/[^/]+|bench|generated)\//.exec(url)
  return m ? `project ${m[1]}` : path.basename(url)
}

export function summarise(file: string, top = 15, lastSeconds = 0) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  // sample i happens at startTime + sum of timeDeltas[0..i]; keep those inside the window
  const from = lastSeconds > 0 ? p.endTime - lastSeconds * 1e6 : -Infinity
  let at = p.startTime
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0
    if (at >= from) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0))
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0)
  const idle = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0)
  const groups = new Map<string, number>()
  const functions = new Map<string, number>()
  for (const [id, t] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    if (functionName === '(idle)') continue
    const g = groupOf(url, functionName)
    groups.set(g, (groups.get(g) ?? 0) + t)
    const f = `${functionName || '(anonymous)'} ${g}${url ? `:${path.basename(url)}:${lineNumber + 1}` : ''}`
    functions.set(f, (functions.get(f) ?? 0) + t)
  }
  const busy = total - idle
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1)}%`
  const lines = [`## ${path.basename(path.dirname(file))}/${path.basename(file)}: busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s`]
  lines.push('by package / folder (self time, % of busy):')
  for (const [g, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 12)) lines.push(`  ${pct(t).padStart(6)}  ${g}`)
  lines.push('top functions:')
  for (const [f, t] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t).padStart(6)}  ${f}`)
  return lines.join('\n')
}

/** The main thread's profile of each component in `dir` (<dir>/<component>/*.cpuprofile, the bench's layout: the largest
 * file of a component is its main thread; tsx's loader thread writes a small one beside it), or the profiles in `dir`. */
export function profilesIn(dir: string): string[] {
  const inDir = (d: string) => fs.readdirSync(d).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(d, f))
  return fs.readdirSync(dir).flatMap((c) => {
    const sub = path.join(dir, c)
    if (!fs.statSync(sub).isDirectory()) return c.endsWith('.cpuprofile') ? [sub] : []
    const largest = inDir(sub).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]
    return largest ? [largest] : []
  }).sort()
}

/** Every component's summary (summarise), one after another. */
export function summariseFolder(dir: string, top = 15, lastSeconds = 0): string {
  return profilesIn(dir).map((f) => summarise(f, top, lastSeconds)).join('\n\n')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(summariseFolder(process.argv[2], Number(process.argv[3]) || 15, Number(process.argv[4]) || 0))
}
