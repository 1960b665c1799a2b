// Owns the propose_* tools: one per record type the duty templates file, each filing through fileProposal (which
// pins the basis and computes basis_hash, writes the unsigned draft, the write_approval interrupt and the decision
// item). A tool files only its own record type in the run's program, and only creates or updates: twins never decide.
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { IdInput } from '../../../core/text'
import { InvalidInput } from '../../../core/errors'
import { RECORD_TYPES, type RecordTypeKey } from '../../../domain/records'
import { fileProposal } from '../../../domain/proposals'
import { lintBeforeFiling, lintedText, lintsBeforeFiling } from '../../../domain/proposals'
import { defineTool, type RunRole, type ToolDefinition } from './tool'

const Citation = z.object({ kind: z.string().max(50), ref: z.string().max(500) }).passthrough()
const Change = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('create'), title: z.string().min(1).max(300), body: z.string().max(20_000).optional(),
    fields: z.record(z.string(), z.unknown()).optional(), citations: z.array(Citation).max(50).optional(),
  }).strict(),
  z.object({
    kind: z.literal('update'), recordId: IdInput, title: z.string().min(1).max(300).optional(), body: z.string().max(20_000).optional(),
    fields: z.record(z.string(), z.unknown()).optional(), citations: z.array(Citation).max(50).optional(),
  }).strict(),
])
const ProposeInput = z.object({
  change: Change,
  /** The records the proposal was based on (the updated record is always part of the basis). */
  basisRecordIds: z.array(IdInput).max(100).default([]),
  /** The draft a person reads beside the change: what the twin saw and why it proposes this. */
  draft: z.string().min(1).max(20_000),
}).strict()
type ProposeArgs = z.output<typeof ProposeInput>

/** The record a call concerns: an update's record, or a create's normalised title (same title, same proposal). */
const targetOf = (args: ProposeArgs) => args.change.kind === 'update'
  ? `update:${args.change.recordId}`
  : `create:${createHash('sha256').update(args.change.title.trim().toLowerCase()).digest('hex').slice(0, 16)}`

function proposeTool(name: string, recordType: RecordTypeKey, description: string): ToolDefinition {
  return defineTool({
    name, description, kind: 'write', runRole: recordType.split('.')[0] as RunRole, permission: RECORD_TYPES[recordType].permissions.manage,
    input: ProposeInput,
    target: targetOf,
    handler: async (scope, args, w) => {
      if (args.change.kind === 'update') {
        const record = await w.tx.programRecord.findFirst({ where: { id: args.change.recordId, programId: scope.run.programId }, select: { recordType: true } })
        if (record && record.recordType !== recordType) throw InvalidInput.of('change.recordId', `${name} proposes changes to ${recordType} records only.`)
      }
      const change = args.change.kind === 'create' ? { ...args.change, programId: scope.run.programId, recordType } : args.change
      // evidence.assertion_lint runs before every evidence.propose_* (proposal-lint.ts), in this call's transaction.
      const lint = lintsBeforeFiling(name)
        ? await lintBeforeFiling(w.tx, {
          organizationId: scope.run.organizationId, programId: scope.run.programId, userId: scope.ctx.session.userId, actor: scope.ctx.actor,
          call: { runId: scope.run.id, twinId: scope.run.twinId, turn: scope.turn }, tool: name,
        }, lintedText(args.draft, args.change.body))
        : null
      const filed = await fileProposal(scope.ctx, {
        runId: scope.run.id, change, basisRecordIds: args.basisRecordIds, draft: args.draft, twinId: scope.run.twinId, tool: name, lint,
      }, { within: w })
      // One of the same kind on the same basis is still waiting for the person: nothing was filed, and the twin is told
      // which one (fileProposal decides it under the person's filing lock).
      if (filed.alreadyWaiting) return { result: { alreadyWaiting: true, proposalId: filed.proposalId, title: filed.title, basisHash: filed.basisHash }, basisHash: filed.basisHash }
      return {
        result: {
          proposalId: filed.proposalId, inboxItemId: filed.inboxItemId, basisHash: filed.basisHash, draftArtifactId: filed.draftArtifactId,
          // What the twin learns of its lint: the flagged sentences, so a later draft can cite them.
          ...(lint ? { lint: { passed: lint.passed, uncited: lint.uncited.map((u) => ({ index: u.index, kind: u.kind })) } } : {}),
        },
        basisHash: filed.basisHash, toolCallId: filed.toolCallId,
      }
    },
  })
}

/** The propose tools of this issue: the plan change of the tools table, and the record types the duty templates file. */
export const PROPOSE_TOOLS: ToolDefinition[] = [
  proposeTool('plans.propose_plan_change', 'plans.plans', 'Propose a new plan or a change to a plan (plans.plans); a person decides.'),
  proposeTool('plans.propose_report', 'plans.reports', 'Propose a report record (pre-reads are summaries); a person decides.'),
  proposeTool('evidence.propose_finding', 'evidence.findings', 'Propose an evidence finding; a person decides.'),
  proposeTool('evidence.propose_question', 'evidence.questions', 'Propose an open question; a person decides.'),
  proposeTool('evidence.propose_gap', 'evidence.gaps', 'Propose an evidence gap; a person decides.'),
  proposeTool('progress.propose_open_item', 'progress.open_items', 'Propose an open item (a blocker to clear); a person decides.'),
  proposeTool('review.propose_finding', 'review.findings', 'Propose a quality review finding; a person decides.'),
  proposeTool('review.propose_deviation', 'review.deviations', 'Propose a deviation record or a change to one; a person decides.'),
]
