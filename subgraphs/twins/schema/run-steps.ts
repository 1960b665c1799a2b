// The run rail in the twins subgraph: TwinRun.steps (each tool call of the run, oldest first, in words) and
// TwinRun.stepCount. Resolvers translate; domain/twins/run-steps.ts decides what a step reads and who may read it.
import type { ObjectRef } from '@pothos/core'
import type { AgentRun } from '../../../generated/prisma/client'
import type { Builder, SchemaTypes } from '../../shared/builder'
import { countRunSteps, listRunSteps, RUN_STEPS_MAX, type RunStep, type TwinRunRow } from '../../../domain/twins'

type RunRef = ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, AgentRun | TwinRunRow>

export function addRunSteps(builder: Builder, Run: RunRef) {
  const Outcome = builder.enumType('TwinRunStepOutcome', {
    description: 'ok: the call went through; refused: it was refused (see reason); error: it failed; running: under way.',
    values: ['running', 'ok', 'refused', 'error'] as const,
  })
  const Step = builder.objectRef<RunStep>('TwinRunStep').implement({
    description: "One tool call of a twin run as the run rail shows it: the tool in words, when, its outcome and what came back. A literature search lists its query policy step by step, an exhausted budget as 'budget exhausted for source X, retry after N s' (X in words).",
    fields: (t) => ({
      id: t.exposeID('id'),
      tool: t.exposeString('tool', { description: "The tool's name as the tool server lists it (evidence.search_literature); show toolName to people." }),
      toolName: t.exposeString('toolName', { description: "The tool in words ('Searched the open literature')." }),
      at: t.field({ type: 'DateTime', resolve: (s) => s.at }),
      outcome: t.field({ type: Outcome, resolve: (s) => s.outcome }),
      reason: t.string({ nullable: true, description: "Why it was refused or failed, in words ('budget exhausted for source European literature index, retry after 7 s'); null when ok.", resolve: (s) => s.reason }),
      summary: t.string({ nullable: true, description: "What came back, in a sentence ('Searched for “kinase”: 3 works found.'); null for a refusal or when there is nothing to say.", resolve: (s) => s.summary }),
      details: t.stringList({ description: "Further lines: a literature search's query policy, one line per step with its source's status.", resolve: (s) => s.details }),
    }),
  })
  builder.objectFields(Run, (t) => ({
    steps: t.field({
      type: [Step], nullable: true,
      description: `The run rail: the run's tool calls in the order they were made, the first \`first\` of them (1 to ${RUN_STEPS_MAX}, default ${RUN_STEPS_MAX}; stepCount says how many there are). Null when the caller may not see the run's twin.`,
      args: { first: t.arg.int({ required: false }) },
      resolve: (r, { first }, ctx) => listRunSteps(ctx, r, first),
    }),
    stepCount: t.int({
      nullable: true, description: "How many tool calls the run has made so far (null when the caller may not see the run's twin).",
      resolve: (r, _a, ctx) => countRunSteps(ctx, r),
    }),
  }))
}
