// Owns the vendor errors every provider raises (typed, with their data), shared by the HTTP client, budgets and adapters.
//
// They extend DomainError so a resolver or the REST shim can surface them with a code and status, and the project's
// error catalogue can register them by class. Messages carry the source, status codes and the vendor's own short
// message only: never tokens, secrets, request options or a transport error as `cause`.
import { DomainError } from '../../../../core/errors'
import type { AdapterOperation } from './contract'

/** Base of every failure that comes from (or on the way to) a vendor. `source` names the provider or platform source. */
export abstract class VendorError extends DomainError {
  abstract override readonly name: string
  constructor(
    code: string,
    readonly source: string,
    message: string,
    status: number,
    details?: Record<string, unknown>,
  ) {
    super(code, message, { status, details: { source, ...details } })
  }
}

/** The vendor (or a budget) refused for now. `message` is the run-rail phrase of the specification. */
export class RateLimited extends VendorError {
  override readonly name: string = 'RateLimited'
  constructor(
    source: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RateLimited', source, `budget exhausted for source ${source}, retry after ${retryAfterSeconds} s`, 429, { retryAfterSeconds })
  }
}

/** 5xx, timeout or network failure after the client's retries. */
export class VendorUnavailable extends VendorError {
  override readonly name = 'VendorUnavailable'
  constructor(
    source: string,
    readonly reason: 'server_error' | 'timeout' | 'network',
    readonly status?: number,
  ) {
    super('VendorUnavailable', source, `${source} unavailable (${reason}${status ? ` ${status}` : ''})`, 503, { reason, vendorStatus: status ?? null })
  }
}

/** The vendor refused the connection's credentials (token endpoint, or a 401 that a fresh token did not cure). */
export class VendorAuthFailed extends VendorError {
  override readonly name = 'VendorAuthFailed'
  constructor(
    source: string,
    readonly status: number,
  ) {
    super('VendorAuthFailed', source, `${source} rejected the connection's client credentials (${status})`, 502, { vendorStatus: status })
  }
}

export class VendorNotFound extends VendorError {
  override readonly name = 'VendorNotFound'
  constructor(
    source: string,
    readonly resource: string,
  ) {
    super('VendorNotFound', source, `${source}: ${resource} not found`, 404, { resource })
  }
}

/** Any other 4xx: the request was wrong for the vendor (e.g. canvas data too large). */
export class VendorRequestRejected extends VendorError {
  override readonly name = 'VendorRequestRejected'
  constructor(
    source: string,
    readonly status: number,
    readonly vendorMessage: string,
  ) {
    super('VendorRequestRejected', source, `${source} rejected the request (${status}): ${vendorMessage}`, 502, { vendorStatus: status })
  }
}

/** The vendor answered, but not in the shape its API documents. */
export class VendorResponseInvalid extends VendorError {
  override readonly name = 'VendorResponseInvalid'
  constructor(
    source: string,
    readonly detail: string,
  ) {
    super('VendorResponseInvalid', source, `${source} answered an unexpected shape: ${detail}`, 502)
  }
}

/** An adapter operation the provider does not implement (connector specification: NotSupported). */
export class NotSupported extends DomainError {
  override readonly name = 'NotSupported'
  constructor(
    readonly providerId: string,
    readonly operation: AdapterOperation,
  ) {
    super('NotSupported', `${providerId} does not support ${operation}`, { status: 501, details: { providerId, operation } })
  }
}

export function isVendorError(e: unknown): e is VendorError {
  return e instanceof VendorError
}
