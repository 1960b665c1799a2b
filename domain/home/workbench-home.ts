// Owns the role home (GET /programs/{program_id}/workbench, WorkbenchOut) as far as the workbench subgraph holds it:
// the worn role or the neutral fallback (audited once), the four regions in fixed order, the person's open questions,
// the evidence board, the status lines in the role's terms, the memory summary and who set the role. Decisions and
// the twin come from the twins subgraph and sources from the connectors subgraph, through the Workbench entity
// (schema/workbench-home.ts): this module never reads their tables.
import type { ProgramRecord } from '../../generated/prisma/client'
import type { DomainContext } from '../../core/jobs'
import { WORKBENCH } from '../../core/text'
import { can } from '../../core/identity'
import type { PermissionKey } from '../../core/permissions'
import { FALLBACK_PERSONA_ORDER, workbenchRole, workbenchRolesAvailableTo, type WornRole } from '../../core/identity'
import type { Program } from '../../generated/prisma/client'
import { RECORD_TYPES, RECORD_TYPE_KEYS, homeRecordRows, type HomeRecordRows, type RecordTypeKey } from '../records'
import { homePersonOf, readProgram, readableProgram, recordDefaultAppliedOnce, type SetBy } from '../programs'
import { memorySummary } from '../memory'
import type { MemoryRecordOut } from '../memory'

type Ctx = Pick<DomainContext, 'session' | 'tdb' | 'db' | 'actor'>

/** How many open questions and evidence board records the home shows. */
export const HOME_QUESTIONS = 20
export const HOME_BOARD = 10

export interface RecordRef { recordType: string; recordId: string; href: string }
export interface StatusLine { text: string; recordType: string; recordRef: RecordRef | null; asOf: Date | null }

export interface WorkbenchHome {
  programId: string
  programSlug: string
  userId: string
  worn: WornRole
  /** The role's name, or the persona's name under the neutral fallback (null for a viewer). */
  name: string | null
  /** The persona the home and the twin panel are for: the first held persona of the role by the fallback order. */
  personaKey: string | null
  /** 'Choose your workbench role' while nothing is set. */
  prompt: string | null
  regions: readonly string[]
  /** The record types of the role-home sections: the role's types a held persona writes, or under the fallback
   *  every type the person writes. Decisions outside them count as other decisions. */
  recordTypes: string[]
  questions: ProgramRecord[]
  pins: ProgramRecord[]
  statusLines: StatusLine[]
  setBy: SetBy | null
  rail: Rail
}

/**
 * The rail: the worn role's products first (those the person may read), the rest under 'All records'; Setup and
 * Organization under 'More' when the person may change them (Setup promoted for a role that promotes it).
 * Entries are keys: products (evidence, plans, progress, review), 'setup', 'organization'.
 */
export interface Rail { promoted: string[]; allRecords: string[]; more: string[] }

const RAIL_PRODUCTS = ['evidence', 'plans', 'progress', 'review'] as const

export function railFor(worn: WornRole, may: (key: PermissionKey) => boolean, mayOrg: (key: PermissionKey) => boolean): Rail {
  const readable = RAIL_PRODUCTS.filter((p) => RECORD_TYPE_KEYS.some((t) => t.startsWith(`${p}.`) && may(readKey(t))))
  const role = worn.workbenchRoleKey ? workbenchRole(worn.workbenchRoleKey) : undefined
  const promoted: string[] = (role?.rail ?? []).filter((p) => (readable as readonly string[]).includes(p))
  const allRecords = readable.filter((p) => !promoted.includes(p))
  const more: string[] = []
  if (may('program.settings.update' as PermissionKey)) (role?.promotes_setup ? promoted : more).push('setup')
  if (mayOrg('org.settings.update' as PermissionKey)) more.push('organization')
  return { promoted, allRecords, more }
}

const readKey = (t: RecordTypeKey) => RECORD_TYPES[t].permissions.read as PermissionKey
const manageKey = (t: RecordTypeKey) => RECORD_TYPES[t].permissions.manage as PermissionKey

export const recordHref = (slug: string, id: string) => `/p/${slug}/records/${id}`
const ref = (slug: string, r: Pick<ProgramRecord, 'id' | 'recordType'>): RecordRef => ({ recordType: r.recordType, recordId: r.id, href: recordHref(slug, r.id) })

/**
 * Role-home sections appear only for personas the person holds: a record type is a section when a persona the person
 * holds writes it in the role (record_type_personas); under the fallback, every type the person may write.
 */
export function homeRecordTypes(worn: WornRole, personas: readonly string[], may: (key: PermissionKey) => boolean): RecordTypeKey[] {
  const role = worn.workbenchRoleKey ? workbenchRole(worn.workbenchRoleKey) : undefined
  const types = role
    ? role.record_types.filter((t) => role.record_type_personas[t].some((p) => personas.includes(p)))
    : RECORD_TYPE_KEYS.filter((t) => may(manageKey(t)))
  return (types as RecordTypeKey[]).filter((t) => (RECORD_TYPE_KEYS as readonly string[]).includes(t) && may(readKey(t)))
}

