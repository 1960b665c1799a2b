// Owns the one write path: a domain write declares its permission, program, input schema and audit actions; the
// helper parses (every issue with its field), checks the permission under the live role assignments, runs in the
// tenant transaction (or joins the caller's), records typed audit rows with the context's actor, and commits
// publishes and job enqueues in that same transaction. Also owns the DomainContext jobs and twins build for a person.
import type { z } from 'zod'
import type { AuditEvent } from '../../generated/prisma/client'
import { chainAtEnd, recordAudit, type Actor, type AuditAction, type AuditInput } from '../audit'
import { forOrganization, TenancyViolation, type Db, type TenantDb, type TenantTx } from '../database'
import { parseInput, InvalidInput, NotFoundError, type ErrorClass } from '../errors'
import type { PermissionKey } from '../permissions'
import { publish, type Channel, type Channels } from '../database'
import { assertCan, can, loadSession, type Session } from '../identity'
import { enqueue, type EnqueueOptions, type TaskName, type TaskPayload } from './jobs'

/** Who acts in a domain write: a person, or a twin acting under a person. */
export type PersonActor = Extract<Actor, { type: 'user' | 'twin' }>

/** What every domain function receives, from a request, a job or a twin: never the GraphQL context. */
export interface DomainContext {
  session: Session
  db: Db
  /** The organisation-scoped client: the only way domain code reads and writes tenant rows. */
  tdb: TenantDb
  actor: PersonActor
  /**
   * Set when a person calls through the gateway: when they authenticated at the identity provider (their token's
   * auth_time; null when it carried none). An electronic signature needs it recent (workbench domain/signatures.ts).
   * Unset for jobs and seeds, which act without a sign-in of their own.
   */
  authentication?: Authentication
}

export interface Authentication {
  authTime: Date | null
}

export function domainContext(db: Db, session: Session, opts: { twinId?: string; authentication?: Authentication } = {}): DomainContext {
  const actor: PersonActor = opts.twinId ? { type: 'twin', userId: session.userId, twinId: opts.twinId } : { type: 'user', userId: session.userId }
  return { session, db, tdb: forOrganization(db, session.organizationId), actor, ...(opts.authentication ? { authentication: opts.authentication } : {}) }
}

/**
 * The context of a person for a job or a twin: their live session (personas as assigned now), their organisation's
 * client, and the actor (the twin when `twinId` is given, acting under the person).
 */
export async function contextForUser(db: Db, userId: string, organizationId: string, opts: { twinId?: string } = {}): Promise<DomainContext> {
  const session = await loadSession(db, userId)
  if (session.organizationId !== organizationId) throw new TenancyViolation('that person belongs to another organisation')
  return domainContext(db, session, opts)
}

/** The handle a write's `run` gets: its transaction, and audit, publish and enqueue bound to it. */
export interface Write<A extends AuditAction> {
  readonly ctx: DomainContext
  readonly tx: TenantTx
  /** The program the permission was checked in (null for organisation keys). */
  readonly programId: string | null
  /** One audit row with the context's actor, in this write's organisation and program. */
  audit(action: A, target: { type: string; id: string }, details?: Record<string, unknown>,
    extra?: Pick<AuditInput, 'programId' | 'batchId' | 'triggerId' | 'delegatedFromUserId' | 'signatureId' | 'subjects'>): Promise<AuditEvent>
  /** Announced when the transaction commits, never before and never if it rolls back. */
  publish<C extends Channel>(channel: C, payload: Channels[C]): Promise<void>
  /** The job exists exactly when this write commits. */
  enqueue<T extends TaskName>(task: T, payload: TaskPayload<T>, opts?: EnqueueOptions): Promise<void>
  /** Runs once the outermost transaction committed (cache invalidation, vendor clean-up). */
  afterCommit(f: () => unknown): void
}

