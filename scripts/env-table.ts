// npm run env-table: writes the configuration reference of docs/operators.md (between the env-table markers) from
// core/config/env.ts (variables, defaults) and core/config/env-docs.ts (what each means).
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderEnvTable, replaceEnvTable } from '../core/config'

export const ENV_TABLE_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/operators.md')

export async function writeEnvTable(): Promise<boolean> {
  const before = await fs.readFile(ENV_TABLE_DOC, 'utf8')
  const after = replaceEnvTable(before, renderEnvTable())
  if (after !== before) await fs.writeFile(ENV_TABLE_DOC, after)
  return after !== before
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const changed = await writeEnvTable()
  console.log(changed ? 'docs/operators.md: configuration table rewritten' : 'docs/operators.md: configuration table up to date')
}
