// Owns the hand-off tools of the tool server: console.propose_handoff (a write: files a proposal its author decides;
// nothing is sent until they approve) and console.list_handoffs (a read of the run's program). Neither is ever in
// PLANNING_TOOLS (toolset.ts): planning reads, it never proposes a send.
import { z } from 'zod'
import { IdInput } from '../../../core/text'
import { HANDOFF_KINDS, HANDOFF_PERSONAS, HANDOFF_STATUSES, LINKED_TYPES } from '../../../domain/collaboration'
import { fileHandoffProposal } from '../../../domain/proposals'
import { defineTool, type ToolDefinition } from './tool'

const ProposeHandoff = z.object({
  toPersonaKey: z.enum(HANDOFF_PERSONAS),
  toUserId: IdInput.optional(),
  kind: z.enum(HANDOFF_KINDS),
  linkedType: z.enum(LINKED_TYPES).default('program_record'),
  linkedId: IdInput,
  /** What is handed off and why; secrets and records the recipients may not read are redacted. */
  messageMd: z.string().min(1).max(20_000),
}).strict()

export const HANDOFF_TOOLS: ToolDefinition[] = [
  defineTool({
    name: 'console.propose_handoff',
    description: 'Propose a hand-off (review, data, decision or information) of a record to a persona of the program; your person decides, and only their approval sends it.',
    kind: 'write',
    runRole: 'console',
    permission: 'program.handoffs.manage',
    input: ProposeHandoff,
    target: (a) => `handoff:${a.linkedType}:${a.linkedId}:${a.toPersonaKey}:${a.kind}`,
    handler: async (scope, args, w) => {
      const filed = await fileHandoffProposal(scope.ctx, {
        runId: scope.run.id, twinId: scope.run.twinId, draft: { ...args, programId: scope.run.programId },
      }, { within: w })
      return { result: { proposalId: filed.proposalId, inboxItemId: filed.inboxItemId, basisHash: filed.basisHash }, basisHash: filed.basisHash }
    },
  }),
  defineTool({
    name: 'console.list_handoffs',
    description: "Hand-offs of the run's program, newest first: ids, kinds, personas, statuses and linked items (never the message).",
    kind: 'read',
    runRole: 'console',
    permission: 'program.handoffs.read',
    input: z.object({ status: z.enum(HANDOFF_STATUSES as unknown as [string, ...string[]]).optional(), first: z.number().int().min(1).max(100).default(50) }).strict(),
    handler: async (scope, args, w) => {
      const rows = await w.tx.handoffRequest.findMany({
        where: { programId: scope.run.programId, ...(args.status ? { status: args.status as never } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: args.first,
      })
      return {
        result: {
          handoffs: rows.map((h) => ({
            id: h.id, kind: h.kind, status: h.status, toPersonaKey: h.toPersonaKey, toUserId: h.toUserId, fromUserId: h.fromUserId,
            linkedType: h.linkedType, linkedId: h.linkedId, createdAt: h.createdAt, decidedAt: h.decidedAt,
          })),
        },
      }
    },
  }),
]
