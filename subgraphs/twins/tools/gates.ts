// Owns the stage gate tools of the tool server (twins document, Tools, R4): console.get_stage_gate and
// progress.list_stage_gates, reads under progress.stages.read in the run's program, answering ids, statuses, the card
// and each requirement's state (labels and ids, no record text).
import { z } from 'zod'
import type { StageGate } from '../../../generated/prisma/client'
import { IdInput } from '../../../core/text'
import { asRequiredRecords, card } from '../../../domain/gates'
import { STAGE_GATE_STATUSES } from '../../../domain/gates'
import { defineTool, type ToolDefinition } from './tool'

const view = (g: StageGate) => {
  const r = asRequiredRecords(g.requiredRecords)
  return {
    id: g.id, stageId: g.stageId, nextStageId: g.nextStageId, version: g.version, status: g.status, card: card(r), present: r.present, total: r.total,
    requiredRecords: r.items.map((i) => ({ key: i.key, kind: i.kind, label: i.label, present: i.present, found: i.found, missing: i.missing })),
    openedAt: g.openedAt, readyAt: g.readyAt, closedAt: g.closedAt, supersedesId: g.supersedesId, briefArtifactId: g.briefArtifactId,
  }
}

export const GATE_TOOLS: ToolDefinition[] = [
  defineTool({
    name: 'console.get_stage_gate',
    description: "One stage gate of the run's program: status, the card '<N> of <M> required records present' and each requirement's state.",
    kind: 'read',
    runRole: 'console',
    permission: 'progress.stages.read',
    input: z.object({ gateId: IdInput }).strict(),
    handler: async (scope, args, w) => {
      const gate = await w.tx.stageGate.findFirst({ where: { id: args.gateId, programId: scope.run.programId } })
      return { result: { gate: gate ? view(gate) : null } }
    },
  }),
  defineTool({
    name: 'progress.list_stage_gates',
    description: "The stage gates of the run's program, newest first; optionally only one status (open, ready, reviewed, closed).",
    kind: 'read',
    runRole: 'progress',
    permission: 'progress.stages.read',
    input: z.object({ status: z.enum(STAGE_GATE_STATUSES).optional(), first: z.number().int().min(1).max(100).default(50) }).strict(),
    handler: async (scope, args, w) => {
      const gates = await w.tx.stageGate.findMany({
        where: { programId: scope.run.programId, ...(args.status ? { status: args.status } : {}) },
        orderBy: [{ openedAt: 'desc' }, { id: 'desc' }], take: args.first,
      })
      return { result: { gates: gates.map(view) } }
    },
  }),
]
