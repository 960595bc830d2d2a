import type {IncomingMessage, ServerResponse} from 'node:http'

// Between Node's HTTP types and the web Request and Response the SDK's transport takes.

/**
 * JSON unless the client lists text/event-stream before application/json (or accepts only
 * the stream). The SDK transport wants both types listed, so the header it sees names both
 * once the choice is made; a client that accepts neither still gets its 406.
 */
export function chooseResponse(accept: string | undefined): {accept: string | undefined; json: boolean} {
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase())
  const jsonAt = types.findIndex((t) => t === 'application/json' || t === 'application/*' || t === '*/*')
  const sseAt = types.indexOf('text/event-stream')
  if (jsonAt === -1 && sseAt === -1) return {accept, json: true}
  const json = jsonAt !== -1 && (sseAt === -1 || jsonAt < sseAt)
  return {accept: 'application/json, text/event-stream', json}
}

/** The request as the transport sees it: without the token, with the chosen Accept. */
export function toWebRequest(req: IncomingMessage, accept: string | undefined): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'authorization' || name === 'accept') continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  if (accept !== undefined) headers.set('accept', accept)
  return new Request(`http://localhost${req.url ?? '/'}`, {method: req.method, headers})
}

/** Writes a web Response to Node's response: a JSON body in one write, an SSE body as it comes. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.headersSent) {
    await response.body?.cancel().catch(() => {})
    return
  }
  const headers = Object.fromEntries(response.headers)
  if (!response.body || !/^text\/event-stream/.test(response.headers.get('content-type') ?? '')) {
    const body = Buffer.from(await response.arrayBuffer())
    res.writeHead(response.status, {...headers, 'Content-Length': body.length})
    res.end(body)
    return
  }
  res.writeHead(response.status, headers)
  const reader = response.body.getReader()
  try {
    for (;;) {
      const {done, value} = await reader.read()
      if (done || res.destroyed) break
      res.write(value)
    }
  } finally {
    await reader.cancel().catch(() => {})
    res.end()
  }
}
