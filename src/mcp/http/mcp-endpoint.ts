import type {IncomingMessage, ServerResponse} from 'node:http'

import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHttpHandler,
  type Server,
} from '@modelcontextprotocol/server'

import {defaultAgentFor} from '../../auth/agent-patterns.js'
import type {TokenRecord} from '../../auth/tokens.js'
import type {Store} from '../../store/store.js'
import {scopedStore} from '../access.js'
import {createServer} from '../server.js'
import {header, refusal, send} from './answer.js'
import {scopesOf} from './authorize.js'
import type {RequestLog} from './request-log.js'
import {chooseResponse, sendResponse, toWebRequest} from './web-bridge.js'

export interface EndpointOptions {
  store: Store
  defaultAgent: string
  version: string
  /** Longest a request may take before it is answered 504. */
  requestMs: number
}

/** What the token checked before a request reached the endpoint grants it. */
interface Grant {
  record: TokenRecord
  readOnly: boolean
  entry: RequestLog
}

/**
 * One authorized MCP request, served statelessly, by a server built by the same createServer
 * as stdio over the one long-lived store narrowed to the caller's grant. A 2026-07-28 request
 * (it carries its protocol version in an envelope) goes to the SDK's handler for that era; a
 * 2025 one to a stateless transport of its own, which answers JSON or a stream as the client
 * prefers (the SDK's own 2025 fallback always streams).
 */
export class McpEndpoint {
  private readonly modern: McpHttpHandler

  constructor(private readonly options: EndpointOptions) {
    this.modern = createMcpHandler((ctx) => this.serverFor(ctx.authInfo), {legacy: 'reject'})
  }

  async serve(req: IncomingMessage, res: ServerResponse, call: Grant & {body: unknown}): Promise<void> {
    const {body, ...grant} = call
    const {accept, json} = chooseResponse(header(req, 'accept'))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      if (res.headersSent) res.end()
      else send(res, this.timeout())
    }, this.options.requestMs)
    try {
      const authInfo = {token: '', clientId: grant.record.name, scopes: scopesOf(grant.record), extra: {grant}}
      const request = toWebRequest(req, accept)
      const {response, close} = (await isLegacyRequest(request, body))
        ? await this.legacy(request, body, authInfo, json)
        : {response: await this.modern.fetch(request, {parsedBody: body, authInfo}), close: async () => {}}
      try {
        if (!timedOut) await sendResponse(res, response)
      } finally {
        await close()
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * A 2025 request: a server and a transport of its own (the SDK's stateless transport must not
   * be reused), closed once the answer, streamed or not, has been sent.
   */
  private async legacy(
    request: Request,
    body: unknown,
    authInfo: AuthInfo,
    json: boolean,
  ): Promise<{response: Response; close: () => Promise<void>}> {
    const server = this.serverFor(authInfo)
    const close = () => server.close().catch(() => {})
    try {
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: json,
      })
      await server.connect(transport)
      return {response: await transport.handleRequest(request, {parsedBody: body, authInfo}), close}
    } catch (error) {
      await close()
      throw error
    }
  }

  private serverFor(authInfo: AuthInfo | undefined): Server {
    const grant = authInfo?.extra?.['grant'] as Grant
    const store = {
      store: scopedStore(this.options.store, grant.record.agents),
      defaultAgent: defaultAgentFor(grant.record.agents, this.options.defaultAgent),
    }
    return createServer(store, this.options.version, {
      readOnly: grant.readOnly,
      onCall: (_tool, ok) => (grant.entry.result ??= []).push(ok ? 'ok' : 'tool_error'),
    })
  }

  private timeout() {
    return refusal(
      504,
      -32000,
      `The request took longer than ${this.options.requestMs / 1000} s; a write it made may still have been saved.`,
      {Connection: 'close'},
    )
  }
}
