// Owns the signed-in person's session: the bearer token and what the console needs beside it (when the person
// authenticated, the provider's ID token for sign-out, a refresh token where the provider issues one), kept in
// sessionStorage (gone when the tab closes), never in localStorage or a cookie, so the token is sent only where the
// console sends it (Authorization header, graphql-ws connection_init).
const KEY = 'console:session'

export interface Session {
  token: string
  /** When the person authenticated (seconds since epoch): a signature needs it recent (SIGNATURE_AUTH_MAX_AGE_SECONDS). */
  authTime: number | null
  email?: string
  /** The provider's ID token (id_token_hint at sign-out). */
  idToken?: string
  refreshToken?: string
  /** When the access token expires (ms since epoch), as the provider said. */
  expiresAt?: number
  /** Where the token came from: the identity provider, or the development sign-in. */
  source: 'provider' | 'development'
}

let memory: Session | null = null

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY)
    return raw ? (JSON.parse(raw) as Session) : null
  } catch {
    return memory
  }
}

export function saveSession(session: Session | null): void {
  memory = session
  try {
    if (session) sessionStorage.setItem(KEY, JSON.stringify(session))
    else sessionStorage.removeItem(KEY)
  } catch {
    // Storage disabled: the session lives in memory for this page only.
  }
}

/** A JWT's claims, read without verifying (the gateway verifies); empty for anything else. */
export function unverifiedClaims(token: string): { auth_time?: unknown; email?: unknown; exp?: unknown } {
  try {
    return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>
  } catch {
    return {}
  }
}

/** A development token's claims (this service minted it: auth_time, email, exp), read to know when it was made. */
export function developmentSession(token: string): Session {
  const claims = unverifiedClaims(token)
  return {
    token, source: 'development',
    authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
  }
}
