// Owns the error vocabulary: one error class per catalogue code (core/errors/catalogue.ts), carrying its data; auth
// failures are top-level GraphQL errors.
import { GraphQLError } from 'graphql'
import type { z } from 'zod'
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from './catalogue'

export { ERROR_CATALOGUE, ERROR_CODES, isErrorCode, type ErrorCode } from './catalogue'

export interface ErrorExtra {
  field?: string
  /** Ignored: the catalogue decides the status. Accepted so older call sites still compile. */
  status?: number
  details?: Record<string, unknown>
}

/** Builds the typed error of a code from a message and extra: what `new DomainError(code, ...)` turns into. */
type Factory = (message: string | undefined, extra: ErrorExtra) => DomainError
const BY_CODE = new Map<ErrorCode, Factory>()

/**
 * A refusal the caller can act on. Mutations return it as the typed object of its code in their result union;
 * anywhere else (a query, a mutation that does not declare it) it reaches the caller as a GraphQL error whose
 * extensions carry its code and field, never masked as unexpected.
 *
 * `new DomainError('invalid_input', message, { field })` returns the typed class of that code (here InvalidInput),
 * so code written against the single class keeps compiling and still maps to the right schema object.
 */
export class DomainError extends Error {
  readonly code: ErrorCode
  readonly extra: ErrorExtra
  constructor(code: ErrorCode, message?: string, extra: ErrorExtra = {}) {
    super(message ?? ERROR_CATALOGUE[code].message)
    this.code = code
    this.extra = extra
    this.name = ERROR_CATALOGUE[code].type
    if (new.target === DomainError) {
      const typed = BY_CODE.get(code)
      if (typed) return typed(message, extra)
    }
  }
  get field(): string | undefined { return this.extra.field }
  /** The HTTP status of the code, from the catalogue (what the REST shim answers). */
  get httpStatus(): number { return ERROR_CATALOGUE[this.code].status }
  /**
   * graphql-js copies an original error's `extensions` onto the GraphQL error it reports: as every top-level error,
   * `code` in UPPER_SNAKE_CASE (the transport's convention), the catalogue code verbatim in `errorCode` (what the typed
   * object's `code` says), and `field` as a dotted path.
   */
  get extensions(): Record<string, unknown> {
    return { code: transportCode(this.code), errorCode: this.code, ...(this.field ? { field: fieldPath(this.field) } : {}) }
  }
}

/** A catalogue code as a top-level error's `extensions.code`: stale_proposal → STALE_PROPOSAL, RateLimited → RATE_LIMITED. */
export function transportCode(code: string): string {
  return code.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()
}

/**
 * A field path in the API's one style: dotted, list indexes as numbers (`noael[0].dose.unit` → `noael.0.dose.unit`).
 * Paths start at an argument of the operation where the schema layer knows it (subgraphs/shared/builder.ts).
 */
export function fieldPath(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '')
}

export type ErrorClass = (abstract new (...args: never[]) => DomainError) & { readonly code: ErrorCode }

/** The class of a code without data beyond code, message and field. */
function plain<C extends ErrorCode>(code: C) {
  const K = class extends DomainError {
    static readonly code: C = code
    constructor(message?: string, extra: Omit<ErrorExtra, 'details'> = {}) { super(code, message, extra) }
  }
  Object.defineProperty(K, 'name', { value: ERROR_CATALOGUE[code].type })
  BY_CODE.set(code, (m, e) => new K(m, e))
  return K
}

export interface InputIssue { field: string | null; message: string }

