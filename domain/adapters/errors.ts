// Owns the vendor errors every provider's client throws (rate limit, unavailable, auth, not found, rejected, invalid
// shape, attachment too large): typed, catalogued (core/errors/catalogue.ts) and exposed as schema error objects.
//
// Errors carry status codes and vendor messages only: never tokens, secrets, request options or client errors as cause.
import { DomainError, type ErrorClass, type ErrorCode, type ErrorFactory } from '../../core/errors'
import type { AdapterOperation } from './operations'
import { EgressRefused } from '../../core/http'

/** Base of every failure that comes from (or on the way to) a vendor. `source` names the provider or platform source. */
export abstract class VendorError extends DomainError {
  abstract readonly source: string
}

export function isVendorError(e: unknown): e is VendorError {
  return e instanceof VendorError
}

/**
 * An adapter operation the provider does not implement (connector specification: NotSupported). Internal to the
 * connector layer: a write that reaches one answers the catalogue's not_supported (NotSupportedError).
 */
export class NotSupported extends Error {
  override readonly name = 'NotSupported'
  readonly code = 'NotSupported'
  constructor(
    readonly providerId: string,
    readonly operation: AdapterOperation,
  ) {
    super(`${providerId} does not support ${operation}`)
  }
}

// The classes below are a declarative catalogue, one per code, written out like core/errors/errors.ts's data classes: each
// keeps its own positional constructor, typed data fields and message, which a generic factory would hide behind
// mapped types. Their `name` comes from the catalogue's type (DomainError sets it).

/** The vendor (or a budget) refused for now. `message` is the run-rail phrase. */
export class RateLimited extends VendorError {
  static readonly code = 'RateLimited' as const
  constructor(
    readonly source: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RateLimited', `budget exhausted for source ${source}, retry after ${retryAfterSeconds} s`)
  }
}

export class VendorUnavailable extends VendorError {
  static readonly code = 'VendorUnavailable' as const
  constructor(
    readonly source: string,
    readonly reason: 'server_error' | 'timeout' | 'network',
    readonly status?: number,
  ) {
    super('VendorUnavailable', `${source} unavailable (${reason}${status ? ` ${status}` : ''})`)
  }
}

export class VendorAuthFailed extends VendorError {
  static readonly code = 'VendorAuthFailed' as const
  constructor(
    readonly source: string,
    readonly status: number,
  ) {
    super('VendorAuthFailed', `${source} rejected the connection's client credentials (${status})`)
  }
}

export class VendorNotFound extends VendorError {
  static readonly code = 'VendorNotFound' as const
  constructor(
    readonly source: string,
    readonly resource: string,
  ) {
    super('VendorNotFound', `${source}: ${resource} not found`)
  }
}

/** Any other 4xx: the request was wrong for the vendor (e.g. canvas data too large). */
export class VendorRequestRejected extends VendorError {
  static readonly code = 'VendorRequestRejected' as const
  constructor(
    readonly source: string,
    readonly status: number,
    readonly vendorMessage: string,
  ) {
    super('VendorRequestRejected', `${source} rejected the request (${status}): ${vendorMessage}`)
  }
}

export class VendorResponseInvalid extends VendorError {
  static readonly code = 'VendorResponseInvalid' as const
  constructor(
    readonly source: string,
    readonly detail: string,
  ) {
    super('VendorResponseInvalid', `${source} answered an unexpected shape: ${detail}`)
  }
}

export class AttachmentTooLarge extends VendorError {
  static readonly code = 'AttachmentTooLarge' as const
  constructor(
    readonly fileId: string,
    readonly size: number,
    readonly limit: number,
    readonly source: string = 'unknown',
  ) {
    super('AttachmentTooLarge', `attachment ${fileId} is ${size} bytes; only attachments under ${limit} bytes are fetched`)
  }
}

/** A twin run's turn used its literature queries (programs.settings.evidence_query_budget, default three). */
export class EvidenceQueryBudgetExhausted extends DomainError {
  static readonly code = 'evidence_query_budget_exhausted' as const
  constructor(
    readonly budget: number,
    readonly used: number,
  ) {
    super('evidence_query_budget_exhausted', `This turn has used its ${budget} literature queries (programs.settings.evidence_query_budget).`)
  }
}

export const VENDOR_ERROR_CLASSES: readonly ErrorClass[] = [
  RateLimited, VendorUnavailable, VendorAuthFailed, VendorNotFound, VendorRequestRejected, VendorResponseInvalid, AttachmentTooLarge,
  EgressRefused, // the egress policy refused the vendor address (core/http/egress.ts)
  EvidenceQueryBudgetExhausted, // the literature connector's per-turn query budget
]

// `new DomainError('RateLimited', ...)` from code that only knows the code still becomes the typed class, in every process
// that installs the domain (installDomain, subgraphs/install.ts, hands these to core/errors/errors.ts).
const str = (v: unknown, fallback = '') => (v == null ? fallback : String(v))
const num = (v: unknown) => Number(v ?? 0)
export const VENDOR_ERROR_FACTORIES: Readonly<Partial<Record<ErrorCode, ErrorFactory>>> = {
  RateLimited: (_m, e) => new RateLimited(str(e.details?.source), num(e.details?.retryAfterSeconds)),
  VendorUnavailable: (_m, e) => new VendorUnavailable(str(e.details?.source), (e.details?.reason as 'network') ?? 'network', e.details?.status as number | undefined),
  VendorAuthFailed: (_m, e) => new VendorAuthFailed(str(e.details?.source), num(e.details?.status)),
  VendorNotFound: (_m, e) => new VendorNotFound(str(e.details?.source), str(e.details?.resource)),
  VendorRequestRejected: (m, e) => new VendorRequestRejected(str(e.details?.source), num(e.details?.status), str(e.details?.vendorMessage, m)),
  VendorResponseInvalid: (m, e) => new VendorResponseInvalid(str(e.details?.source), str(e.details?.detail, m)),
  AttachmentTooLarge: (_m, e) => new AttachmentTooLarge(str(e.details?.fileId), num(e.details?.size), num(e.details?.limit), str(e.details?.source, 'unknown')),
  evidence_query_budget_exhausted: (_m, e) => new EvidenceQueryBudgetExhausted(num(e.details?.budget), num(e.details?.used)),
}
