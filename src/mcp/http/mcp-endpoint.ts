import type {IncomingMessage, ServerResponse} from 'node:http'

import {WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'

import {defaultAgentFor} from '../../auth/agent-patterns.js'
import type {TokenRecord} from '../../auth/tokens.js'
import type {Store} from '../../store/store.js'
import {scopedStore} from '../access.js'
import {createServer} from '../server.js'
import {header, refusal, send} from './answer.js'
import {scopesOf} from './authorize.js'
import type {RequestLog} from './request-log.js'
import {ServerPool} from './server-pool.js'
import {chooseResponse, sendResponse, toWebRequest} from './web-bridge.js'

export interface EndpointOptions {
  store: Store
  defaultAgent: string
  version: string
  /** Longest a request may take before it is answered 504. */
  requestMs: number
}

/**
 * One authorized MCP request, served statelessly: an SDK server (from the pool) built by the
 * same createServer as stdio, over the one long-lived store narrowed to the caller's grant,
 * and a transport of its own (the SDK's stateless transport must not be reused).
 */
export class McpEndpoint {
  private readonly pool = new ServerPool()

  constructor(private readonly options: EndpointOptions) {}

  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    call: {body: unknown; record: TokenRecord; readOnly: boolean; entry: RequestLog},
  ): Promise<void> {
    const {body, record, readOnly, entry} = call
    const pooled = this.pool.take(`${record.hash}:${readOnly}`, (onCall) => {
      const ctx = {
        store: scopedStore(this.options.store, record.agents),
        defaultAgent: defaultAgentFor(record.agents, this.options.defaultAgent),
      }
      return createServer(ctx, this.options.version, {readOnly, onCall})
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
      if (res.headersSent) res.end()
      else send(res, this.timeout())
    }, this.options.requestMs)
    try {
      const response = await transport.handleRequest(toWebRequest(req, accept), {
        parsedBody: body,
        authInfo: {token: '', clientId: record.name, scopes: scopesOf(record)},
      })
      await sendResponse(res, response)
    } finally {
      clearTimeout(timer)
      await pooled.server.close().catch(() => {})
      // A server whose request timed out or lost its client may still be running a handler.
      if (!timedOut && res.writableEnded && !res.destroyed) this.pool.give(pooled)
    }
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
