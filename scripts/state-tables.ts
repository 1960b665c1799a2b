// npm run states: writes the transition tables of docs/contributors.md (between the state-tables markers) from core/states/.
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderStateTables, replaceStateTables } from '../core/states'
import { MACHINES } from '../core/states'

export const STATE_TABLES_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/contributors.md')

export async function writeStateTables(): Promise<boolean> {
  const before = await fs.readFile(STATE_TABLES_DOC, 'utf8')
  const after = replaceStateTables(before, renderStateTables(MACHINES))
  if (after !== before) await fs.writeFile(STATE_TABLES_DOC, after)
  return after !== before
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const changed = await writeStateTables()
  console.log(changed ? `docs/contributors.md: state tables rewritten (${MACHINES.length} machines)` : 'docs/contributors.md: state tables up to date')
}
