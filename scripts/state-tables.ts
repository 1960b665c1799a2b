// npm run states: writes the README's transition tables (between the state-tables markers) from core/states/.
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderStateTables, replaceStateTables } from '../core/state-machine'
import { MACHINES } from '../core/states'

export const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../README.md')

export async function writeStateTables(): Promise<boolean> {
  const before = await fs.readFile(README, 'utf8')
  const after = replaceStateTables(before, renderStateTables(MACHINES))
  if (after !== before) await fs.writeFile(README, after)
  return after !== before
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const changed = await writeStateTables()
  console.log(changed ? `README.md: state tables rewritten (${MACHINES.length} machines)` : 'README.md: state tables up to date')
}
