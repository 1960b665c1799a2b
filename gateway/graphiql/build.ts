// Owns the GraphiQL page's browser assets: bundles gateway/graphiql/app.jsx (GraphiQL 5, esm) and the three
// monaco workers (iife) with esbuild, and caches the result under <dataDir>/graphiql/<fingerprint>/.
import { build, type BuildOptions } from 'esbuild'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { log } from '../../core/log'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ENTRY = path.join(HERE, 'app.jsx')
/** Files whose content goes into the fingerprint besides package versions. */
const ENTRY_SOURCES = ['app.jsx', 'app.css', 'build.ts']
/** Packages whose versions go into the fingerprint. */
const FINGERPRINT_PACKAGES = [
  'graphiql',
  '@graphiql/toolkit',
  '@graphiql/react',
  'monaco-editor',
  'monaco-graphql',
  'react',
  'react-dom',
  'graphql',
  'graphql-ws',
  'esbuild',
]
/** Written last into a finished build; its presence marks the folder complete. */
const MANIFEST = 'manifest.json'

export const GRAPHIQL_ASSET_FILES = ['app.js', 'app.css', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js'] as const

export interface GraphiqlAssets {
  /** Folder holding app.js, app.css and the *.worker.js bundles. */
  dir: string
  fingerprint: string
  /** True when this call ran esbuild, false when it reused an earlier build. */
  built: boolean
}

/** The folder (walking up from this file) whose node_modules holds `name`. */
function packageJsonPath(name: string): string {
  let dir = HERE
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) return candidate
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error(`graphiql assets: package ${name} is not installed`)
    dir = parent
  }
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(packageJsonPath(name), 'utf8')) as { version: string }).version
}

/** Project root used as esbuild's working directory (where node_modules/graphiql lives). */
function projectRoot(): string {
  return path.resolve(path.dirname(packageJsonPath('graphiql')), '../..')
}

export async function graphiqlFingerprint(): Promise<string> {
  const hash = createHash('sha256')
  for (const name of FINGERPRINT_PACKAGES) hash.update(`${name}@${packageVersion(name)}\n`)
  for (const file of ENTRY_SOURCES) hash.update(`${file}\n`).update(await fs.readFile(path.join(HERE, file)))
  return hash.digest('hex').slice(0, 16)
}

/** Bundles the page into outDir: app.js (esm) + app.css, and editor/json/graphql .worker.js (iife). */
export async function buildGraphiqlAssets(outDir: string): Promise<void> {
  await fs.mkdir(outDir, { recursive: true })
  const common: BuildOptions = {
    absWorkingDir: projectRoot(),
    bundle: true,
    minify: true,
    logLevel: 'warning',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    target: ['es2022'],
    outdir: outDir,
    write: true,
  }
  await Promise.all([
    build({
      ...common,
      entryPoints: { app: ENTRY },
      format: 'esm',
      jsx: 'automatic',
      loader: { '.ttf': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    }),
    build({
      ...common,
      format: 'iife',
      entryPoints: {
        'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
        'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
        'graphql.worker': 'monaco-graphql/esm/graphql.worker.js',
      },
    }),
  ])
  for (const file of GRAPHIQL_ASSET_FILES) {
    if (!existsSync(path.join(outDir, file))) throw new Error(`graphiql assets: esbuild did not produce ${file}`)
  }
}

const inFlight = new Map<string, Promise<GraphiqlAssets>>()

/**
 * Returns <dataDir>/graphiql/<fingerprint>/, building it first when missing. Safe across processes: each
 * builder writes a private temp folder and renames it into place; the first rename wins, later ones discard
 * their copy. Logs one line (with the milliseconds taken) only when it builds.
 */
export function ensureGraphiqlAssets(dataDir: string): Promise<GraphiqlAssets> {
  const key = path.resolve(dataDir)
  let pending = inFlight.get(key)
  if (!pending) {
    pending = ensure(key).finally(() => inFlight.delete(key))
    inFlight.set(key, pending)
  }
  return pending
}

async function ensure(dataDir: string): Promise<GraphiqlAssets> {
  const fingerprint = await graphiqlFingerprint()
  const root = path.join(dataDir, 'graphiql')
  const dir = path.join(root, fingerprint)
  if (existsSync(path.join(dir, MANIFEST))) return { dir, fingerprint, built: false }

  await fs.mkdir(root, { recursive: true })
  const tmp = path.join(root, `.tmp-${fingerprint}-${process.pid}-${randomBytes(4).toString('hex')}`)
  const t0 = performance.now()
  try {
    await buildGraphiqlAssets(tmp)
    const files = Object.fromEntries(
      await Promise.all(GRAPHIQL_ASSET_FILES.map(async (f) => [f, (await fs.stat(path.join(tmp, f))).size] as const)),
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
  log.info('graphiql.assets_built', { ms, dir })
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
