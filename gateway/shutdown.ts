// Owns the order in which a gateway stops: sockets first (no new subscription starts while requests drain) and the
// bridge's shared upstream sockets after them, then the HTTP requests in flight (up to SHUTDOWN_GRACE_SECONDS,
// core/http/http-drain.ts), then what answered their identities (session-stamp listener, then its pool): nothing that
// a request still running could need is closed before it ends.
export interface GatewayParts {
  /** graphql-ws's handle (./sockets.ts): closes every socket. */
  sockets: { dispose(): void | Promise<void> }
  /** The subscription bridge (./subscription-bridge.ts): its shared upstream sockets close once no stream is left. */
  bridge?: { close(): Promise<void> }
  /** The HTTP server's drain (core/http/http-drain.ts). */
  drain: { close(): Promise<void> }
  identities: { close(): Promise<void> }
  /** The small pg pool identities read session stamps over, when the gateway has one. */
  identityPool?: { end(): Promise<void> }
}

export async function shutDownGateway(parts: GatewayParts): Promise<void> {
  await parts.sockets.dispose()
  await parts.bridge?.close()
  await parts.drain.close() // requests in flight finish (up to SHUTDOWN_GRACE_SECONDS), then every socket goes
  await parts.identities.close()
  await parts.identityPool?.end()
}