function personaFor(worn: WornRole, personas: readonly string[]): string | null {
  const role = worn.workbenchRoleKey ? workbenchRole(worn.workbenchRoleKey) : undefined
  const candidates = role ? personas.filter((p) => (role.personas as readonly string[]).includes(p)) : personas
  return FALLBACK_PERSONA_ORDER.find((p) => candidates.includes(p)) ?? null
}

/** English plural of a record noun: 'hypothesis' → 'hypotheses', 'dependency' → 'dependencies'. */
function pluralNoun(noun: string): string {
  if (noun.endsWith('is')) return `${noun.slice(0, -2)}es`
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`
  if (/(s|x|ch|sh)$/.test(noun)) return `${noun}es`
  return `${noun}s`
}
export const plural = (n: number, noun: string) => {
  const words = noun === 'open_item' ? 'open item' : noun.replace(/_/g, ' ')
  return `${n} ${n === 1 ? words : pluralNoun(words)}`
}

/** One line per section: '3 questions: 2 open, 1 answered', pointing at the record most recently changed. */
function statusLines(latest: HomeRecordRows['latest'], slug: string, types: RecordTypeKey[]): StatusLine[] {
  return types.map((t) => {
    const spec = RECORD_TYPES[t]
    const last = latest.find((l) => l.record.recordType === t)
    const byStatus = spec.machine.states.map((s: string) => [s, Number(last?.counts[s] ?? 0)] as const).filter(([, n]) => n > 0)
    const total = byStatus.reduce((sum, [, n]) => sum + n, 0)
    return {
      text: total ? `${plural(total, spec.noun)}: ${byStatus.map(([s, n]) => `${n} ${s.replace(/_/g, ' ')}`).join(', ')}` : `No ${plural(0, spec.noun).slice(2)} yet`,
      recordType: t,
      recordRef: last ? ref(slug, { id: last.record.id, recordType: t }) : null,
      asOf: last?.record.updatedAt ?? null,
    }
  })
}

/**
 * GET /programs/{program_id}/workbench under program.settings.read (not found otherwise, never telling the program
 * exists). Nothing set: the neutral persona fallback, audited workbench_role.default_applied once per person and
 * program; the setting is never written and the home keeps prompting 'Choose your workbench role'.
 */
export async function workbenchHome(ctx: Ctx, programOrId: string | Program): Promise<WorkbenchHome> {
  // A program this request read already (Program.workbench) is held to the same check, not read a second time.
  const program = typeof programOrId === 'string' ? await readProgram(ctx, { id: programOrId }) : readableProgram(ctx, programOrId)
  const { session } = ctx
  const personas = session.programPersonas.get(program.id) ?? []
  const { worn, defaultApplied, setBy } = await homePersonOf(ctx, program.id, personas)
  if (worn.fallback && !defaultApplied) {
    await ctx.tdb.$transaction((tx) => recordDefaultAppliedOnce(tx, {
      organizationId: session.organizationId, programId: program.id, userId: session.userId, actor: ctx.actor, harnessKey: worn.harnessKey,
    }))
  }
  const may = (key: PermissionKey) => can(session, key, program.id)
  const types = homeRecordTypes(worn, personas, may)
  // The evidence board: the role's evidence types (questions have their own region), or its other types when it has none.
  const evidenceTypes = types.filter((t) => t.startsWith('evidence.') && t !== 'evidence.questions')
  const boardTypes = evidenceTypes.length ? evidenceTypes : types.filter((t) => t !== 'evidence.questions')
  const questions = may('evidence.questions.read')
  const records: HomeRecordRows = questions || types.length
    ? await homeRecordRows(session.organizationId, ctx.db, {
      programId: program.id, userId: session.userId, questions, questionLimit: HOME_QUESTIONS, boardTypes, boardLimit: HOME_BOARD, statusTypes: types,
    })
    : { questions: [], board: [], latest: [] }
  return {
    programId: program.id, programSlug: program.slug, userId: session.userId, worn,
    name: worn.workingAs, personaKey: personaFor(worn, personas),
    // A viewer holds no persona any role maps to: there is nothing to choose, so nothing prompts.
    prompt: worn.fallback && workbenchRolesAvailableTo(personas).length ? WORKBENCH.chooseYourWorkbenchRole : null,
    regions: WORKBENCH.homeRegions, recordTypes: types, questions: records.questions, pins: records.board,
    statusLines: statusLines(records.latest, program.slug, types), setBy,
    rail: railFor(worn, may, (key) => can(session, key, null)),
  }
}

/** WorkbenchOut.memory_summary of a home: the caller's own kept records in the program, read when asked for. */
export function homeMemorySummary(ctx: Pick<DomainContext, 'session' | 'tdb'>, home: Pick<WorkbenchHome, 'programId' | 'userId'>): Promise<MemoryRecordOut[]> {
  return memorySummary(ctx, { userId: home.userId, programId: home.programId })
}

export { ref as recordRefOf }
