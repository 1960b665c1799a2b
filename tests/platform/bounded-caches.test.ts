// One policy for bounded in-process caches (core/config/bounded-cache.ts: lru-cache, least recently used out first, TTLs kept
// by the cache): a Map that evicts its oldest insertion, or is cleared when it grows past a size, is the hand-rolled
// cache this keeps from coming back, and lru-cache is built in one place only. The files listed in NOT_YET are the
// caches still hand-rolled in code other changes own; the list only shrinks.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT_DIR } from '../../core/config'

const SOURCE_DIRS = ['core', 'domain', 'gateway', 'subgraphs', 'jobs', 'clients', 'fakes', 'scripts', 'bench']
const NOT_YET = new Set<string>([
])

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT_DIR, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(ROOT_DIR, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
}

/** What a hand-rolled bounded Map looks like: evicting the first key in insertion order, or clearing past a size. */
const HAND_ROLLED = [
  /\.keys\(\)\.next\(\)/,
  /\.size\s*>=?\s*[\w_.]+\s*\)\s*[\w.]+\.clear\(\)/,
]

describe('bounded caches', () => {
  const files = SOURCE_DIRS.flatMap(sourceFiles)

  it('are built with core/config/bounded-cache.ts: no Map evicting by insertion order or cleared past a size elsewhere', () => {
    expect(files).toContain('gateway/identity.ts') // the scan sees the source
    const handRolled = files.filter((f) => !NOT_YET.has(f) && HAND_ROLLED.some((re) => re.test(readFileSync(path.join(ROOT_DIR, f), 'utf8'))))
    expect(handRolled).toEqual([])
  })

  it('construct lru-cache in core/config/bounded-cache.ts only, so every cache has the one policy', () => {
    const direct = files.filter((f) => f !== 'core/config/bounded-cache.ts' && /from 'lru-cache'/.test(readFileSync(path.join(ROOT_DIR, f), 'utf8')))
    expect(direct).toEqual([])
  })

  it('list as not yet converted only files that still hand-roll one', () => {
    const converted = [...NOT_YET].filter((f) => !HAND_ROLLED.some((re) => re.test(readFileSync(path.join(ROOT_DIR, f), 'utf8'))))
    expect(converted).toEqual([])
  })
})
