// Owns state machines as data: a state set with its named transitions, the guarded update that applies one
// (race-safe: the status check is in the UPDATE's WHERE), the invalid_transition refusal, and the rendered tables.
import type { AgentRun, Connection, Delegation, HandoffRequest, InboxItem, MemoryRecord, Prisma, RequirementSet, StageGate, ToolCall, TwinDefinition } from '../../generated/prisma/client'
import type { AnyTx, Db, TenantDb } from '../database'
import { InvalidTransition, NotFoundError } from '../errors'

/** Where a transition comes from: a row the specification shows, or a decision on a point it leaves open. */
export type Basis = 'shown' | 'designed'

export interface TransitionSpec<S extends string> {
  from: readonly S[]
  to: S
  /** What moves it: the operation, job or cause. */
  by: string
  basis: Basis
  /** The document and section (or design decision, docs/contributors.md) it comes from. */
  source: string
}

/** Rows that carry a state machine in a table today, keyed by Prisma model. */
export interface StatefulRows {
  connection: Connection; inboxItem: InboxItem; agentRun: AgentRun; toolCall: ToolCall; memoryRecord: MemoryRecord; twinDefinition: TwinDefinition
  requirementSet: RequirementSet; stageGate: StageGate; handoffRequest: HandoffRequest; delegation: Delegation
}
interface StatefulData {
  connection: Prisma.ConnectionUncheckedUpdateManyInput
  inboxItem: Prisma.InboxItemUncheckedUpdateManyInput
  agentRun: Prisma.AgentRunUncheckedUpdateManyInput
  toolCall: Prisma.ToolCallUncheckedUpdateManyInput
  memoryRecord: Prisma.MemoryRecordUncheckedUpdateManyInput
  twinDefinition: Prisma.TwinDefinitionUncheckedUpdateManyInput
  requirementSet: Prisma.RequirementSetUncheckedUpdateManyInput
  stageGate: Prisma.StageGateUncheckedUpdateManyInput
  handoffRequest: Prisma.HandoffRequestUncheckedUpdateManyInput
  delegation: Prisma.DelegationUncheckedUpdateManyInput
}
export type StatefulModel = keyof StatefulRows

/** How the state is stored: a status column of a Prisma model, or not yet (the table belongs to a later release). */
export type Storage<M extends StatefulModel | null> = M extends StatefulModel
  ? { model: M; column: string; dbType: string }
  : { model: null; column: string; note: string }

export interface MachineSpec<S extends string, T extends string, M extends StatefulModel | null> {
  /** table.column as the documents name it. */
  name: string
  /** What one row is called in messages ('connection', 'inbox item'). */
  noun: string
  states: readonly S[]
  /** States a row may be created in. */
  initial: readonly S[]
  transitions: Record<T, TransitionSpec<S>>
  /** Where the state set comes from. */
  source: string
  /** The specification's own words listing the state set, verbatim (checked against ../shared/spec when present). */
  quote?: { doc: '000' | '001' | '002'; text: string }
  storage: Storage<M>
}

export type Machine<S extends string = string, T extends string = string, M extends StatefulModel | null = StatefulModel | null> =
  MachineSpec<S, T, M> & { terminal: readonly S[] }

/** Declares a machine; refuses (at load) a transition that names an unknown state. */
export function defineMachine<const S extends string, const T extends string, M extends StatefulModel | null>(spec: MachineSpec<S, T, M>): Machine<S, T, M> {
  const known = new Set<string>(spec.states)
  for (const s of spec.initial) if (!known.has(s)) throw new Error(`${spec.name}: unknown initial state ${s}`)
  for (const [name, t] of Object.entries<TransitionSpec<S>>(spec.transitions)) {
    for (const s of [...t.from, t.to]) if (!known.has(s)) throw new Error(`${spec.name}.${name}: unknown state ${s}`)
    if (t.from.length === 0) throw new Error(`${spec.name}.${name}: a transition needs at least one from-state`)
  }
  const leaves = Object.values<TransitionSpec<S>>(spec.transitions).flatMap((t) => t.from)
  return { ...spec, terminal: spec.states.filter((s) => !leaves.includes(s)) }
}

export const transitionsOf = <S extends string, T extends string>(m: Machine<S, T, StatefulModel | null>) =>
  Object.entries(m.transitions) as [T, TransitionSpec<S>][]

/** The refusal for a transition the row's current state forbids (409, with from and to). */
export function invalidTransition(m: Machine, name: string, from: string, to: string): InvalidTransition {
  const allowed = m.transitions[name]?.from ?? []
  return new InvalidTransition(from, to,
    `This ${m.noun} is ${from}; ${name.replace(/_/g, ' ')} applies only when it is ${allowed.join(' or ')}.`)
}

type AnyDb = Db | TenantDb | AnyTx
interface Delegate {
  updateManyAndReturn(args: { where: object; data: object }): Promise<unknown[]>
  findFirst(args: { where: object; select: { status: true } }): Promise<{ status: string } | null>
}
const delegate = (db: AnyDb, model: StatefulModel) => (db as unknown as Record<StatefulModel, Delegate>)[model]

