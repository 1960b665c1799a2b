// Owns the workbench role setting of a person (users.settings.workbench_role[program_id]): the picker's write (PATCH
// /me/settings), a lead's assignment (PUT /programs/{program_id}/workbench-roles/{user_id}), the fallback to the neutral
// persona harness when nothing is set (audited once per person and program, the setting never written), and who set
// the role ('Set by <Name> on <date>. Change'). A workbench role never grants a permission: nothing here is read by
// core/permissions, and the persona bundle held through role assignments stays the only authority.
import { z } from 'zod'
import { personText } from '../../core/text'
import type { Actor } from '../../core/audit'
import { recordAudit } from '../../core/audit'
import { command, type DomainContext } from '../../core/jobs'
import type { AnyTx, Db, TenantTx } from '../../core/database'
import { asTx, forOrganization } from '../../core/database'
import { NotFoundError, WorkbenchRoleNotHeld } from '../../core/errors'
import { IdInput } from '../../core/text'
import { setBy } from '../../core/text'
import {
  USER_SETTING_WORKBENCH_ROLE, WORKBENCH_ROLES, WORKBENCH_ROLE_KEYS, isWorkbenchRoleHeld, workbenchRole, workbenchRoleOut, wornRole,
  type WornRole,
} from '../../core/identity'
import { getProgram } from './programs'
import { homePersonRow, lockDefaultApplied, lockUserSettings, writeWorkbenchRoleEntry, type HomePersonRow } from './sql'

type Ctx = Pick<DomainContext, 'session' | 'tdb'>

/** The stored map program id -> workbench role key of a users.settings value (anything malformed reads as empty). */
export function storedWorkbenchRoles(settings: unknown): Record<string, string> {
  const map = (settings as Record<string, unknown> | null)?.[USER_SETTING_WORKBENCH_ROLE]
  if (!map || typeof map !== 'object' || Array.isArray(map)) return {}
  return Object.fromEntries(Object.entries(map as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'))
}

/** GET /workbench-roles: the fifteen roles (WorkbenchRoleOut), in catalogue order. */
export function listWorkbenchRoles() {
  return WORKBENCH_ROLES.map(workbenchRoleOut)
}

/** The personas a person holds in a program now (active membership only). */
export async function personasIn(q: TenantTx, programId: string, userId: string): Promise<string[]> {
  const rows = await q.roleAssignment.findMany({
    where: { programId, userId, user: { deactivatedAt: null }, program: { memberships: { some: { userId, endedAt: null } } } },
    select: { personaKey: true },
    orderBy: { createdAt: 'asc' },
  })
  return rows.map((r) => r.personaKey)
}

/** What a person works under in a program: their stored key (if they still hold it) or the neutral fallback. */
export async function wornRoleOf(q: TenantTx, args: { userId: string; programId: string; personas: readonly string[] }): Promise<WornRole> {
  const user = await q.user.findFirst({ where: { id: args.userId }, select: { settings: true } })
  return wornRole(args.personas, storedWorkbenchRoles(user?.settings)[args.programId])
}

/**
 * Audits workbench_role.default_applied once per person and program, the first time a run or a home view falls back to
 * the neutral persona harness. The setting is never written. A transaction-scoped advisory lock on (person, program)
 * orders concurrent first views; the partial unique index audit_events_default_applied_once backs it.
 */
export async function recordDefaultAppliedOnce(anyTx: AnyTx, args: { organizationId: string; programId: string; userId: string; actor: Actor; harnessKey: string | null }) {
  const tx = asTx(anyTx)
  const seen = () => tx.auditEvent.findFirst({
    where: { organizationId: args.organizationId, programId: args.programId, targetId: args.userId, action: 'workbench_role.default_applied' },
    select: { id: true },
  })
  if (await seen()) return false
  await lockDefaultApplied(args.organizationId, tx, args.programId, args.userId)
  if (await seen()) return false
  await recordAudit(tx, {
    organizationId: args.organizationId, programId: args.programId, action: 'workbench_role.default_applied', actor: args.actor,
    target: { type: 'user', id: args.userId }, details: { harness_key: args.harnessKey },
  })
  return true
}

/** True when the person's fallback was audited already in the program (cheap: the partial unique index answers). */
export async function defaultAppliedBefore(q: TenantTx, programId: string, userId: string) {
  return !!(await q.auditEvent.findFirst({ where: { programId, targetId: userId, action: 'workbench_role.default_applied' }, select: { id: true } }))
}

export interface SetBy { userId: string; name: string; at: Date; line: string }

const dateOf = (d: Date) => d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })

