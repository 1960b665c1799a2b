// Owns the tool catalogue of the tool server: every tool a twin run can reach, by name. Reads return ids, titles and
// statuses (the sanitiser cleans them on the way out); writes are propose_* tools that file proposals (proposals.ts).
import { z } from 'zod'
import { HarnessDenied } from '../../../core/errors'
import { SKILL_DEFINITIONS, MAX_SKILL_RUNS_PER_TURN } from '../../../domain/skills'
import { defineTool, type ToolDefinition, type TurnLimit } from './tool'
import { twinSummary } from './twin-state'
import { PROPOSE_TOOLS } from './proposals'
import { READ_TOOLS } from './reads'
import { MEMORY_TOOLS } from './memory'
import { GATE_TOOLS } from './gates'
import { LITERATURE_TOOLS } from './literature'
import { HANDOFF_TOOLS } from './handoffs'
import { DOCUMENT_TOOLS } from './documents'
import { TABLE_INPUT_SKILLS, tableInputJsonSchema } from '../../../domain/skills'

/** max_skill_runs_per_turn: the skills of one run and turn, all skill tools together. */
const SKILL_TURN_LIMIT: TurnLimit = {
  counter: 'turn_skills',
  limit: () => MAX_SKILL_RUNS_PER_TURN,
  refusal: (limit) => new HarnessDenied(`max_skill_runs_per_turn is ${limit}; this turn has run ${limit} skills.`),
}

/** Each of the six skills as a tool: class A runs in the tool server, class B in the worker (awaited). */
const SKILL_TOOLS: ToolDefinition[] = SKILL_DEFINITIONS.map((d) => defineTool({
  name: d.key,
  description: `${d.name} (skill, class ${d.skill_class}, check logic version ${d.check_logic_version}). Arguments: { inputs, citations? }.`,
  kind: 'skill',
  skillClass: d.skill_class,
  runRole: d.run_role,
  // qa.check_readiness answers requirements extracted from SOP text: QMS text, outside content.
  ...(d.key === 'qa.check_readiness' ? { outside: 'qms' as const } : {}),
  permission: d.permission as never,
  input: z.object({ inputs: z.unknown(), citations: z.unknown().optional() }),
  turnLimit: SKILL_TURN_LIMIT,
  jsonSchema: {
    type: 'object',
    properties: { inputs: TABLE_INPUT_SKILLS.has(d.key) ? tableInputJsonSchema(d.input_schema) : d.input_schema, citations: { type: 'array', items: {} } },
    required: ['inputs'],
    additionalProperties: false,
  },
}))

const CONSOLE_TOOLS: ToolDefinition[] = [
  defineTool({
    name: 'console.get_twin',
    description: "The run's twin: persona, status, duties, this month's tool calls against its budget, and whether filing is paused.",
    kind: 'read',
    runRole: 'console',
    permission: 'program.twins.read_own',
    input: z.object({}).strict(),
    handler: async (scope, _args, w) => ({ result: await twinSummary(w.tx, scope) }),
  }),
  defineTool({
    name: 'console.list_decisions_waiting',
    description: "The person's decisions waiting in this program (open or snoozed inbox items of kind decision), newest first.",
    kind: 'read',
    runRole: 'console',
    permission: 'program.twins.read_own',
    input: z.object({ first: z.number().int().min(1).max(100).default(50) }).strict(),
    handler: async (scope, args, w) => {
      const where = { userId: scope.ctx.session.userId, programId: scope.run.programId, kind: 'decision' as const, status: { in: ['open' as const, 'snoozed' as const] } }
      const [items, total] = await Promise.all([
        w.tx.inboxItem.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: args.first }),
        w.tx.inboxItem.count({ where }),
      ])
      return {
        result: {
          total,
          items: items.map((i) => ({ id: i.id, title: i.title, status: i.status, sourceType: i.sourceType, sourceId: i.sourceId, twinId: i.twinId, dueAt: i.dueAt, createdAt: i.createdAt })),
        },
      }
    },
  }),
]

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = Object.freeze([...CONSOLE_TOOLS, ...MEMORY_TOOLS, ...READ_TOOLS, ...PROPOSE_TOOLS, ...SKILL_TOOLS, ...GATE_TOOLS, ...LITERATURE_TOOLS, ...DOCUMENT_TOOLS, ...HANDOFF_TOOLS])
const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]))
if (BY_NAME.size !== TOOLS.length) throw new Error('two tools share a name')

export const toolByName = (name: string) => BY_NAME.get(name)
