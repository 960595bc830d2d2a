import type {IncomingMessage} from 'node:http'

/**
 * The request body, up to `limit` bytes. A declared Content-Length over the limit is refused
 * before anything is read; otherwise reading stops as soon as the limit is passed.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too_large')
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        req.off('data', onData)
        req.pause()
        resolve('too_large')
        return
      }
      chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(Buffer.concat(chunks)))
    req.once('error', reject)
  })
}

/** The tools a JSON-RPC message (or batch) calls, and its methods, for authorisation and the log. */
export function describeMessages(body: unknown): {methods: string[]; tools: string[]} {
  const messages = Array.isArray(body) ? body : [body]
  const methods: string[] = []
  const tools: string[] = []
  for (const m of messages as {method?: unknown; params?: {name?: unknown}}[]) {
    if (typeof m?.method !== 'string') continue
    methods.push(m.method)
    if (m.method === 'tools/call') tools.push(typeof m.params?.name === 'string' ? m.params.name : '')
  }
  return {methods, tools}
}