/**
 * Who set the person's current workbench role, when someone else did (a lead's assignment): the latest set or assign
 * row of the person in the program (homePersonRow reads it with its actor's name). Null when the person chose it
 * themselves, or nothing is set.
 */
export function setByOf(row: Pick<HomePersonRow, 'setAction' | 'setActorUserId' | 'setDetails' | 'setAt' | 'setByName'>, args: { userId: string; currentKey: string | null }): SetBy | null {
  if (!args.currentKey) return null
  if (row.setAction !== 'workbench_role.assign' || !row.setActorUserId || row.setActorUserId === args.userId) return null
  if ((row.setDetails as { workbench_role_key?: unknown })?.workbench_role_key !== args.currentKey) return null
  // no name: the actor is not a person of the organisation
  if (row.setByName === null || !row.setAt) return null
  return { userId: row.setActorUserId, name: row.setByName, at: row.setAt, line: setBy(row.setByName, dateOf(row.setAt)) }
}

/** What the role home knows of the person in a program: the role they wear, whether its fallback was audited, who set it. */
export interface HomePerson { worn: WornRole; defaultApplied: boolean; setBy: SetBy | null }

/**
 * The person's side of the role home, in one statement (settings, the default-applied audit, the latest set or assign
 * row and its actor's name): what wornRoleOf, defaultAppliedBefore and the set-by lookup answer one statement each.
 */
export async function homePersonOf(ctx: Pick<DomainContext, 'session' | 'db'>, programId: string, personas: readonly string[]): Promise<HomePerson> {
  const { organizationId, userId } = ctx.session
  const row = await homePersonRow(organizationId, ctx.db, programId, userId)
  // the session proved the person is in the organisation: no row means they were removed meanwhile
  if (!row) throw new Error('the person of the session is not in the organisation')
  const worn = wornRole(personas, storedWorkbenchRoles(row.settings)[programId] ?? null)
  return { worn, defaultApplied: row.defaultApplied, setBy: setByOf(row, { userId, currentKey: worn.workbenchRoleKey }) }
}

// ---- PATCH /me/settings -------------------------------------------------------------------------------------------

const RoleKey = z.string().refine((k) => (WORKBENCH_ROLE_KEYS as readonly string[]).includes(k), `use one of ${WORKBENCH_ROLE_KEYS.join(', ')}`)

const SettingsUpdate = z.object({
  /** UserSettingsUpdate.workbench_role (the API's workbenchRoles): program id -> a role key, or null to remove the program's entry. */
  workbenchRoles: z.array(z.object({ programId: IdInput, workbenchRoleKey: RoleKey.nullable() }))
    .max(100, 'at most 100 programs at once')
    .refine((e) => new Set(e.map((x) => x.programId)).size === e.length, 'a program is named twice')
    .optional(),
})

/**
 * PATCH /me/settings with the workbench_role map: a key must be among the roles whose persona tuple intersects the
 * personas the person holds in that program (else workbench_role_not_held, nothing written); null removes the entry
 * (any program). Each entry that changes is audited workbench_role.set (with new null when removed).
 */
export const updateMySettings = command({
  permission: 'self',
  input: SettingsUpdate,
  program: () => null,
  audit: ['workbench_role.set'],
  errors: [WorkbenchRoleNotHeld],
  async run(w, input) {
    const { session } = w.ctx
    const entries = input.workbenchRoles ?? []
    // Every entry is checked before anything is written: a refused key leaves every entry as it was.
    entries.forEach((e, i) => {
      if (e.workbenchRoleKey !== null && !isWorkbenchRoleHeld(e.workbenchRoleKey, session.programPersonas.get(e.programId) ?? [])) {
        throw new WorkbenchRoleNotHeld(`${workbenchRole(e.workbenchRoleKey)!.name} is outside the personas you hold in that program.`, { field: `workbenchRoles.${i}.workbenchRoleKey` })
      }
    })
    // Row lock: two PATCHes of one person apply one after the other, each auditing what it changed.
    const me = await lockUserSettings(session.organizationId, w.tx, session.userId)
    const before = storedWorkbenchRoles(me?.settings)
    for (const e of entries) {
      const previous = before[e.programId] ?? null
      if (previous === e.workbenchRoleKey) continue
      await writeWorkbenchRoleEntry(session.organizationId, w.tx, session.userId, e.programId, e.workbenchRoleKey)
      await w.audit('workbench_role.set', { type: 'user', id: session.userId }, { workbench_role_key: e.workbenchRoleKey, previous }, { programId: e.programId })
    }
    return w.tx.user.findUniqueOrThrow({ where: { id: session.userId } })
  },
})

