// Owns where the console finds its gateway: /console-config.json, served by the gateway that served the page
// (CONSOLE_GATEWAY_URL points the console at another gateway; unset, it talks to its own origin).
export interface ConsoleConfig {
  /** The gateway's origin, e.g. https://api.example.org (no trailing slash). */
  gatewayUrl: string
  httpUrl: string
  wsUrl: string
}

export async function loadConfig(): Promise<ConsoleConfig> {
  let gateway = ''
  try {
    const res = await fetch('/console-config.json', { headers: { accept: 'application/json' } })
    if (res.ok) gateway = String(((await res.json()) as { gatewayUrl?: unknown }).gatewayUrl ?? '')
  } catch {
    // No configuration: the page's own origin is the gateway.
  }
  const gatewayUrl = (gateway || location.origin).replace(/\/+$/, '')
  const httpUrl = `${gatewayUrl}/graphql`
  return { gatewayUrl, httpUrl, wsUrl: httpUrl.replace(/^http/, 'ws') }
}