export class InvalidInput extends DomainError {
  static readonly code = 'invalid_input' as const
  readonly issues: InputIssue[]
  /** Every issue found, each with its field; the first one's field is the error's `field`. */
  constructor(issues: InputIssue[], message?: string) {
    super('invalid_input', message ?? issues.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; '), { field: issues[0]?.field ?? undefined })
    this.issues = issues
  }
  static of(field: string | null, message: string) { return new InvalidInput([{ field, message }]) }
}
BY_CODE.set('invalid_input', (m, e) => new InvalidInput([{ field: e.field ?? null, message: m ?? ERROR_CATALOGUE.invalid_input.message }], m))

export class NotFoundError extends DomainError {
  static readonly code = 'not_found' as const
  /** `resource` names what was looked for ('Program'); `field` the argument that pointed at it, if any. */
  constructor(readonly resource: string, extra: { field?: string; message?: string } = {}) {
    super('not_found', extra.message ?? `${resource} was not found.`, { field: extra.field })
  }
}
export { NotFoundError as NotFound }
BY_CODE.set('not_found', (m, e) => new NotFoundError(String(e.details?.resource ?? 'Resource'), { field: e.field, message: m }))

export class InvalidTransition extends DomainError {
  static readonly code = 'invalid_transition' as const
  constructor(readonly from: string | null, readonly to: string | null, message?: string, extra: { field?: string } = {}) {
    super('invalid_transition', message ?? `A change from ${from ?? 'this status'} to ${to ?? 'that status'} is not allowed.`, extra)
  }
}
BY_CODE.set('invalid_transition', (m, e) => new InvalidTransition(
  e.details?.from == null ? null : String(e.details.from), e.details?.to == null ? null : String(e.details.to), m, { field: e.field }))

export class StaleProposal extends DomainError {
  static readonly code = 'stale_proposal' as const
  constructor(readonly currentBasis: string, message?: string) { super('stale_proposal', message) }
}
BY_CODE.set('stale_proposal', (m, e) => new StaleProposal(String(e.details?.currentBasis ?? ''), m))

export class HandoffExists extends DomainError {
  static readonly code = 'handoff_exists' as const
  constructor(readonly handoffId: string, message?: string) { super('handoff_exists', message) }
}
BY_CODE.set('handoff_exists', (m, e) => new HandoffExists(String(e.details?.handoffId ?? ''), m))

/** gate_incomplete names what is missing: one line per required record not present ('<label>: <why>'). */
export class GateIncomplete extends DomainError {
  static readonly code = 'gate_incomplete' as const
  readonly missing: string[]
  constructor(message?: string, extra: { field?: string; missing?: string[] } = {}) {
    super('gate_incomplete', message, { field: extra.field })
    this.missing = extra.missing ?? []
  }
}
BY_CODE.set('gate_incomplete', (m, e) => new GateIncomplete(m, { field: e.field, missing: (e.details?.missing as string[] | undefined) ?? [] }))

// Codes whose object carries code, message and field only.
export const SopExternal = plain('sop_external')
export const NotSupportedError = plain('not_supported')
export const KindNotPromotable = plain('kind_not_promotable')
export const WorkbenchRoleNotHeld = plain('workbench_role_not_held')
export const NotImplemented = plain('not_implemented')
export const HarnessDenied = plain('harness_denied')
export const SelfHandoff = plain('self_handoff')
export const TwinPaused = plain('twin_paused')
export const TwinActiveExists = plain('twin_active_exists')
export const DutyUnavailable = plain('duty_unavailable')
export const DelegationInvalid = plain('delegation_invalid')
export const BatchItemForbidden = plain('batch_item_forbidden')
export const BoundUserOnly = plain('bound_user_only')
export const BaselineMissing = plain('baseline_missing')
export const GateStageRestricted = plain('gate_stage_restricted')
export const ReviewerRoleRequired = plain('reviewer_role_required')
export const SameSigner = plain('same_signer')
/** A signature whose signer's authentication (auth_time) is older than SIGNATURE_AUTH_MAX_AGE_SECONDS (21 CFR 11.200). */
export const FreshSignInRequired = plain('fresh_sign_in_required')
export const StageViaGate = plain('stage_via_gate')
/** unit_required, unit_unsupported, unit_mismatch: `field` names the offending input, e.g. noael[0].dose.unit. */
export const UnitRequired = plain('unit_required')
export const UnitUnsupported = plain('unit_unsupported')
export const UnitMismatch = plain('unit_mismatch')
export const SlugTaken = plain('slug_taken')
export const NotAMember = plain('not_a_member')
export const NotAssigned = plain('not_assigned')
export const LastOwner = plain('last_owner')
/** not_a_party: the caller holds the permission but is not one of the people the thing names (a hand-off's parties). */
export const NotAParty = plain('not_a_party')
export const UnknownProvider = plain('unknown_provider')
export const ConsentRequired = plain('consent_required')
export const ScopeRulesRequired = plain('scope_rules_required')
export const ConnectionExists = plain('connection_exists')
export const ConnectionDisconnected = plain('connection_disconnected')
export const ConnectionNotReady = plain('connection_not_ready')
export const CredentialsMissing = plain('credentials_missing')
export const ReasonRequired = plain('reason_required')
export const UnsupportedApiVersion = plain('unsupported_api_version')
export const LaunchNotFound = plain('launch_not_found')
export const LaunchUsed = plain('launch_used')
export const LaunchExpired = plain('launch_expired')
export const SkillFailed = plain('skill_failed')
export const SkillTimeout = plain('skill_timeout')
export const DecisionRequired = plain('decision_required')
export const InboxLinkInvalid = plain('inbox_link_invalid')
export const InboxLinkUsed = plain('inbox_link_used')
export const InboxLinkExpired = plain('inbox_link_expired')

/** memory_note_refused: what the sanitiser found (core/text/sanitiser.ts), one entry per reason in `reasons`. */
export class MemoryNoteRefused extends DomainError {
  static readonly code = 'memory_note_refused' as const
  readonly reasons: string[]
  constructor(reasons: readonly string[], extra: { field?: string } = {}) {
    super('memory_note_refused', undefined, extra)
    this.reasons = [...reasons]
  }
}
BY_CODE.set('memory_note_refused', (_m, e) => {
  const r = e.details?.reasons
  // details may carry the reasons as a list, or comma-joined as they were before the API's reasons became a list
  return new MemoryNoteRefused(Array.isArray(r) ? r.map(String) : String(r ?? '').split(',').filter(Boolean), { field: e.field })
})

/** The classes of the codes defined here; the connector layer adds the vendor errors (adapters/errors.ts). */
export const CORE_ERROR_CLASSES: readonly ErrorClass[] = [
  InvalidInput, NotFoundError, InvalidTransition, StaleProposal, HandoffExists,
  SopExternal, NotSupportedError, KindNotPromotable, WorkbenchRoleNotHeld, NotImplemented, HarnessDenied,
  SelfHandoff, TwinPaused, TwinActiveExists, DutyUnavailable, DelegationInvalid, BatchItemForbidden, BoundUserOnly,
  BaselineMissing, GateIncomplete, GateStageRestricted, ReviewerRoleRequired, SameSigner, StageViaGate,
  UnitRequired, UnitUnsupported, UnitMismatch, SlugTaken, NotAMember, NotAssigned, LastOwner, NotAParty,
  UnknownProvider, ConsentRequired, ScopeRulesRequired, ConnectionExists, ConnectionDisconnected, ConnectionNotReady,
  CredentialsMissing, ReasonRequired, UnsupportedApiVersion, LaunchNotFound, LaunchUsed, LaunchExpired,
  SkillFailed, SkillTimeout,
  MemoryNoteRefused,
  DecisionRequired, InboxLinkInvalid, InboxLinkUsed, InboxLinkExpired,
  FreshSignInRequired,
]

/** How to build the typed error of a code from its message and extra (what `new DomainError(code)` answers). */
export type ErrorFactory = Factory

/**
 * Installs the factories of classes defined elsewhere (the vendor errors, installDomain in subgraphs/install.ts), so
 * `new DomainError(code)` maps to them in every process; idempotent.
 */
export function installErrorFactories(factories: Readonly<Partial<Record<ErrorCode, ErrorFactory>>>): void {
  for (const [code, factory] of Object.entries(factories) as [ErrorCode, ErrorFactory][]) BY_CODE.set(code, factory)
}

/** The typed error of a code, for codes that arrive as data (a worker's recorded refusal). */
export function domainError(code: string, message?: string, extra: ErrorExtra = {}): DomainError {
  return new DomainError(isErrorCode(code) ? code : 'invalid_input', message, extra)
}

export function unauthenticated(message = 'Authentication required: send a valid bearer token.'): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } })
}

const TOKEN_EXPIRED_MESSAGE = 'The bearer token has expired.'
/** UNAUTHENTICATED for a token that was valid and expired: the caller's remedy is a fresh token, not a fixed one. */
export function tokenExpired(): GraphQLError {
  return unauthenticated(TOKEN_EXPIRED_MESSAGE)
}
export function isTokenExpired(e: unknown): boolean {
  return e instanceof GraphQLError && e.extensions?.code === 'UNAUTHENTICATED' && e.message === TOKEN_EXPIRED_MESSAGE
}

export function forbidden(permission: string): GraphQLError {
  return new GraphQLError(`You do not hold the permission ${permission} here.`, {
    // No HTTP status: a refused field is a partial result, never a failed request for the other fields.
    extensions: { code: 'FORBIDDEN', permission },
  })
}

export function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof GraphQLError
}

/** Validates input with a zod schema; every problem is reported with its field (InvalidInput, 422). */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input)
  if (!r.success) {
    throw new InvalidInput(r.error.issues.map((issue) => ({ field: issue.path.join('.') || null, message: issue.message })))
  }
  return r.data
}

