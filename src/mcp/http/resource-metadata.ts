import type {IncomingMessage} from 'node:http'

import type {Answer} from './answer.js'
import {SCOPES} from './authorize.js'

/** RFC 9728 §3: where a protected resource publishes its metadata. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource'

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for the MCP endpoint, which the MCP
 * authorization spec asks of a server that takes tokens, and the URL a 401 points to. It
 * names the endpoint, how a token is sent and the scopes tokens carry; no authorization
 * server, since tokens come from `mem token create` (docs/adr/0007). It is the same for every
 * caller and says nothing of the tokens or agents that exist.
 *
 * The endpoint's URL is the one the client used: its Host header (checked against the
 * allowed names before this is asked) and https when TLS ends here or at a proxy in front.
 */
export class ProtectedResource {
  /** The suffixed form of RFC 9728 §3.1 first (the one 401s point to), then the root one clients fall back to. */
  readonly paths: string[]

  constructor(
    private readonly secure: boolean,
    private readonly endpointPath: string,
  ) {
    this.paths = [`${METADATA_PATH}${endpointPath}`, METADATA_PATH]
  }

  /** The endpoint's canonical URL, as the `resource` a token is for. */
  resource(req: IncomingMessage): string {
    return `${this.origin(req)}${this.endpointPath}`
  }

  metadataUrl(req: IncomingMessage): string {
    return `${this.origin(req)}${this.paths[0]}`
  }

  document(req: IncomingMessage): Answer {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return {status: 405, body: {error: 'method not allowed'}, headers: {Allow: 'GET'}}
    return {
      status: 200,
      body: {
        resource: this.resource(req),
        resource_name: 'mem',
        bearer_methods_supported: ['header'],
        scopes_supported: [SCOPES.read, SCOPES.write],
      },
    }
  }

  private origin(req: IncomingMessage): string {
    return `${this.secure ? 'https' : 'http'}://${(req.headers.host ?? '').toLowerCase()}`
  }
}