/**
 * Applies transition `name` to one row as a guarded update:
 *   UPDATE … SET status = to WHERE id = $id AND organization_id = $org AND status = ANY(from)
 * Two concurrent callers cannot both win: the loser's UPDATE re-reads the committed row and matches nothing.
 * No row matched: not_found when the row does not exist in the organisation, invalid_transition (from, to) when
 * its state forbids the move. `data` is written in the same statement (timestamps, erased secrets, results).
 */
export async function transition<S extends string, T extends string, M extends StatefulModel>(
  db: AnyDb, m: Machine<S, T, M>, name: T, row: { id: string; organizationId: string },
  data: Omit<StatefulData[M], 'status' | 'id' | 'organizationId'> = {} as never,
): Promise<StatefulRows[M]> {
  const t = m.transitions[name]
  const d = delegate(db, m.storage.model)
  for (let attempt = 0; ; attempt++) {
    const [updated] = await d.updateManyAndReturn({
      where: { id: row.id, organizationId: row.organizationId, status: { in: [...t.from] } },
      data: { ...data, status: t.to },
    })
    if (updated) return updated as StatefulRows[M]
    const current = await d.findFirst({ where: { id: row.id, organizationId: row.organizationId }, select: { status: true } })
    if (!current) throw new NotFoundError(m.noun.charAt(0).toUpperCase() + m.noun.slice(1))
    // Moved back into a from-state between the two statements (only possible through a cycle): try again.
    if (!(t.from as readonly string[]).includes(current.status) || attempt >= 2) throw invalidTransition(m, name, current.status, t.to)
  }
}

/**
 * Applies transition `name` to every row matching `where` that is in one of its from-states (sweeps run by
 * jobs across organisations); rows in other states are left alone, never refused. Returns the moved rows.
 */
export async function transitionAll<S extends string, T extends string, M extends StatefulModel>(
  db: AnyDb, m: Machine<S, T, M>, name: T, where: object,
  data: Omit<StatefulData[M], 'status' | 'id' | 'organizationId'> = {} as never,
): Promise<StatefulRows[M][]> {
  const t = m.transitions[name]
  // AND, not spread: a caller's own status filter (cancel only the `queued` runs) narrows the from-states; spreading
  // would replace it, and a pause would cancel the runs in flight too.
  const rows = await delegate(db, m.storage.model).updateManyAndReturn({
    where: { AND: [where, { status: { in: [...t.from] } }] },
    data: { ...data, status: t.to },
  })
  return rows as StatefulRows[M][]
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering: the transition tables of docs/contributors.md are generated from the declarations (scripts/state-tables.ts).

const cell = (s: string) => s.replace(/\|/g, '\\|')

export function renderMachine(m: Machine): string {
  const where = m.storage.model ? `Stored as ${m.storage.dbType}, applied` : `Declared only: ${(m.storage as { note: string }).note}`
  const lines = [
    `#### ${m.name}`,
    '',
    `${where}. States: ${m.states.map((s) => `\`${s}\``).join(', ')}; created in ${m.initial.map((s) => `\`${s}\``).join(' or ')}` +
      (m.terminal.length ? `; final: ${m.terminal.map((s) => `\`${s}\``).join(', ')}.` : '.') + ` Source: ${m.source}.`,
    '',
  ]
  const rows = transitionsOf(m)
  if (rows.length === 0) return [...lines, 'No transitions: the value is fixed when the row is written.', ''].join('\n')
  lines.push('| transition | from | to | what moves it | basis |', '|---|---|---|---|---|')
  for (const [name, t] of rows) {
    lines.push(`| \`${name}\` | ${t.from.map((s) => `\`${s}\``).join(', ')} | \`${t.to}\` | ${cell(t.by)} | ${t.basis}: ${cell(t.source)} |`)
  }
  return [...lines, ''].join('\n')
}

export const STATE_TABLES_START = '<!-- state-tables:start -->'
export const STATE_TABLES_END = '<!-- state-tables:end -->'

/** The generated section of docs/contributors.md (between the markers), for every declared machine. */
export function renderStateTables(machines: readonly Machine[]): string {
  return [
    STATE_TABLES_START,
    '<!-- Generated by `npm run states` from core/states/; edit the declarations, not this section. -->',
    '',
    ...machines.map(renderMachine),
    STATE_TABLES_END,
  ].join('\n')
}

/** `doc` with its marked section replaced by `section`; throws when the markers are missing. */
export function replaceStateTables(doc: string, section: string): string {
  const start = doc.indexOf(STATE_TABLES_START)
  const end = doc.indexOf(STATE_TABLES_END)
  if (start < 0 || end < start) throw new Error(`docs/contributors.md has no ${STATE_TABLES_START} … ${STATE_TABLES_END} section`)
  return doc.slice(0, start) + section + doc.slice(end + STATE_TABLES_END.length)
}
