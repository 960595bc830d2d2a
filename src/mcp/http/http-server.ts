import type {IncomingMessage, ServerResponse} from 'node:http'

import {TokenRegistry} from '../../auth/tokens.js'
import type {Store} from '../../store/store.js'
import {jsonRpcError, send} from './answer.js'
import {ConnectionCap} from './connection-cap.js'
import {Drain} from './drain.js'
import {McpEndpoint} from './mcp-endpoint.js'
import {listenHttp} from './node-server.js'
import {serverPolicy} from './origin-check.js'
import {RateLimiter} from './rate-limit.js'
import {logRequest} from './request-log.js'
import {ProtectedResource} from './resource-metadata.js'
import {MCP_PATH, route, type Routes} from './routes.js'

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

export interface HttpServeOptions {
  home: string
  store: Store
  defaultAgent: string
  version: string
  host: string
  port: number
  tls?: {cert: Buffer; key: Buffer}
  /** A reverse proxy in front terminates TLS (--tls-proxy): clients reach the server over https. */
  tlsProxy?: boolean
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

/**
 * `mem mcp serve --http`: the MCP Streamable HTTP transport, stateless. This puts the parts
 * together; each job is a module of its own: routes.ts (which path, in which order the checks
 * run), origin-check.ts, authorize.ts, resource-metadata.ts, rate-limit.ts, request-body.ts, mcp-endpoint.ts (the
 * SDK server per request), drain.ts (stopping), connection-cap.ts and node-server.ts.
 */
export async function startHttpServer(options: HttpServeOptions): Promise<RunningHttpServer> {
  const {log, limits} = options
  const warn = (message: string) => log({time: new Date().toISOString(), event: 'warning', message})
  const drain = new Drain()
  const tokens = new TokenRegistry(options.home, warn)
  const routes: Routes = {
    policy: serverPolicy(options.host, options.allowedHosts, options.allowedOrigins),
    tokens,
    limiter: new RateLimiter(limits.perMinute, limits.burst),
    drain,
    endpoint: new McpEndpoint({...options, requestMs: limits.requestMs}),
    resource: new ProtectedResource(options.tls !== undefined || options.tlsProxy === true, MCP_PATH),
    readOnly: options.readOnly,
    bodyBytes: limits.bodyBytes,
  }
  const cap = new ConnectionCap(limits.connections, () =>
    warn(`${limits.connections} connections are open (--max-connections): closing the oldest idle ones`),
  )

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.once('close', cap.busy(req.socket))
    drain.track(res)
    const entry = logRequest(req, res, log)
    try {
      await route(routes, req, res, entry)
    } catch (error) {
      log({time: new Date().toISOString(), event: 'error', message: (error as Error).message})
      if (!res.headersSent) send(res, {status: 500, body: jsonRpcError(-32603, 'Internal error')})
      else res.destroy()
    }
  }

  const {http, origin} = await listenHttp({...options, requestMs: limits.requestMs}, cap, handle)
  return {
    url: `${origin}${MCP_PATH}`,
    tokens: () => tokens.count(),
    close: (graceMs) => drain.stop(http, graceMs),
  }
}
