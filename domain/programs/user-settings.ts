// Owns what the API serves of users.settings: the settings the service reads (timezone, digest_time, quiet_hours:
// core/text/person-time.ts; workbench_role: workbench-roles.ts). inbox_shortcuts and illustrative are left out: the
// specification names them among the stored settings but gives them no behaviour, so the API does not offer a switch
// that changes nothing (see docs/contributors.md, Decisions, 'Two stored user settings').
import type { Prisma } from '../../generated/prisma/client'

/** Settings a row may still hold (written before this decision) that the API never serves. */
export const UNSERVED_USER_SETTINGS = ['inbox_shortcuts', 'illustrative'] as const

export function servedUserSettings(settings: Prisma.JsonValue | unknown): unknown {
  if (!settings || typeof settings !== 'object' || Array.isArray(settings)) return settings
  const out: Record<string, unknown> = { ...(settings as Record<string, unknown>) }
  for (const key of UNSERVED_USER_SETTINGS) delete out[key]
  return out
}
