// Owns what the console learns from the gateway that served it (/console-config.json): where the gateway is
// (CONSOLE_GATEWAY_URL points the console at another one; unset, it talks to its own origin), how people sign in
// (the identity provider, OIDC_*), and how recent a sign-in must be for a signature.
export interface SignInSettings {
  issuer: string
  clientId: string
  scopes: string
  audience?: string
}

export interface ConsoleConfig {
  /** The gateway's origin, e.g. https://api.example.org (no trailing slash). */
  gatewayUrl: string
  httpUrl: string
  wsUrl: string
  /** Sign-in at the organisation's identity provider; null: the development sign-in (or none, in production). */
  signIn: SignInSettings | null
  signatureMaxAgeSeconds: number
}

export async function loadConfig(): Promise<ConsoleConfig> {
  let served: { gatewayUrl?: unknown; signIn?: SignInSettings | null; signatureMaxAgeSeconds?: unknown } = {}
  try {
    const res = await fetch('/console-config.json', { headers: { accept: 'application/json' } })
    if (res.ok) served = (await res.json()) as typeof served
  } catch {
    // No configuration: the page's own origin is the gateway.
  }
  const gatewayUrl = (String(served.gatewayUrl ?? '') || location.origin).replace(/\/+$/, '')
  const httpUrl = `${gatewayUrl}/graphql`
  return {
    gatewayUrl, httpUrl, wsUrl: httpUrl.replace(/^http/, 'ws'),
    signIn: served.signIn?.issuer && served.signIn.clientId ? served.signIn : null,
    signatureMaxAgeSeconds: typeof served.signatureMaxAgeSeconds === 'number' ? served.signatureMaxAgeSeconds : 300,
  }
}
