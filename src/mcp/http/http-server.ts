import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import {Server as NetServer, type AddressInfo, type Socket} from 'node:net'

import {WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'

import {defaultAgentFor} from '../../auth/agent-patterns.js'
import {describeErrno, MemError} from '../../errors.js'
import {TokenRegistry, type TokenRecord} from '../../auth/tokens.js'
import type {Store} from '../../store/store.js'
import {scopedStore} from '../access.js'
import {createServer, listedTools} from '../server.js'
import {hostAllowed, originAllowed, originPolicy} from './origin-check.js'
import {ConnectionCap} from './connection-cap.js'
import {RateLimiter} from './rate-limit.js'
import {ServerPool} from './server-pool.js'
import {describeMessages, parseBody, readBody} from './request-body.js'

export interface HttpLimits {
  /** Largest request body accepted (413 above). */
  bodyBytes: number
  /** Calls a minute per token on average, and the burst allowed on top (429 above). */
  perMinute: number
  burst: number
  /** Longest a request may take before it is answered 504. */
  requestMs: number
  /** Most connections open at once; over it, the oldest without a request under way is closed. */
  connections: number
}

export const DEFAULT_LIMITS: HttpLimits = {
  bodyBytes: 2 * 1024 * 1024,
  perMinute: 600,
  burst: 60,
  requestMs: 30_000,
  connections: 1024,
}

/** A connection's request headers (and a TLS handshake) must arrive within this; docs/http.md says 10 s. */
const HEADERS_MS = 10_000

/** How long a stopping server still reads kept-alive connections for requests already sent. */
const LINGER_MS = 1000

export interface HttpServeOptions {
  home: string
  store: Store
  defaultAgent: string
  version: string
  host: string
  port: number
  tls?: {cert: Buffer; key: Buffer}
  allowedHosts: string[]
  allowedOrigins: string[]
  readOnly: boolean
  limits: HttpLimits
  /** One JSON object per line on stderr: never a token or memory content. */
  log: (entry: Record<string, unknown>) => void
}

export interface RunningHttpServer {
  url: string
  /** How many tokens the server accepts now. */
  tokens(): number
  /** Stops accepting, lets the requests under way finish (their writes too), then closes. */
  close(graceMs: number): Promise<{unfinished: number}>
}

/** What one request did, for its log line. */
interface RequestLog {
  time: string
  method: string
  path: string
  token?: string
  rpc?: string[]
  tool?: string[]
  result?: string[]
  status?: number
}

const MCP_PATH = '/mcp'

/**
 * `mem mcp serve --http`: the MCP Streamable HTTP transport, stateless. Every POST gets its
 * own SDK server and transport (the SDK's stateless transport must not be reused), built by
 * the same createServer as stdio, over the one long-lived store and the caller's grant.
 */
export async function startHttpServer(options: HttpServeOptions): Promise<RunningHttpServer> {
  const tokens = new TokenRegistry(options.home, (message) =>
    options.log({time: new Date().toISOString(), event: 'warning', message}),
  )
  const policy = originPolicy(
    [...options.allowedHosts, ...(isWildcard(options.host) ? [] : [bracketed(options.host)])],
    options.allowedOrigins,
  )
  const limiter = new RateLimiter(options.limits.perMinute, options.limits.burst)
  /** Every request from its headers to the end of its answer: what a stop waits for, and counts if it cannot. */
  const requests = new Map<ServerResponse, Promise<void>>()
  const pool = new ServerPool()
  let draining = false

  const cap = new ConnectionCap(options.limits.connections, () =>
    options.log({
      time: new Date().toISOString(),
      event: 'warning',
      message: `${options.limits.connections} connections are open (--max-connections): closing the oldest idle ones`,
    }),
  )

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.once('close', cap.busy(req.socket))
    const answered = new Promise<void>((resolve) => res.once('close', resolve))
    requests.set(res, answered)
    void answered.then(() => requests.delete(res))
    if (draining) res.setHeader('Connection', 'close')
    const started = performance.now()
    const entry: RequestLog = {
      time: new Date().toISOString(),
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
    }
    res.once('close', () =>
      options.log({
        ...entry,
        // A connection lost (or cut at a stop) before the answer went out: no status was sent.
        ...(res.writableFinished ? {status: res.statusCode} : {unanswered: true}),
        ms: Math.round((performance.now() - started) * 10) / 10,
      }),
    )
    try {
      await route(req, res, entry)
    } catch (error) {
      options.log({time: new Date().toISOString(), event: 'error', message: (error as Error).message})
      if (!res.headersSent) reply(res, 500, jsonRpcError(-32603, 'Internal error'))
      else res.destroy()
    }
  }

  const route = async (req: IncomingMessage, res: ServerResponse, entry: RequestLog): Promise<void> => {
    if (entry.path === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return reply(res, 405, {error: 'method not allowed'}, {Allow: 'GET'})
      return reply(res, draining ? 503 : 200, {status: draining ? 'stopping' : 'ok'})
    }
    if (entry.path !== MCP_PATH) return reply(res, 404, {error: `not found; the MCP endpoint is ${MCP_PATH}`})
    if (!hostAllowed(policy, req.headers.host))
      return reply(res, 403, jsonRpcError(-32000, 'Forbidden: this Host is not allowed (see --allowed-host)'))
    if (!originAllowed(policy, header(req, 'origin')))
      return reply(res, 403, jsonRpcError(-32000, 'Forbidden: this Origin is not allowed (see --allowed-origin)'))
    if (draining)
      return reply(res, 503, jsonRpcError(-32000, 'The server is stopping; try again shortly.'), {
        Connection: 'close',
        'Retry-After': '1',
      })

    const token = bearerOf(req)
    const record = token === undefined ? undefined : tokens.verify(token)
    if (!record) {
      // The same answer for a missing, unknown, expired or revoked token: nothing about what exists.
      const challenge = token === undefined ? 'Bearer realm="mem"' : 'Bearer realm="mem", error="invalid_token"'
      return reply(
        res,
        401,
        jsonRpcError(-32001, 'Unauthorized: send a valid token as "Authorization: Bearer <token>" (mem token create)'),
        {'WWW-Authenticate': challenge},
      )
    }
    entry.token = record.name
    const wait = limiter.take(record.name)
    if (wait > 0)
      return reply(res, 429, jsonRpcError(-32000, `Too many requests for this token; retry in ${wait} s.`), {
        'Retry-After': String(wait),
      })
    if (req.method !== 'POST')
      return reply(res, 405, jsonRpcError(-32000, 'Method not allowed: this stateless server takes POST only.'), {
        Allow: 'POST',
      })

    const raw = await readBody(req, options.limits.bodyBytes)
    if (raw === 'too_large') {
      return reply(
        res,
        413,
        jsonRpcError(-32000, `Request body too large: at most ${options.limits.bodyBytes} bytes.`),
        {Connection: 'close'},
      )
    }
    const parsed = parseBody(raw)
    if ('refused' in parsed) return reply(res, 400, jsonRpcError(parsed.refused.code, parsed.refused.message))
    const body = parsed.body
    const {methods, tools} = describeMessages(body)
    entry.rpc = methods
    if (tools.length > 0) entry.tool = tools
    const readOnly = options.readOnly || record.read_only
    if (record.read_only && tools.some((t) => isWriteTool(t))) {
      return reply(
        res,
        403,
        jsonRpcError(-32000, 'Forbidden: this token is read-only; it may call memory_search and checkpoint_resume.'),
        {
          'WWW-Authenticate': 'Bearer realm="mem", error="insufficient_scope", scope="mem:write"',
        },
      )
    }
    await serveMcp(req, res, body, record, readOnly, entry)
  }

  const serveMcp = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    record: TokenRecord,
    readOnly: boolean,
    entry: RequestLog,
  ): Promise<void> => {
    const pooled = pool.take(`${record.hash}:${readOnly}`, (onCall) => {
      const ctx = {
        store: scopedStore(options.store, record.agents),
        defaultAgent: defaultAgentFor(record.agents, options.defaultAgent),
      }
      return createServer(ctx, options.version, {readOnly, onCall})
    })
    pooled.entry = entry
    const {accept, json} = chooseResponse(header(req, 'accept'))
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    })
    await pooled.server.connect(transport)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      if (!res.headersSent)
        reply(
          res,
          504,
          jsonRpcError(
            -32000,
            `The request took longer than ${options.limits.requestMs / 1000} s; a write it made may still have been saved.`,
          ),
          {Connection: 'close'},
        )
      else res.end()
    }, options.limits.requestMs)
    try {
      const response = await transport.handleRequest(toWebRequest(req, accept), {
        parsedBody: body,
        authInfo: {
          token: '',
          clientId: record.name,
          scopes: record.read_only ? ['mem:read'] : ['mem:read', 'mem:write'],
        },
      })
      await sendResponse(res, response)
    } finally {
      clearTimeout(timer)
      await pooled.server.close().catch(() => {})
      // A server whose request timed out or lost its client may still be running a handler.
      if (!timedOut && res.writableEnded && !res.destroyed) pool.give(pooled)
    }
  }

  // Node looks for connections past their headers or request time every 30 s unless told: a
  // connection that sent nothing would be closed after up to 40 s rather than the 10 s documented.
  const timing = {connectionsCheckingInterval: 1000}
  const http = options.tls
    ? createHttpsServer(
        {cert: options.tls.cert, key: options.tls.key, handshakeTimeout: HEADERS_MS, ...timing},
        (req, res) => void handle(req, res),
      )
    : createHttpServer(timing, (req, res) => void handle(req, res))
  http.on('connection', (socket: Socket) => {
    cap.admit(socket)
    // Small answers go out at once rather than waiting for the previous packet's acknowledgement.
    socket.setNoDelay(true)
  })
  // Bounds on the connection itself, so a client that sends slowly holds nothing for long.
  http.headersTimeout = HEADERS_MS
  http.requestTimeout = options.limits.requestMs
  http.keepAliveTimeout = 5_000
  await listen(http, options.host, options.port)
  const address = http.address() as AddressInfo
  const url = `${options.tls ? 'https' : 'http'}://${urlHost(address)}:${address.port}${MCP_PATH}`

  return {
    url,
    tokens: () => tokens.count(),
    async close(graceMs) {
      draining = true
      // Answers from now on end their connection, so clients stop sending on it.
      for (const res of requests.keys()) if (!res.headersSent) res.setHeader('Connection', 'close')
      // net.Server's close, not http.Server's: that one also drops every idle kept-alive connection
      // at once, and with it any request a client has already sent on one that is not read yet.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(http, () => resolve()))
      const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref())
      // Requests already on their way are read and answered (503 with Retry-After, or served if
      // their headers had arrived) before the kept-alive connections close.
      await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.min(LINGER_MS, graceMs))), deadline])
      while (requests.size > 0) {
        const settled = Promise.allSettled([...requests.values()]).then(() => 'done' as const)
        if ((await Promise.race([settled, deadline])) === 'late') break
      }
      const unfinished = requests.size
      http.closeAllConnections()
      await Promise.race([closed, deadline])
      return {unfinished}
    },
  }
}

function isWriteTool(name: string): boolean {
  return !listedTools(true).some((t) => t.name === name)
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function bearerOf(req: IncomingMessage): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')
  return match?.[1]
}

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

function toWebRequest(req: IncomingMessage, accept: string | undefined): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'authorization' || name === 'accept') continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  if (accept !== undefined) headers.set('accept', accept)
  return new Request(`http://localhost${req.url ?? MCP_PATH}`, {method: req.method, headers})
}

/** Writes a web Response to Node's response: a JSON body in one write, an SSE body as it comes. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
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

function jsonRpcError(code: number, message: string): object {
  return {jsonrpc: '2.0', error: {code, message}, id: null}
}

function reply(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers})
  res.end(text)
}

function listen(http: NodeServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Node says only "listen EADDRINUSE"; name the address, so a second server or a busy port is plain.
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        typeof error.code === 'string'
          ? new MemError('io_error', `could not listen on ${bracketed(host)}:${port}: ${describeErrno(error.code)}`)
          : error,
      )
    http.once('error', failed)
    http.listen(port, host, () => {
      http.off('error', failed)
      resolve()
    })
  })
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]'
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address
}
