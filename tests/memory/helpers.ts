// Memory test helpers: GraphQL documents of the memory routes, a domain context for a person, and a way to file the
// write_approval interrupt the tool server will file (an agent run with the interrupt) so Keep can be answered.
import { contextForUser } from '../../core/jobs'
import type { Db } from '../../core/database'
import type { Tenant } from '../helpers/factories'

export const ERR = `__typename ... on Error { code message field }`
export const REC = `id namespace summary body tier kind origin status programId sourceRef passageRefs citableAsEvidence promotedFromId onBehalfOf version pinned expiresAt createdAt updatedAt viewedBy { userId name at text } removal { reason byName }`

export const KEEP = `mutation($input: MemoryNoteInput!) { keepMemoryNote(input: $input) { ${ERR} ... on MutationKeepMemoryNoteSuccess { record { ${REC} } } ... on MemoryNoteRefused { reasons } } }`
export const MY = `query($p: ID, $first: Int, $after: String) { myMemory(programId: $p, first: $first, after: $after) { nodes { ${REC} } pageInfo { endCursor hasNextPage } } }`
export const FORGET = `mutation($id: ID!) { forgetMemory(recordId: $id) { ${ERR} ... on MutationForgetMemorySuccess { record { id status summary } } ... on InvalidTransition { from to } } }`
export const PROMOTE = `mutation($p: ID!, $id: ID!) { promoteMemory(programId: $p, recordId: $id) { ${ERR} ... on MutationPromoteMemorySuccess { scrubbedTermsCount record { ${REC} } } ... on InvalidTransition { from to } } }`
export const OVERSIGHT = `query($p: ID!, $u: ID, $tier: MemoryTier) { agentMemory(programId: $p, userId: $u, tier: $tier) { nodes { id summary tier viewedBy { name } } } }`
export const REMOVE = `mutation($p: ID!, $id: ID!, $reason: String!) { deleteAgentMemory(programId: $p, recordId: $id, reason: $reason) { ${ERR} ... on MutationDeleteAgentMemorySuccess { record { id status summary removal { reason byName } } } } }`

export const ctxOf = (db: Db, t: Tenant, persona: keyof Tenant['users'], opts: { twinId?: string } = {}) =>
  contextForUser(db, t.users[persona].id, t.organization.id, opts)

/**
 * Files what the tool server files for memory.propose_note: an agent run in the program with a write_approval
 * interrupt carrying the proposed note, then answers it as the person would in the inbox.
 */
export async function fileKeepQuestion(db: Db, t: Tenant, question: object, answer: { by: string; choice: 'keep' | 'not_now' } | null, opts: { expiresAt?: Date; answeredAt?: Date; programId?: string } = {}) {
  const run = await db.agentRun.create({ data: { organizationId: t.organization.id, programId: opts.programId ?? t.program.id, kind: 'twin_cycle', status: 'interrupted' } })
  return db.runInterrupt.create({
    data: {
      organizationId: t.organization.id, runId: run.id, kind: 'write_approval', question,
      ...(answer ? { answer: { choice: answer.choice }, answeredByUserId: answer.by, answeredAt: opts.answeredAt ?? new Date() } : {}),
      expiresAt: opts.expiresAt ?? null,
    },
  })
}
