import type {Answer} from './answer.js'

/**
 * Where an OAuth client looks for an authorization server once a 401 sent it to the resource
 * metadata and that names none: RFC 8414 and OpenID Connect discovery under the server's own
 * origin, then the MCP spec's default endpoints there (mcp-remote registers at `/register`).
 * mem has no authorization server (docs/adr/0007-authorization-metadata.md). A client only
 * comes here after its token was refused, so the answer, which such clients print, says how to
 * get in rather than "not found".
 */
const SIGN_IN =
  /^\/(?:register|authorize|token)$|^\/\.well-known\/(?:oauth-authorization-server|openid-configuration)(?:\/|$)|\/\.well-known\/openid-configuration$/

export function isSignIn(path: string): boolean {
  return SIGN_IN.test(path)
}

export const NO_SIGN_IN: Answer = {
  status: 404,
  body: {
    error:
      'This server has no OAuth sign-in: a client sends "Authorization: Bearer <token>" with a token from ' +
      '"mem token create", set in its config. A client that tries to sign in had its token refused: it is ' +
      'wrong, expired or revoked, or none was sent. Make one with "mem token create" (docs/http.md, "Tokens").',
  },
}
