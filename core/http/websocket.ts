// Owns attaching a WebSocket server to an HTTP server (graphql-ws at the gateway and the subgraphs).
import type http from 'node:http'
import { WebSocketServer, type ServerOptions } from 'ws'

/**
 * A WebSocket server taking `path`'s upgrades on `httpServer`. In noServer mode with the upgrade handed over here, not
 * ws's `server` option: bound to the HTTP server, ws re-emits the server's own errors as its own, so a port in use at
 * listen reached graphql-ws, which printed it with a stack ("Internal error emitted on the WebSocket server") beside
 * the one-sentence start failure (issue 26). Listen errors belong to whoever calls listen.
 */
export function attachWebSocketServer(httpServer: http.Server, options: Omit<ServerOptions, 'server' | 'port' | 'noServer'>): WebSocketServer {
  const wsServer = new WebSocketServer({ ...options, noServer: true })
  // handleUpgrade answers 400 to another path, as ws does in server mode.
  httpServer.on('upgrade', (req, socket, head) => wsServer.handleUpgrade(req, socket, head, (ws) => wsServer.emit('connection', ws, req)))
  return wsServer
}
