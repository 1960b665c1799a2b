// Owns what the person reads when something fails: error codes and transport failures become sentences; a code is
// never shown. Typed errors of a result union carry a message written for people; everything else maps here.
import type { CombinedError } from 'urql'

/** What the person reads while the service answers 503 (its database is stopped or restarting): not their connection. */
export const SERVICE_UNAVAILABLE_SENTENCE = 'The service is unavailable just now. Try again in a minute.'

const BY_CODE: Record<string, string> = {
  UNAUTHENTICATED: 'Your sign-in has ended. Sign in again.',
  FORBIDDEN: 'You do not have permission for this.',
  NOT_FOUND: 'This is no longer available.',
  RATE_LIMITED: 'Too many requests just now. Try again in a minute.',
  TIMEOUT: 'The service took too long to answer. Try again.',
  SERVICE_UNAVAILABLE: SERVICE_UNAVAILABLE_SENTENCE,
}

/** A sentence for a failed request (network, authentication, or an unexpected error). */
export function describeError(error: CombinedError | undefined): string | null {
  if (!error) return null
  if (error.graphQLErrors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE') || error.response?.status === 503) return SERVICE_UNAVAILABLE_SENTENCE
  if (error.networkError) return 'The service cannot be reached. Check your connection and try again.'
  for (const e of error.graphQLErrors) {
    const code = String(e.extensions?.code ?? '').toUpperCase()
    if (BY_CODE[code]) return BY_CODE[code]
  }
  return 'Something went wrong. Try again.'
}

export function isSignedOut(error: CombinedError | undefined): boolean {
  return Boolean(error?.graphQLErrors.some((e) => String(e.extensions?.code ?? '').toUpperCase() === 'UNAUTHENTICATED'))
}

/** A typed error of a result union: its message (a sentence), never its code. */
export function typedErrorMessage(result: { __typename: string; message?: string | null } | null | undefined): string {
  if (!result) return 'Something went wrong. Try again.'
  return result.message ?? 'Something went wrong. Try again.'
}