export interface CommandSpec<S extends z.ZodType, T, P, A extends AuditAction, R> {
  /**
   * The permission the caller must hold, in `program` (organisation keys: program null); may depend on the target.
   * `'self'`: any authenticated session (the documents' self routes); its `load` must find only the caller's own rows.
   */
  permission: PermissionKey | 'self' | ((input: z.output<S>, target: T) => PermissionKey | 'self')
  input: S
  /** Loads what the write acts on (throw NotFound when absent); runs before the permission check. */
  load?: (q: TenantTx, input: z.output<S>, ctx: DomainContext) => Promise<T>
  /** The program the permission is checked in. */
  program: (input: z.output<S>, target: T) => string | null
  /** Work outside the transaction, after the permission check (vendor calls): its result goes to `run`. */
  prepare?: (ctx: DomainContext, input: z.output<S>, target: T) => Promise<P>
  /** The audit actions this write may record: `w.audit` accepts only these. */
  audit: readonly A[]
  /** The refusals this write can return besides InvalidInput (and NotFound when it loads): its result union. */
  errors?: readonly ErrorClass[]
  run: (w: Write<A>, input: z.output<S>, target: T, prepared: P) => Promise<R>
}

/** What a caller hands a write: the input's keys (a misspelt key does not compile), values checked by the schema. */
export type RawInput<S extends z.ZodType> = { [K in keyof z.input<S>]?: unknown }

export interface Command<S extends z.ZodType, R, T = any> {
  (ctx: DomainContext, input: RawInput<S>, opts?: { within?: Write<AuditAction> }): Promise<R>
  /** Every refusal the write returns as a typed object: what its mutation's result union lists. */
  readonly errors: readonly ErrorClass[]
  /**
   * Whether the session passes this write's permission check on `target` (what `load` returns): the very check the
   * write makes before it runs, so a client's `viewerCan…` field and the mutation never disagree. It does not try the
   * write (a transition may still be refused by the row's state).
   */
  permits(session: Session, input: Partial<z.output<S>>, target: T): boolean
}

/** Declares a domain write; see the module comment. Call the result with a context and the raw input. */
export function command<S extends z.ZodType, A extends AuditAction, R, T = undefined, P = undefined>(
  spec: CommandSpec<S, T, P, A, R>,
): Command<S, R, T> {
  const errors = [...new Set<ErrorClass>([InvalidInput, ...(spec.load ? [NotFoundError] : []), ...(spec.errors ?? [])])]
  /** The key and program this write checks: one function for the write itself and for `permits`. */
  const required = (input: z.output<S>, target: T) => ({
    permission: typeof spec.permission === 'function' ? spec.permission(input, target) : spec.permission,
    programId: spec.program(input, target),
  })
  const run = async (ctx: DomainContext, raw: RawInput<S>, opts: { within?: Write<AuditAction> } = {}): Promise<R> => {
    const input = parseInput(spec.input, raw) as z.output<S>
    const q = opts.within?.tx ?? ctx.tdb
    const target = (spec.load ? await spec.load(q, input, ctx) : undefined) as T
    const { permission, programId } = required(input, target)
    if (permission !== 'self') assertCan(ctx.session, permission, programId)
    const prepared = (spec.prepare ? await spec.prepare(ctx, input, target) : undefined) as P
    if (opts.within) return spec.run(bind(ctx, opts.within.tx, programId, opts.within.afterCommit), input, target, prepared)
    const after: (() => unknown)[] = []
    const result = await ctx.tdb.$transaction((tx) => chainAtEnd(tx, () => spec.run(bind(ctx, tx, programId, (f) => after.push(f)), input, target, prepared)))
    for (const f of after) await f()
    return result
  }
  const permits = (session: Session, input: Partial<z.output<S>>, target: T): boolean => {
    const { permission, programId } = required(input as z.output<S>, target)
    return permission === 'self' || can(session, permission, programId)
  }
  return Object.assign(run, { errors, permits })
}

/** The same write called as (ctx, id, rest): for writes on one row named by its id. */
export function onId<S extends z.ZodType, R>(write: Command<S, R>) {
  return Object.assign(
    (ctx: DomainContext, id: string, rest: Omit<RawInput<S>, 'id'> = {} as Omit<RawInput<S>, 'id'>) => write(ctx, { ...rest, id } as RawInput<S>),
    { errors: write.errors },
  )
}

function bind<A extends AuditAction>(ctx: DomainContext, tx: TenantTx, programId: string | null, afterCommit: (f: () => unknown) => void): Write<A> {
  return {
    ctx, tx, programId, afterCommit,
    audit: (action, target, details, extra = {}) => recordAudit(tx, {
      organizationId: ctx.session.organizationId, programId, action, actor: ctx.actor, target, details, ...extra,
    }),
    publish: (channel, payload) => publish(tx, channel, payload),
    enqueue: async (task, payload, opts) => { await enqueue(tx, task, payload, opts) },
  }
}
