// Owns reading a request body under a size cap, for every HTTP server of the service (the gateway and subgraph GraphQL
// endpoints, the tool server, the webhook ingress): a body declared larger than the cap is refused before a byte is
// buffered, one streamed past it is refused as soon as it crosses. What happens to the rest is the caller's choice:
// `discard` reads and drops it (the connection can still carry the answer), `destroy` closes the request at once.
import type http from 'node:http'

export type CappedBody = { tooLarge: false; body: Buffer } | { tooLarge: true; seen: number }

export async function readCappedBody(
  req: http.IncomingMessage,
  maxBytes: number,
  overflow: 'discard' | 'destroy' = 'discard',
): Promise<CappedBody> {
  const refuse = (seen: number): CappedBody => {
    if (overflow === 'destroy') req.destroy()
    else req.resume()
    return { tooLarge: true, seen }
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume() // nothing read yet: drop it unbuffered, so the refusal can be answered
    return { tooLarge: true, seen: declared }
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) return refuse(size)
    chunks.push(chunk as Buffer)
  }
  return { tooLarge: false, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }
}
