// Owns the tool allow-list a twin's cycle works under, as one hash (twin_definitions.tool_allowlist_hash): the names of
// the tools a twin_cycle run may call under its person's live permissions in the program (run-role tools ∩ allow-list,
// toolset.ts), sorted, as canonical JSON, sha256. The workbench role's narrowing is left out: it is fixed per run, and
// the hash describes what the person's permissions grant their twin.
import { createHash } from 'node:crypto'
import type { Session } from '../../../core/identity'
import { allowList, runRoleTools } from './toolset'

export function twinToolAllowlist(session: Session, programId: string): { tools: string[]; hash: string } {
  const allowed = new Set(allowList(session, programId).map((t) => t.name))
  const tools = runRoleTools('twin_cycle').map((t) => t.name).filter((n) => allowed.has(n)).sort()
  return { tools, hash: createHash('sha256').update(JSON.stringify(tools)).digest('hex') }
}
