import type {IncomingMessage, ServerResponse} from 'node:http'

/** An answer the server gives itself, before or instead of the MCP transport: a refusal, a health check. */
export interface Answer {
  status: number
  body: object
  headers?: Record<string, string>
}

export function jsonRpcError(code: number, message: string): object {
  return {jsonrpc: '2.0', error: {code, message}, id: null}
}

/** A refusal in JSON-RPC's shape, for the MCP endpoint: clients show its message. */
export function refusal(status: number, code: number, message: string, headers?: Record<string, string>): Answer {
  return {status, body: jsonRpcError(code, message), ...(headers ? {headers} : {})}
}

export function send(res: ServerResponse, answer: Answer): void {
  const text = JSON.stringify(answer.body)
  res.writeHead(answer.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...answer.headers,
  })
  res.end(text)
}

/** A request header's first value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
