// Owns the on-disk cache of browser bundles the gateway serves (GraphiQL, the console): one folder per fingerprint
// under <dataDir>/<name>/, built once by whichever process gets there first, reused by every later start.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { log } from '../core/config'

/** Written last into a finished build; its presence marks the folder complete. */
const MANIFEST = 'manifest.json'

export interface BuiltAssets {
  /** Folder holding the built files. */
  dir: string
  fingerprint: string
  /** True when this call ran the build, false when it reused an earlier one. */
  built: boolean
}

export interface AssetBuild {
  /** Folder name under dataDir ('graphiql', 'console'); also the log event's prefix. */
  name: string
  fingerprint: string
  /** Files the build must produce (checked before the folder is published). */
  files: readonly string[]
  build(outDir: string): Promise<void>
}

const inFlight = new Map<string, Promise<BuiltAssets>>()

/**
 * Returns <dataDir>/<name>/<fingerprint>/, building it first when missing. Safe across processes: each builder writes a
 * private temp folder and renames it into place; the first rename wins, later ones discard their copy. Logs one line
 * (with the milliseconds taken) only when it builds.
 */
export function ensureBuiltAssets(dataDir: string, spec: AssetBuild): Promise<BuiltAssets> {
  const key = `${path.resolve(dataDir)}|${spec.name}|${spec.fingerprint}`
  let pending = inFlight.get(key)
  if (!pending) {
    pending = ensure(path.resolve(dataDir), spec).finally(() => inFlight.delete(key))
    inFlight.set(key, pending)
  }
  return pending
}

async function ensure(dataDir: string, spec: AssetBuild): Promise<BuiltAssets> {
  const { fingerprint } = spec
  const root = path.join(dataDir, spec.name)
  const dir = path.join(root, fingerprint)
  if (existsSync(path.join(dir, MANIFEST))) return { dir, fingerprint, built: false }

  await fs.mkdir(root, { recursive: true })
  const tmp = path.join(root, `.tmp-${fingerprint}-${process.pid}-${randomBytes(4).toString('hex')}`)
  const t0 = performance.now()
  try {
    await fs.mkdir(tmp, { recursive: true })
    await spec.build(tmp)
    for (const file of spec.files) {
      if (!existsSync(path.join(tmp, file))) throw new Error(`${spec.name} assets: the build did not produce ${file}`)
    }
    const files = Object.fromEntries(
      await Promise.all(spec.files.map(async (f) => [f, (await fs.stat(path.join(tmp, f))).size] as const)),
    )
    await fs.writeFile(path.join(tmp, MANIFEST), JSON.stringify({ fingerprint, builtAt: new Date().toISOString(), files }, null, 2))
    try {
      await fs.rename(tmp, dir)
    } catch (err) {
      // Another process finished first (rename onto a non-empty folder fails): use its build.
      if (!existsSync(path.join(dir, MANIFEST))) {
        // A folder without a manifest is a leftover from a crashed copy: replace it.
        await fs.rm(dir, { recursive: true, force: true })
        await fs.rename(tmp, dir).catch(async () => {
          if (!existsSync(path.join(dir, MANIFEST))) throw err
        })
      }
    }
  } finally {
    await fs.rm(tmp, { recursive: true, force: true })
  }
  const ms = Math.round(performance.now() - t0)
  log.info(`${spec.name}.assets_built`, { ms, dir })
  await pruneStale(root, fingerprint)
  return { dir, fingerprint, built: true }
}

/** Removes other fingerprints' builds older than a day and temp folders older than an hour (best effort). */
async function pruneStale(root: string, keep: string): Promise<void> {
  const now = Date.now()
  for (const name of await fs.readdir(root).catch(() => [] as string[])) {
    if (name === keep) continue
    const full = path.join(root, name)
    const age = now - (await fs.stat(full).catch(() => ({ mtimeMs: now }))).mtimeMs
    if (age > (name.startsWith('.tmp-') ? 3_600_000 : 86_400_000)) await fs.rm(full, { recursive: true, force: true }).catch(() => {})
  }
}

/** The folder (walking up from `from`) whose node_modules holds `name`'s package.json. */
export function packageJsonPath(name: string, from: string): string {
  let dir = from
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) return candidate
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error(`assets: package ${name} is not installed`)
    dir = parent
  }
}
