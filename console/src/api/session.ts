// Owns the signed-in person's bearer token: kept in sessionStorage (gone when the tab closes), never in localStorage
// or a cookie, so it is sent only where the console sends it (Authorization header, graphql-ws connection_init).
const KEY = 'console:bearer-token'

export function loadToken(): string {
  try {
    return sessionStorage.getItem(KEY) ?? ''
  } catch {
    return ''
  }
}

export function saveToken(token: string): void {
  try {
    if (token) sessionStorage.setItem(KEY, token)
    else sessionStorage.removeItem(KEY)
  } catch {
    // Storage disabled: the token lives in memory for this page only.
  }
}