// ---- PUT /programs/{program_id}/workbench-roles/{user_id} ---------------------------------------------------------

export interface WorkbenchRoleAssignmentOut {
  userId: string
  programId: string
  workbenchRoleKey: string
  setByUserId: string
  setAt: Date
  reason: string | null
}

/**
 * A lead (program.members.manage) sets a member's workbench role in the program: the member's setting is written and
 * audited workbench_role.assign with the lead as actor and the member as target. The key must be held by the
 * member's personas (workbench_role_not_held). Someone who is not a current member of the program is not found.
 */
export const assignWorkbenchRole = command({
  permission: 'program.members.manage',
  input: z.object({ programId: IdInput, userId: IdInput, workbenchRoleKey: RoleKey, reason: personText(500).nullish() }),
  load: (q, input, ctx) => getProgram(ctx, { id: input.programId }, q),
  program: (input) => input.programId,
  audit: ['workbench_role.assign'],
  errors: [WorkbenchRoleNotHeld],
  async run(w, input): Promise<WorkbenchRoleAssignmentOut> {
    const personas = await personasIn(w.tx, input.programId, input.userId)
    if (!personas.length) throw new NotFoundError('Program member', { field: 'userId' })
    if (!isWorkbenchRoleHeld(input.workbenchRoleKey, personas)) {
      throw new WorkbenchRoleNotHeld(`${workbenchRole(input.workbenchRoleKey)!.name} is outside the personas that person holds in this program.`, { field: 'workbenchRoleKey' })
    }
    await lockUserSettings(w.ctx.session.organizationId, w.tx, input.userId)
    await writeWorkbenchRoleEntry(w.ctx.session.organizationId, w.tx, input.userId, input.programId, input.workbenchRoleKey)
    const event = await w.audit('workbench_role.assign', { type: 'user', id: input.userId }, {
      workbench_role_key: input.workbenchRoleKey, reason: input.reason ?? null,
    })
    return {
      userId: input.userId, programId: input.programId, workbenchRoleKey: input.workbenchRoleKey,
      setByUserId: w.ctx.session.userId, setAt: event.createdAt, reason: input.reason ?? null,
    }
  },
})

/** The caller's stored key per program they belong to (MeOut), read from the loaded user row. */
export function myWorkbenchRoleSettings(ctx: Ctx, settings: unknown) {
  const stored = storedWorkbenchRoles(settings)
  return [...ctx.session.programPersonas.keys()].filter((p) => stored[p]).map((programId) => ({ programId, workbenchRoleKey: stored[programId] }))
}


/**
 * What a twin run of a person starts under in a program: their workbench role when set and held, else the neutral
 * persona fallback (audited workbench_role.default_applied once, the twin as actor; the setting is never written).
 */
export async function runWornRole(db: Db, args: { organizationId: string; programId: string; userId: string; twinId: string }): Promise<WornRole> {
  const tdb = forOrganization(db, args.organizationId)
  const personas = await personasIn(tdb, args.programId, args.userId)
  const worn = await wornRoleOf(tdb, { userId: args.userId, programId: args.programId, personas })
  if (worn.fallback && !(await defaultAppliedBefore(tdb, args.programId, args.userId))) {
    await tdb.$transaction((tx) => recordDefaultAppliedOnce(tx, {
      organizationId: args.organizationId, programId: args.programId, userId: args.userId,
      actor: { type: 'twin', userId: args.userId, twinId: args.twinId }, harnessKey: worn.harnessKey,
    }))
  }
  return worn
}
