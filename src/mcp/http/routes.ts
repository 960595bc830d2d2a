import type {IncomingMessage, ServerResponse} from 'node:http'

import type {TokenRegistry} from '../../auth/tokens.js'
import {refusal, send, type Answer} from './answer.js'
import {authenticate, refuseWrites} from './authorize.js'
import type {Drain} from './drain.js'
import type {McpEndpoint} from './mcp-endpoint.js'
import {checkHostAndOrigin, type OriginPolicy} from './origin-check.js'
import type {RateLimiter} from './rate-limit.js'
import {readMessages} from './request-body.js'
import type {RequestLog} from './request-log.js'
import type {ProtectedResource} from './resource-metadata.js'
import {isSignIn, NO_SIGN_IN} from './sign-in.js'

export const MCP_PATH = '/mcp'

export interface Routes {
  policy: OriginPolicy
  tokens: TokenRegistry
  limiter: RateLimiter
  drain: Drain
  endpoint: McpEndpoint
  /** The OAuth protected resource metadata of the endpoint (RFC 9728). */
  resource: ProtectedResource
  /** The whole server is read-only (--read-only), whatever the token. */
  readOnly: boolean
  bodyBytes: number
}

/**
 * Which path gets what: the health check, the resource metadata, the MCP endpoint, and 404 for
 * the rest (saying there is no sign-in where OAuth clients look for one).
 */
export async function route(routes: Routes, req: IncomingMessage, res: ServerResponse, entry: RequestLog) {
  if (entry.path === '/healthz') return send(res, health(req, routes.drain.draining))
  // Without a token, as a client reads it to learn how to get in; it names the Host it was asked by, so that is checked first.
  if (routes.resource.paths.includes(entry.path))
    return send(res, checkHostAndOrigin(routes.policy, req) ?? routes.resource.document(req))
  if (isSignIn(entry.path)) return send(res, NO_SIGN_IN)
  if (entry.path !== MCP_PATH)
    return send(res, {status: 404, body: {error: `not found; the MCP endpoint is ${MCP_PATH}`}})
  return mcp(routes, req, res, entry)
}

function health(req: IncomingMessage, draining: boolean): Answer {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return {status: 405, body: {error: 'method not allowed'}, headers: {Allow: 'GET'}}
  return {status: draining ? 503 : 200, body: {status: draining ? 'stopping' : 'ok'}}
}

/**
 * The MCP endpoint's checks, cheapest and least revealing first: where the request comes from,
 * whether the server still takes requests, who calls and how often, then what it asks for.
 */
async function mcp(routes: Routes, req: IncomingMessage, res: ServerResponse, entry: RequestLog): Promise<void> {
  const foreign = checkHostAndOrigin(routes.policy, req)
  if (foreign) return send(res, foreign)
  if (routes.drain.draining)
    return send(
      res,
      refusal(503, -32000, 'The server is stopping; try again shortly.', {Connection: 'close', 'Retry-After': '1'}),
    )
  const caller = authenticate(routes.tokens, req, routes.resource.metadataUrl(req))
  if ('status' in caller) return send(res, caller)
  const {record} = caller
  entry.token = record.name
  const wait = routes.limiter.take(record.name)
  if (wait > 0)
    return send(
      res,
      refusal(429, -32000, `Too many requests for this token; retry in ${wait} s.`, {'Retry-After': String(wait)}),
    )
  if (req.method !== 'POST')
    return send(
      res,
      refusal(405, -32000, 'Method not allowed: this stateless server takes POST only.', {Allow: 'POST'}),
    )
  const messages = await readMessages(req, routes.bodyBytes)
  if ('status' in messages) return send(res, messages)
  entry.rpc = messages.methods
  if (messages.tools.length > 0) entry.tool = messages.tools
  const forbidden = refuseWrites(record, messages.tools)
  if (forbidden) return send(res, forbidden)
  await routes.endpoint.serve(req, res, {
    body: messages.body,
    record,
    readOnly: routes.readOnly || record.read_only,
    entry,
  })
}
