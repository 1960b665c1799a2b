// Workbench roles in the workbench subgraph: WorkbenchRole (WorkbenchRoleOut) and Query.workbenchRoles (GET
// /workbench-roles), Mutation.updateMySettings (PATCH /me/settings), Mutation.assignWorkbenchRole (PUT
// /programs/{program_id}/workbench-roles/{user_id}), Me.workbenchRoles, and the role home: the Workbench entity
// (WorkbenchOut, GET /programs/{program_id}/workbench) as Query.workbench and Program.workbench. The twins subgraph
// adds decisions, otherDecisionCount and twin to the entity, the connectors subgraph adds sources.
import type { ObjectRef } from '@pothos/core'
import type { ProgramRecord, User } from '../../../generated/prisma/client'
import { WORKBENCH } from '../../../core/text'
import { NotFoundError } from '../../../core/errors'
import { SUGGESTED_FIRST_CHOICES, WORKBENCH_ROLE_VERSION, isWorkbenchRoleHeld, workbenchRole, type WorkbenchRoleKey, type WorkbenchRoleOut } from '../../../core/identity'
import { entityRef, result, type Builder } from '../../shared/builder'
import * as roles from '../../../domain/programs'
import * as home from '../../../domain/home'
import { servedUserSettings } from '../../../domain/programs'
import type { MemoryRecordOut } from '../../../domain/memory'
import type { WorkbenchRefs } from './refs'
import { meUser } from './people'

type AnyRef<T> = ObjectRef<any, T> // eslint-disable-line @typescript-eslint/no-explicit-any

