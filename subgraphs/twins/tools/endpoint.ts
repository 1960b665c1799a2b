// Owns where harnesses reach the tool server: the in-process server's address when this process started one
// (npm start, tests), otherwise TOOLS_URL, otherwise 127.0.0.1 on TOOLS_PORT.
import { env } from '../../../core/config'

let started: string | undefined

/** Called by the stack when it starts the tool server in this process; undefined when it stops. */
export function setToolServerUrl(url: string | undefined) { started = url }

export function toolServerUrl(): string {
  const e = env()
  return started ?? e.TOOLS_URL ?? `http://127.0.0.1:${e.TOOLS_PORT}`
}

/** The MCP endpoint of one run. */
export const runEndpoint = (runId: string) => new URL(`/runs/${runId}/mcp`, toolServerUrl())
