// Owns what every bench shares: its knobs read from the environment, its `name value` figure lines, percentiles,
// and quiet logs while it runs (so log lines do not interleave with the figures on stdout).
import { pathToFileURL } from 'node:url'

/**
 * Smoke mode (`npm run bench -- --smoke`, or BENCH_SMOKE=1): every bench runs its whole path with tiny knobs, so a bench
 * that crashes fails CI; its figures mean nothing and are not judged.
 */
export const smokeMode = () => process.env.BENCH_SMOKE === '1'

/**
 * Positive whole-number knobs `<prefix>_<NAME>` from the environment, each falling back to its default, or in smoke
 * mode to its `smoke` value (a knob the environment sets wins in both).
 */
export function knobs<K extends string>(prefix: string, defaults: Record<K, number>, smoke: Partial<Record<K, number>> = {}): Record<K, number> {
  const read = (name: string, fallback: number) => {
    const v = Number(process.env[`${prefix}_${name}`])
    return Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback
  }
  const fallbackOf = (name: K, normal: number) => (smokeMode() ? smoke[name] ?? normal : normal)
  return Object.fromEntries(Object.entries<number>(defaults).map(([name, normal]) => [name, read(name, fallbackOf(name as K, normal))])) as Record<K, number>
}

/** One figure: a `name value` line (bench/run.ts counts these). */
/** Runs a bench when its file is executed directly (`tsx bench/<name>.ts`), not when bench/run.ts imports it. */
export function runIfMain(moduleUrl: string, bench: () => Promise<unknown>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return
  bench().then(() => process.exit(0), (e) => {
    console.error(e)
    process.exit(1)
  })
}

export const out = (name: string, value: string | number | boolean) => console.log(`${name} ${value}`)

export const sleep = (t: number) => new Promise((r) => setTimeout(r, t))

/** The nearest-rank percentile; NaN for no samples. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}

/** LOG_LEVEL warn unless the caller set one; returns what puts the previous value back. */
export function quietLogs(): () => void {
  const previous = process.env.LOG_LEVEL
  process.env.LOG_LEVEL ??= 'warn'
  return () => {
    if (previous === undefined) delete process.env.LOG_LEVEL
    else process.env.LOG_LEVEL = previous
  }
}
