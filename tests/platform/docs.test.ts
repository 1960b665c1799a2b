// The documentation stays true by construction: the configuration reference is generated from core/config/env.ts, every
// variable service code reads is in it, no document names a file a clone does not hold, and every relative link of
// the README and docs/ points at a file (and heading) that exists. (The examples run in tests/gateway/docs-examples.)
import { describe, expect, it } from 'vitest'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT_DIR, EnvSchema } from '../../core/config'
import { ENV_DOCS, ENV_TABLE_END, ENV_TABLE_START, RAW_VARIABLES, renderEnvTable } from '../../core/config'

const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT_DIR, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
const read = (file: string) => fs.readFileSync(path.join(ROOT_DIR, file), 'utf8')
/** The other markdown files of the repository (bench/README.md, a domain folder's README). */
const MORE_MARKDOWN = ['bench', 'subgraphs', 'domain', 'core', 'console', 'fakes', 'jobs', 'gateway', 'tests', 'scripts', 'clients']
  .flatMap((dir) => (fs.readdirSync(path.join(ROOT_DIR, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => `${dir}/${f}`))

/** Every TypeScript file under the folders that make up the running service. */
function serviceFiles(): string[] {
  const found: string[] = ['main.ts', 'services.ts']
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT_DIR, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(rel)
      else if (entry.name.endsWith('.ts')) found.push(rel)
    }
  }
  for (const dir of ['core', 'domain', 'gateway', 'subgraphs', 'jobs']) walk(dir)
  return found
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  for (const m of markdown.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(slug(m[1]))
  for (const m of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(m[1])
  return anchors
}

describe('the documentation', () => {
  it('shows the configuration reference generated from core/config/env.ts (run npm run env-table when this fails)', () => {
    const doc = read('docs/operators.md')
    const start = doc.indexOf(ENV_TABLE_START)
    const end = doc.indexOf(ENV_TABLE_END)
    expect(start, 'docs/operators.md has no env-table section').toBeGreaterThanOrEqual(0)
    expect(doc.slice(start, end + ENV_TABLE_END.length)).toBe(renderEnvTable())
  })

  it('lists every variable of the schema in the configuration reference, with words for each', () => {
    const table = renderEnvTable()
    for (const name of Object.keys(EnvSchema.shape)) {
      expect(table, name).toContain(`| \`${name}\` |`)
      expect(ENV_DOCS[name as keyof typeof ENV_DOCS].meaning.length, name).toBeGreaterThan(10)
    }
  })

  it('lists every variable that service code reads from process.env, parsed or raw', () => {
    const documented = new Set([...Object.keys(EnvSchema.shape), ...Object.keys(RAW_VARIABLES), 'VITEST'])
    const unlisted = new Set<string>()
    for (const file of serviceFiles()) {
      for (const m of read(file).matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) if (!documented.has(m[1])) unlisted.add(`${m[1]} (${file})`)
    }
    expect([...unlisted]).toEqual([])
  })

  it('names no document a clone does not hold (the design notes, the vendor notes, the specification folder), in any markdown file', () => {
    const problems: string[] = []
    for (const file of [...DOCS, ...MORE_MARKDOWN]) {
      const text = read(file)
      for (const pattern of [/DESIGN\.md/g, /VENDORS\.md/g, /\.\.\/shared\//g]) {
        for (const m of text.matchAll(pattern)) problems.push(`${file}: ${m[0]}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('links only to files and headings that exist', () => {
    const problems: string[] = []
    for (const file of DOCS) {
      const text = read(file).replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]
        if (/^[a-z]+:/.test(target)) continue
        const [pathPart, anchor] = target.split('#')
        const resolved = pathPart ? path.normalize(path.join(path.dirname(file), pathPart)) : file
        if (!fs.existsSync(path.join(ROOT_DIR, resolved))) { problems.push(`${file}: ${target} (no such file)`); continue }
        if (anchor && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) problems.push(`${file}: ${target} (no such heading)`)
      }
    }
    expect(problems).toEqual([])
  })

  // Links are checked above; a path named in prose or a code span (`core/database/db.ts`, subgraphs/twins/schema/index.ts) is
  // a link too, and went stale unseen when its file moved (issue 37, item 6). A path from the repository's root
  // (core/…, subgraphs/…), or a file named from inside a subgraph or a test folder (domain/connections/sync.ts,
  // schema/gates.ts, connectors/helpers.ts), must name something that exists. Patterns (*, <name>, {a,b}) are not paths.
  it('names only repository paths that exist, in prose and code spans', () => {
    const FROM_ROOT = ['core', 'domain', 'gateway', 'subgraphs', 'jobs', 'tests', 'bench', 'console', 'fakes', 'scripts', 'clients', 'docs', 'prisma', 'schema', 'generated', '.ci']
    const FROM_INSIDE = ['connectors', 'twins', 'workbench', 'shared', 'domain', 'tools', 'tasks', 'helpers']
    const candidate = new RegExp(`(?<![\\w./-])((?:${[...FROM_ROOT, ...FROM_INSIDE].map((d) => d.replace('.', '\\.')).join('|')})/[\\w./*{}<>…$-]*[\\w/])`, 'g')
    const subgraphs = fs.readdirSync(path.join(ROOT_DIR, 'subgraphs'))
    const places = (p: string) => [p, `subgraphs/${p}`, ...subgraphs.map((s) => `subgraphs/${s}/${p}`), `tests/${p}`, `jobs/${p}`]
    const problems: string[] = []
    for (const file of DOCS) {
      for (const m of read(file).matchAll(candidate)) {
        const named = m[1].replace(/\/$/, '')
        if (/[*{}<>…$]/.test(named)) continue
        const fromRoot = FROM_ROOT.includes(named.split('/')[0])
        // from inside a folder, only file names count ('tools/list' is an MCP method, 'twins/paused' a state)
        if (!fromRoot && !/\.[a-z]{1,4}$/.test(named)) continue
        if (!places(named).some((p) => fs.existsSync(path.join(ROOT_DIR, p)))) problems.push(`${file}: ${named}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('keeps the README short: the two commands, the first look and where to go next', () => {
    const readme = read('README.md')
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm ci && npm test')
    for (const doc of ['console-developers', 'operators', 'integrators', 'contributors']) expect(readme).toContain(`docs/${doc}.md`)
    expect(readme.split('\n').length).toBeLessThan(150)
  })
})
