// Owns the web console's bundle: esbuild turns console/src/main.tsx (React 19, urql, graphql-ws) into app.js and
// app.css, offline (everything from node_modules), cached under <dataDir>/console/<fingerprint>/ by
// gateway/asset-cache.ts. The fingerprint covers every source file, the page template, the fixed copy and the versions
// of the bundled packages, so a start after any change rebuilds and a start after none reuses the bundle.
import { build } from 'esbuild'
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuiltAssets, packageJsonPath, type BuiltAssets } from '../gateway/asset-cache'

export const CONSOLE_DIR = path.dirname(fileURLToPath(import.meta.url))
const SRC = path.join(CONSOLE_DIR, 'src')
const ENTRY = path.join(SRC, 'main.tsx')
export const INDEX_TEMPLATE = path.join(CONSOLE_DIR, 'index.html')
/** Files outside src/ that shape the bundle (core/text/copy.ts is imported by the bundle itself). */
const EXTRA_SOURCES = [INDEX_TEMPLATE, fileURLToPath(import.meta.url), path.join(CONSOLE_DIR, '..', 'core', 'text', 'copy.ts')]
const FINGERPRINT_PACKAGES = ['react', 'react-dom', 'urql', '@urql/core', 'wonka', 'graphql', 'graphql-ws', 'oauth4webapi', 'esbuild']

export const CONSOLE_ASSET_FILES = ['app.js', 'app.css'] as const

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(packageJsonPath(name, CONSOLE_DIR), 'utf8')) as { version: string }).version
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...await sourceFiles(full))
    else out.push(full)
  }
  return out
}

export async function consoleFingerprint(): Promise<string> {
  const hash = createHash('sha256')
  for (const name of FINGERPRINT_PACKAGES) hash.update(`${name}@${packageVersion(name)}\n`)
  for (const file of [...EXTRA_SOURCES, ...await sourceFiles(SRC)]) {
    hash.update(`${path.relative(CONSOLE_DIR, file)}\n`).update(await fs.readFile(file))
  }
  return hash.digest('hex').slice(0, 16)
}

/** Bundles the console into outDir: app.js (esm, minified) and app.css. */
export async function buildConsoleAssets(outDir: string): Promise<void> {
  await build({
    absWorkingDir: path.resolve(CONSOLE_DIR, '..'),
    entryPoints: { app: ENTRY },
    bundle: true,
    minify: true,
    format: 'esm',
    jsx: 'automatic',
    target: ['es2022'],
    logLevel: 'warning',
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    tsconfig: path.join(CONSOLE_DIR, 'tsconfig.json'),
    outdir: outDir,
    write: true,
  })
}

/** <dataDir>/console/<fingerprint>/, built first when missing or stale. */
export async function ensureConsoleAssets(dataDir: string): Promise<BuiltAssets> {
  return ensureBuiltAssets(dataDir, { name: 'console', fingerprint: await consoleFingerprint(), files: CONSOLE_ASSET_FILES, build: buildConsoleAssets })
}
