// Owns credential redaction: the one list of what a credential looks like, and the one function that replaces each with
// '[redacted: secret]'. Agent-written text never stores a credential: the tool server walks every string of every
// call's arguments through redactSecretsDeep before anything is parsed or written (subgraphs/twins/tools/sanitise.ts),
// and a hand-off's message passes redactSecrets again when it is sent (a person's own send never meets the tool server).
// Pure functions; nobody keeps a second copy of the list.

/**
 * What a credential looks like. Each pattern matches the whole credential (never a prefix that leaves a usable tail):
 * - private key blocks (PEM, any algorithm, encrypted or not);
 * - bearer and basic authorization values;
 * - JWT-shaped strings: a base64url JSON header (`eyJ`) and one or two more segments. This covers run tokens (ES256
 *   JWTs), the gateway's internal tokens, identity-provider tokens, and signed inbox-link tokens (base64url claims
 *   '.' base64url HMAC);
 * - URLs with a user:password part (database and broker connection strings);
 * - provider API keys by prefix (sk-/pk-/rk-, GitHub ghp_/gho_/ghs_/github_pat_, Slack xox*, AWS AKIA/ASIA, Google
 *   AIza, webhook signing secrets whsec_);
 * - key=value and key: value secrets (password, secret, client_secret, api_key, access/refresh/run/session token,
 *   authorization, connection string), quoted, or unquoted and shaped like a secret (a digit or symbol in six or more
 *   characters, or sixteen or more), so prose such as 'the token: a barcode label' stays.
 */
export const SECRET_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]{8,}){1,2}\.?/g,
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@\S+/gi,
  /\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghs|ghu|ghr|github_pat|xox[abprs]|whsec)_?[-_]?[A-Za-z0-9_-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /["']?\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|run[_-]?token|session[_-]?token|auth[_-]?token|token|authorization|connection[_-]?string|private[_-]?key)\b["']?\s*[:=]\s*(?!\[redacted: secret\])(?:"[^"\n]{4,}"|'[^'\n]{4,}'|(?=[^\s,;]*[0-9_+/=!@#$%^&*-])[^\s,;]{6,}|[^\s,;]{16,})/gi,
]

export const REDACTED_SECRET = '[redacted: secret]'

/** The text with each credential replaced by REDACTED_SECRET; `count` says how many (never what). */
export function redactSecrets(text: string): { text: string; count: number } {
  let count = 0
  let out = text
  for (const re of SECRET_PATTERNS) {
    // A key=value pattern never takes an already redacted value (one credential, one label): see its lookahead.
    out = out.replace(re, () => { count++; return REDACTED_SECRET })
  }
  return { text: out, count }
}

/** Where a value's strings held credentials: the field path and how many, for a report (never the text). */
export interface SecretFinding { field: string; count: number }

/** Every string of a JSON value through redactSecrets, keys kept; `found` lists the fields that changed. */
export function redactSecretsDeep<T>(value: T, found: SecretFinding[] = [], field = ''): T {
  if (typeof value === 'string') {
    const r = redactSecrets(value)
    if (r.count) found.push({ field: field || '(value)', count: r.count })
    return r.text as T
  }
  if (Array.isArray(value)) return value.map((v, i) => redactSecretsDeep(v, found, `${field}[${i}]`)) as T
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = redactSecretsDeep(v, found, field ? `${field}.${k}` : k)
    return out as T
  }
  return value
}
