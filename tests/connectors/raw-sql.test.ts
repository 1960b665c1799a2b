// One road to PostgreSQL in the domain and the connectors subgraph: raw SQL lives only in one module per concept (its
// sql.ts), so a security reviewer reads those files for what reaches the database by hand.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')
const RAW = /\$(query|execute)Raw|\bpool\.query\b|\bpg\.(Client|Pool)\b/
const SQL_MODULE = /(^|\/)(sql)\.ts$/

function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`
    return e.isDirectory() ? tsFiles(rel) : e.name.endsWith('.ts') ? [rel] : []
  })
}

describe('raw SQL in the domain and the connectors subgraph', () => {
  it('appears only in its sql modules', () => {
    const files = [...tsFiles('domain'), ...tsFiles('subgraphs/connectors')]
    const sqlModules = files.filter((f) => SQL_MODULE.test(f))
    expect(sqlModules.length).toBeGreaterThanOrEqual(14)
    expect(files.filter((f) => !SQL_MODULE.test(f) && RAW.test(fs.readFileSync(path.join(ROOT, f), 'utf8')))).toEqual([])
  })
})
