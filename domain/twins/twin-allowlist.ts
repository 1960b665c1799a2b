// Owns keeping twin_definitions.tool_allowlist_hash true: written when the person creates, updates or resumes the twin,
// and compared when each cycle starts. A change (a persona gained or lost since) is recorded on the twin and audited
// twin.update with the cause, the previous and new hash and the tool names, so a quality reviewer reading the agent
// configuration's trail sees every change of what the twin may call, not only the ones a person made.
import type { TwinDefinition } from '../../generated/prisma/client'
import { recordAudit, type Actor } from '../../core/audit'
import { asTx, type AnyTx } from '../../core/database'
import type { Session } from '../../core/identity'

/** The tools a twin_cycle run may call under a person's live permissions in a program, and their hash. */
export type TwinToolAllowlist = (session: Session, programId: string) => { tools: string[]; hash: string }

// The tool catalogue sits above the domain (its tools call the domain's faces), so the domain cannot import it:
// installDomain (subgraphs/install.ts) hands its allow-list function in, as it does the audit hooks.
let allowlistOf: TwinToolAllowlist | null = null

/** Installs the tool server's allow-list function (tools/allowlist-hash.ts). Idempotent. */
export function installTwinToolAllowlist(fn: TwinToolAllowlist): void {
  allowlistOf = fn
}

/** The tool allow-list of a twin of this session's person in the program (installed by installDomain). */
export function twinToolAllowlist(session: Session, programId: string): { tools: string[]; hash: string } {
  if (!allowlistOf) throw new Error('the twin tool allow-list is not installed: each entry point installs it (subgraphs/install.ts)')
  return allowlistOf(session, programId)
}

export type AllowlistCause = 'create' | 'update' | 'resume' | 'run'

/** Stores the twin's allow-list hash when it changed, with its audit row; answers the hash now. */
export async function recordToolAllowlist(anyTx: AnyTx, twin: Pick<TwinDefinition, 'id' | 'organizationId' | 'programId' | 'toolAllowlistHash'>, session: Session, actor: Actor, cause: AllowlistCause): Promise<string | null> {
  if (!twin.programId) return twin.toolAllowlistHash
  const now = twinToolAllowlist(session, twin.programId)
  if (now.hash === twin.toolAllowlistHash) return now.hash
  const tx = asTx(anyTx)
  await tx.twinDefinition.update({ where: { id: twin.id }, data: { toolAllowlistHash: now.hash } })
  await recordAudit(tx, {
    organizationId: twin.organizationId, programId: twin.programId, action: 'twin.update', actor, target: { type: 'twin', id: twin.id }, twinId: twin.id,
    details: { fields: ['toolAllowlistHash'], cause, tool_allowlist_hash: now.hash, previous_hash: twin.toolAllowlistHash, tools: now.tools },
  })
  return now.hash
}
