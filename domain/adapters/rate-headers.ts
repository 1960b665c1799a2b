// Owns reading a vendor's rate-limit headers (contract.ts re-exports it): apart, so the vendor HTTP client (http.ts)
// needs nothing of the contract, which takes its options type.
/** What a vendor's answer says of its rate window (adaptive throttling feeds these to the budget). */
export interface RateHeaders {
  limit: number | null
  remaining: number | null
  resetSeconds: number | null
}

/** Header names per vendor (the notebook's x-rate-limit-*, the citation graph's X-RateLimit-*, ...), lower case. */
export interface RateHeaderNames {
  limit: string
  remaining: string
  reset: string
}

export const DEFAULT_RATE_HEADER_NAMES: RateHeaderNames = { limit: 'x-rate-limit-limit', remaining: 'x-rate-limit-remaining', reset: 'x-rate-limit-reset' }

type RawHeaders = Readonly<Record<string, string | readonly string[] | undefined>>

export function intHeader(v: string | readonly string[] | undefined): number | null {
  const s = Array.isArray(v) ? v[0] : (v as string | undefined)
  if (s === undefined || s.trim() === '') return null
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

/** The rate headers of an answer, or null when it carries none. */
export function readRateHeaders(headers: RawHeaders, names: RateHeaderNames = DEFAULT_RATE_HEADER_NAMES): RateHeaders | null {
  const h = { limit: intHeader(headers[names.limit]), remaining: intHeader(headers[names.remaining]), resetSeconds: intHeader(headers[names.reset]) }
  return h.limit === null && h.remaining === null && h.resetSeconds === null ? null : h
}
