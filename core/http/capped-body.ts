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
  // A declared length the parser holds the body to: read with listeners (an async iterator per request cost more than
  // the read itself on the gateway's hot path); the cap is checked all the same.
  if (Number.isFinite(declared)) return readDeclared(req, maxBytes, refuse)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxBytes) return refuse(size)
    chunks.push(chunk as Buffer)
  }
  return { tooLarge: false, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }
}

function readDeclared(req: http.IncomingMessage, maxBytes: number, refuse: (seen: number) => CappedBody): Promise<CappedBody> {
  if (req.readableEnded) return Promise.resolve({ tooLarge: false, body: Buffer.alloc(0) }) // read before: nothing left, as the iterator finds
  return new Promise<CappedBody>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      settle()
      resolve(refuse(size))
    }
    const onEnd = () => {
      settle()
      resolve({ tooLarge: false, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) })
    }
    const onError = (error: Error) => {
      settle()
      reject(error)
    }
    // closed before its end (the caller went away): what the async iterator rejects with
    const onClose = () => onError(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}
