// Owns the program's twin defaults (programs.settings.twin_defaults; twins document: program.twins.manage "set program
// twin defaults, with a reason"): what they may hold, setting them, and what a new twin takes from them. A person's
// own choices when creating their twin win; the defaults fill what they leave out. Existing twins are not changed
// (each person configures their own twin, program.twins.use).
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Program } from '../../generated/prisma/client'
import { command } from '../../core/jobs'
import { InvalidInput, NotFoundError, ReasonRequired } from '../../core/errors'
import { IdInput } from '../../core/text'
import { RESERVED_DUTY_TEMPLATES } from '../../core/identity'
import { dutyKeys, dutyRefusal } from './duty-catalogue'

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'use HH:MM (24 h)')

/** What twin_defaults may hold (each key optional; snake_case as in programs.settings). */
export const TwinDefaults = z.object({
  expiry_hours: z.number().int().min(1).max(720).optional(),
  digest_time: HHMM.nullable().optional(),
  batch_times: z.array(HHMM).max(6).optional(),
  budget_tool_calls_month: z.number().int().min(0).max(100_000).optional(),
  budget_usd_month: z.number().min(0).max(100_000).nullable().optional(),
  duties: z.array(z.string().min(1).max(64)).max(20, 'at most 20 duties').optional(),
}).strict()
export type TwinDefaults = z.infer<typeof TwinDefaults>

/** The defaults stored in a program's settings; {} when none (or a value saved before they were validated). */
export function twinDefaultsOf(settings: unknown): TwinDefaults {
  const parsed = TwinDefaults.safeParse((settings as Record<string, unknown> | null)?.twin_defaults ?? {})
  return parsed.success ? parsed.data : {}
}

/**
 * Sets the program's twin defaults (program.twins.manage, with a reason; audit program.update naming the keys and the
 * reason). Replaces the whole object: keys left out no longer default. A duty must exist and not be reserved; whether a
 * persona may hold it is decided per twin (a default duty a persona cannot hold is left out of that twin).
 */
export const setProgramTwinDefaults = command({
  permission: 'program.twins.manage',
  input: z.object({ programId: IdInput, defaults: z.record(z.string(), z.unknown()), reason: personText(2000).nullish() }),
  load: async (q, input) => {
    const program = await q.program.findFirst({ where: { id: input.programId } })
    if (!program) throw new NotFoundError('Program', { field: 'programId' })
    return program
  },
  program: (input) => input.programId,
  audit: ['program.update'],
  errors: [ReasonRequired],
  async run(w, input, program): Promise<Program> {
    if (!input.reason?.trim()) throw new ReasonRequired('Give a reason for changing the program\'s twin defaults.', { field: 'reason' })
    const parsed = TwinDefaults.safeParse(input.defaults)
    if (!parsed.success) throw new InvalidInput(parsed.error.issues.map((i) => ({ field: ['defaults', ...i.path].join('.'), message: i.message })))
    const known = new Set(dutyKeys())
    for (const [i, key] of (parsed.data.duties ?? []).entries()) {
      if (RESERVED_DUTY_TEMPLATES.includes(key)) throw InvalidInput.of(`defaults.duties.${i}`, `The duty ${key} is reserved for R5.`)
      if (!known.has(key)) throw InvalidInput.of(`defaults.duties.${i}`, `There is no duty ${key}.`)
    }
    const settings = { ...(program.settings as Record<string, unknown>), twin_defaults: parsed.data }
    const updated = await w.tx.program.update({ where: { id: program.id }, data: { settings: settings as object } })
    await w.audit('program.update', { type: 'program', id: program.id }, { settings: ['twin_defaults'], twin_defaults: Object.keys(parsed.data), reason: input.reason })
    return updated
  },
})

/** What a person chose when creating their twin (undefined: not given). */
export interface TwinChoices {
  duties?: string[]
  digestTime?: string | null
  batchTimes?: string[]
  budgetToolCallsMonth?: number
  budgetUsdMonth?: number | null
}

/**
 * A new twin's settings: the person's choices, and the program's defaults for what they left out (default duties the
 * persona cannot hold are left out). `applied` names the defaults taken, for the twin.create audit.
 */
export function withTwinDefaults(choices: TwinChoices, programSettings: unknown, twin: { personaKey: string; programId: string }, userSettings: unknown) {
  const d = twinDefaultsOf(programSettings)
  const applied: string[] = []
  const take = <T>(given: T | undefined, key: keyof TwinDefaults, fallback: T): T => {
    if (given !== undefined) return given
    if (d[key] !== undefined) { applied.push(key); return d[key] as T }
    return fallback
  }
  const duties = choices.duties ?? (d.duties
    ? (applied.push('duties'), d.duties.filter((k) => dutyRefusal(k, twin.personaKey, twin.programId, userSettings) === null))
    : [])
  return {
    duties,
    digestTime: take(choices.digestTime, 'digest_time', null as string | null),
    batchTimes: take(choices.batchTimes, 'batch_times', [] as string[]),
    budgetToolCallsMonth: take(choices.budgetToolCallsMonth, 'budget_tool_calls_month', undefined as number | undefined),
    budgetUsdMonth: take(choices.budgetUsdMonth, 'budget_usd_month', null as number | null),
    expiryHours: take(undefined, 'expiry_hours', undefined as number | undefined),
    applied,
  }
}
