// Owns the GraphiQL page's browser assets: bundles gateway/graphiql/app.jsx (GraphiQL 5, esm) and the three
// monaco workers (iife) with esbuild, and caches the result under <dataDir>/graphiql/<fingerprint>/.
import { build, type BuildOptions } from 'esbuild'
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { ensureBuiltAssets, packageJsonPath } from '../asset-cache'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

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
export const GRAPHIQL_ASSET_FILES = ['app.js', 'app.css', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js'] as const

export interface GraphiqlAssets {
  /** Folder holding app.js, app.css and the *.worker.js bundles. */
  dir: string
  fingerprint: string
  /** True when this call ran esbuild, false when it reused an earlier build. */
  built: boolean
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(packageJsonPath(name, HERE), 'utf8')) as { version: string }).version
}

/** Project root used as esbuild's working directory (where node_modules/graphiql lives). */
function projectRoot(): string {
  return path.resolve(path.dirname(packageJsonPath('graphiql', HERE)), '../..')
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

/**
 * Returns <dataDir>/graphiql/<fingerprint>/, building it first when missing (gateway/asset-cache.ts: safe across
 * processes, one log line when it builds).
 */
export async function ensureGraphiqlAssets(dataDir: string): Promise<GraphiqlAssets> {
  return ensureBuiltAssets(dataDir, { name: 'graphiql', fingerprint: await graphiqlFingerprint(), files: GRAPHIQL_ASSET_FILES, build: buildGraphiqlAssets })
}