export function addWorkbenchRoles(
  builder: Builder,
  { ProgramRef, UserRef }: WorkbenchRefs,
  deps: { Me: AnyRef<{ user?: User }>; MemoryRecord: AnyRef<MemoryRecordOut>; ProgramRecord: AnyRef<ProgramRecord> },
) {
  const Status = builder.enumType('WorkbenchRoleStatus', {
    description: 'designed until the R4 gate list passes, then preview (roles of release R5 stay designed until R5).',
    values: ['designed', 'preview'] as const,
  })

  const WorkbenchRole = builder.objectRef<WorkbenchRoleOut & { programPersonas?: readonly string[] | null }>('WorkbenchRole').implement({
    description: `WorkbenchRoleOut: a layer over the personas that selects a home, a rail, a toolset, skills, a prompt, a rubric and memory lenses. ${WORKBENCH.pickerSentence}. It never grants a permission.`,
    fields: (t) => ({
      key: t.exposeString('key'),
      name: t.exposeString('name'),
      personas: t.stringList({ resolve: (r) => [...r.personas] }),
      recordTypes: t.stringList({ description: 'Permission resources <product>.<resource> the role works on.', resolve: (r) => [...r.record_types] }),
      rail: t.stringList({ description: 'Products the rail promotes; the rest sit under All records.', resolve: (r) => [...r.rail] }),
      harnessKey: t.string({ nullable: true, description: 'The harness at R4: the role\'s own prompt, a neutral persona harness, or null for "neutral of the persona held".', resolve: (r) => r.harness_key }),
      status: t.field({ type: Status, resolve: (r) => r.status }),
      release: t.string({ description: 'The release the role is designed for (R4, or R5 for the four roles the catalogue marks R5: pickable now, designed until R5).', resolve: (r) => r.release }),
      labelMapKey: t.string({ resolve: (r) => r.label_map_key }),
      version: t.int({ description: `WORKBENCH_ROLE_VERSION (${WORKBENCH_ROLE_VERSION}).`, resolve: (r) => r.version }),
      promotesSetup: t.boolean({ description: "The program manager promotes Setup on the rail; for everyone else Setup and Organization stay under 'More' by permission.", resolve: (r) => workbenchRole(r.key)!.promotes_setup }),
      decides: t.string({ description: 'Decision scope: what a person wearing the role decides.', resolve: (r) => workbenchRole(r.key)!.decides }),
      suggestedFirst: t.boolean({
        description: 'One of the suggested first choices the picker shows first (qa_reviewer, program_manager, portfolio_head, cmc_process_scientist): copy, never a stored value.',
        resolve: (r) => SUGGESTED_FIRST_CHOICES.includes(r.key as WorkbenchRoleKey),
      }),
      pickable: t.boolean({
        nullable: true,
        description: 'With workbenchRoles(programId): whether the role\'s personas intersect the personas the caller holds there (else workbench_role_not_held).',
        resolve: (r) => (r.programPersonas ? isWorkbenchRoleHeld(r.key, r.programPersonas) : null),
      }),
    }),
  })

  builder.queryFields((t) => ({
    workbenchRoles: t.field({
      type: [WorkbenchRole],
      description: 'The fifteen workbench roles (GET /workbench-roles). With programId, each says whether the caller may pick it there.',
      args: { programId: t.arg.id({ required: false }) },
      resolve: (_r, a, ctx) => {
        const held = a.programId ? ctx.session.programPersonas.get(String(a.programId)) ?? [] : null
        return roles.listWorkbenchRoles().map((r) => ({ ...r, programPersonas: held }))
      },
    }),
  }))

  const Setting = builder.objectRef<{ programId: string; workbenchRoleKey: string }>('WorkbenchRoleSetting').implement({
    description: 'One entry of users.settings.workbench_role: the key stored for a program.',
    fields: (t) => ({
      program: t.field({ type: ProgramRef, resolve: async (s, _a, ctx) => (await ctx.loaders.program.load(s.programId))! }),
      programId: t.exposeID('programId'),
      workbenchRoleKey: t.exposeString('workbenchRoleKey'),
      workbenchRole: t.field({ type: WorkbenchRole, nullable: true, resolve: (s) => roles.listWorkbenchRoles().find((r) => r.key === s.workbenchRoleKey) ?? null }),
    }),
  })

  builder.objectField(deps.Me, 'workbenchRoles', (t) => t.field({
    type: [Setting],
    description: 'MeOut.user.settings.workbench_role, typed: the workbench role stored per program the caller belongs to.',
    resolve: async (m, _a, ctx) => roles.myWorkbenchRoleSettings(ctx, (await meUser(m, ctx)).settings),
  }))

  const SettingInput = builder.inputType('WorkbenchRoleSettingInput', {
    fields: (t) => ({
      programId: t.id({ required: true }),
      workbenchRoleKey: t.string({ required: false, description: 'null removes the program\'s entry (the home returns to the persona home).' }),
    }),
  })
  const SettingsUpdate = builder.inputType('UserSettingsUpdate', {
    fields: (t) => ({
      workbenchRoles: t.field({ type: [SettingInput], required: false, description: 'UserSettingsUpdate.workbench_role: program id to a role key or null, as UserSettings.workbenchRoles reads them.' }),
    }),
  })
  const MySettings = builder.objectRef<{ settings: unknown; userId: string }>('UserSettings').implement({
    description: 'UserSettings after a change.',
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: (s) => entityRef(s.userId) as never }),
      settings: t.field({ type: 'JSON', description: 'quiet_hours, digest_time, timezone, workbench_role (program id to key)', resolve: (s) => servedUserSettings(s.settings) }),
      workbenchRoles: t.field({ type: [Setting], resolve: (s, _a, ctx) => roles.myWorkbenchRoleSettings(ctx, s.settings) }),
    }),
  })

  const AssignInput = builder.inputType('WorkbenchRoleAssign', {
    fields: (t) => ({ workbenchRoleKey: t.string({ required: true }), reason: t.string({ required: false }) }),
  })
  const Assignment = builder.objectRef<roles.WorkbenchRoleAssignmentOut>('WorkbenchRoleAssignment').implement({
    description: 'WorkbenchRoleAssignmentOut.',
    fields: (t) => ({
      userId: t.exposeID('userId'),
      programId: t.exposeID('programId'),
      user: t.field({ type: UserRef, resolve: async (a, _x, ctx) => (await ctx.loaders.user.load(a.userId))! }),
      program: t.field({ type: ProgramRef, resolve: async (a, _x, ctx) => (await ctx.loaders.program.load(a.programId))! }),
      workbenchRoleKey: t.exposeString('workbenchRoleKey'),
      setByUserId: t.exposeID('setByUserId'),
      setAt: t.field({ type: 'DateTime', resolve: (a) => a.setAt }),
      reason: t.string({ nullable: true, resolve: (a) => a.reason }),
    }),
  })

  builder.mutationFields((t) => ({
    updateMySettings: t.field({
      type: MySettings,
      errors: result(roles.updateMySettings, 'settings'),
      description: 'PATCH /me/settings: the workbench_role map (a key the caller\'s personas there hold, or null to remove the entry); audited workbench_role.set.',
      args: { input: t.arg({ type: SettingsUpdate, required: true }) },
      resolve: async (_r, { input }, ctx) => {
        const user = await roles.updateMySettings(ctx, { workbenchRoles: input.workbenchRoles ?? undefined })
        return { settings: user.settings, userId: user.id }
      },
    }),
    assignWorkbenchRole: t.field({
      type: Assignment,
      errors: result(roles.assignWorkbenchRole, 'assignment'),
      description: "PUT /programs/{program_id}/workbench-roles/{user_id} under program.members.manage; audited workbench_role.assign. The member's home reads 'Set by <Name> on <date>. Change'.",
      args: { programId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), input: t.arg({ type: AssignInput, required: true }) },
      resolve: (_r, a, ctx) => roles.assignWorkbenchRole(ctx, {
        programId: a.programId, userId: a.userId, workbenchRoleKey: a.input.workbenchRoleKey, reason: a.input.reason ?? undefined,
      }),
    }),
  }))

  // ---- the role home --------------------------------------------------------------------------------------------

  const RecordRefType = builder.objectRef<home.RecordRef>('RecordRef').implement({
    description: 'RecordRef: record_type, record_id, href.',
    fields: (t) => ({
      recordType: t.exposeString('recordType'),
      recordId: t.exposeID('recordId'),
      href: t.exposeString('href'),
      record: t.field({ type: deps.ProgramRecord, nullable: true, resolve: (r, _a, ctx) => ctx.tdb.programRecord.findFirst({ where: { id: r.recordId } }) }),
    }),
  })
  const StatusLine = builder.objectRef<home.StatusLine>('WorkbenchStatusLine').implement({
    description: "A line of 'My program in this role's terms': text, the record it points at and when that record last changed.",
    fields: (t) => ({
      text: t.exposeString('text'),
      recordType: t.exposeString('recordType'),
      recordRef: t.field({ type: RecordRefType, nullable: true, resolve: (l) => l.recordRef }),
      asOf: t.field({ type: 'DateTime', nullable: true, resolve: (l) => l.asOf }),
    }),
  })
  const SetByType = builder.objectRef<roles.SetBy>('WorkbenchRoleSetBy').implement({
    description: "Who set the caller's workbench role, when a lead did: 'Set by <Name> on <date>. Change'.",
    fields: (t) => ({
      user: t.field({ type: UserRef, resolve: async (s, _a, ctx) => (await ctx.loaders.user.load(s.userId))! }),
      name: t.exposeString('name'),
      at: t.field({ type: 'DateTime', resolve: (s) => s.at }),
      line: t.exposeString('line'),
    }),
  })

  const RailType = builder.objectRef<home.Rail>('WorkbenchRail').implement({
    description: "The rail: the role's products first (promoted), the rest under 'All records', Setup and Organization under 'More' by permission (Setup promoted for the program manager). Entries: evidence, plans, progress, review, setup, organization.",
    fields: (t) => ({
      promoted: t.stringList({ resolve: (r) => r.promoted }),
      allRecords: t.stringList({ resolve: (r) => r.allRecords }),
      more: t.stringList({ resolve: (r) => r.more }),
    }),
  })
  const Workbench = builder.objectRef<home.WorkbenchHome>('Workbench').implement({
    description: "WorkbenchOut: the caller's role home in a program. Four regions in fixed order; decisions, otherDecisionCount and twin come from the twins subgraph, sources from the connectors subgraph.",
    fields: (t) => ({
      programId: t.exposeID('programId'),
      program: t.field({ type: ProgramRef, resolve: async (h, _a, ctx) => (await ctx.loaders.program.load(h.programId))! }),
      workbenchRoleKey: t.string({ nullable: true, description: 'The workbench role worn; null under the neutral persona fallback.', resolve: (h) => h.worn.workbenchRoleKey }),
      workbenchRole: t.field({ type: WorkbenchRole, nullable: true, resolve: (h) => roles.listWorkbenchRoles().find((r) => r.key === h.worn.workbenchRoleKey) ?? null }),
      name: t.string({ nullable: true, description: "The workbench role's name, or the persona's name under the neutral fallback.", resolve: (h) => h.name }),
      harnessKey: t.string({ nullable: true, description: 'The persona harness runs start under (null: viewer, no harness).', resolve: (h) => h.worn.harnessKey }),
      fallback: t.boolean({ description: 'True when nothing is set and the neutral persona harness applies.', resolve: (h) => h.worn.fallback }),
      personaKey: t.string({ nullable: true, description: "The persona the home and its twin panel are for.", resolve: (h) => h.personaKey }),
      prompt: t.string({ nullable: true, description: "'Choose your workbench role' while nothing is set.", resolve: (h) => h.prompt }),
      pickerSentence: t.string({ resolve: () => WORKBENCH.pickerSentence }),
      regions: t.stringList({ description: 'The four regions in fixed order.', resolve: (h) => [...h.regions] }),
      recordTypes: t.stringList({ description: 'The record types of the role-home sections (only for personas the caller holds).', resolve: (h) => h.recordTypes }),
      questions: t.field({ type: [deps.ProgramRecord], description: "'My open questions': open questions the caller owns or asked.", resolve: (h) => h.questions }),
      pins: t.field({ type: [deps.ProgramRecord], description: "'My evidence board': the latest records of the role's evidence types.", resolve: (h) => h.pins }),
      statusLines: t.field({ type: [StatusLine], description: "'My program in this role's terms'.", resolve: (h) => h.statusLines }),
      memorySummary: t.field({ type: [deps.MemoryRecord], description: 'At most 3 of the caller\'s kept tier-1 records here.', resolve: (h, _a, ctx) => home.homeMemorySummary(ctx, h) }),
      setBy: t.field({ type: SetByType, nullable: true, resolve: (h) => h.setBy }),
      rail: t.field({ type: RailType, resolve: (h) => h.rail }),
    }),
  })
  builder.asEntity(Workbench, {
    key: builder.selection<{ programId: string }>('programId'),
    resolveReference: (r, ctx) => home.workbenchHome(ctx, r.programId),
  })

  builder.queryFields((t) => ({
    workbench: t.field({
      type: Workbench,
      nullable: true,
      description: "The caller's role home in a program (GET /programs/{program_id}/workbench, program.settings.read); null for a program the caller may not read.",
      args: { programId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => home.workbenchHome(ctx, String(a.programId)).catch((e) => {
        if (e instanceof NotFoundError) return null
        throw e
      }),
    }),
  }))
  builder.objectField(ProgramRef, 'workbench', (t) => t.field({
    type: Workbench,
    description: "The caller's role home in this program (same as Query.workbench).",
    // the program read for this parent is not read again (workbenchHome holds it to the same check)
    resolve: (p, _a, ctx) => home.workbenchHome(ctx, p),
  }))
}
