// Owns the tools that read program records for duty templates: one <product>.list_<resource> per record type of the
// records contract, under that type's .read key, answering ids, titles, statuses, versions and typed fields.
import { z } from 'zod'
import { RECORD_TYPE_KEYS, RECORD_TYPES, listRecords, typedFields } from '../../../domain/records'
import { sanitiseOutsideText } from '../../../core/text'
import { defineTool, type RunRole, type ToolDefinition } from './tool'
import { asViolation, type Violation } from './sanitise'

/** Body text returned per record; the full text stays in the service (the sanitiser truncates anything longer too). */
const BODY_PREVIEW = 2000

export const READ_TOOLS: ToolDefinition[] = RECORD_TYPE_KEYS.map((key) => {
  const [product, resource] = key.split('.')
  const spec = RECORD_TYPES[key]
  return defineTool({
    name: `${product}.list_${resource}`,
    description: `Records of type ${key} in the run's program, newest first; optionally only one status (${spec.machine.states.join(', ')}).`,
    kind: 'read',
    runRole: product as RunRole,
    permission: spec.permissions.read,
    input: z.object({
      status: z.enum(spec.machine.states as unknown as [string, ...string[]]).optional(),
      first: z.number().int().min(1).max(100).default(50),
    }).strict(),
    handler: async (scope, args) => {
      const page = await listRecords(scope.ctx, scope.run.programId, { recordType: key, status: args.status ?? null, first: args.first })
      const violations: Violation[] = []
      return {
        result: {
          recordType: key,
          hasMore: page.pageInfo.hasNextPage,
          records: page.edges.map(({ node: r }, i) => {
            // Record text may come from outside (vendors, notebooks): the shared sanitiser, with provider mentions kept.
            const body = sanitiseOutsideText(r.body.length > BODY_PREVIEW ? `${r.body.slice(0, BODY_PREVIEW)}…` : r.body, { mentions: true })
            for (const f of body.findings) violations.push(asViolation(`records[${i}].body`, f))
            return { id: r.id, title: r.title, status: r.status, version: r.version, fields: typedFields(r), body: body.text, createdAt: r.createdAt, updatedAt: r.updatedAt }
          }),
        },
        violations,
      }
    },
  })
})
