import type {IncomingMessage} from 'node:http'

import type {TokenRecord, TokenRegistry} from '../../auth/tokens.js'
import {mayCall, readingToolsInWords} from '../read-only.js'
import {header, refusal, type Answer} from './answer.js'

/** The token a request carries in `Authorization: Bearer …`, if any. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')
  return match?.[1]
}

/**
 * Who is calling: the record of a valid token, or 401. The same answer for a missing, unknown,
 * expired or revoked token: nothing about what exists.
 */
export function authenticate(tokens: TokenRegistry, req: IncomingMessage): {record: TokenRecord} | Answer {
  const token = bearerOf(req)
  const record = token === undefined ? undefined : tokens.verify(token)
  if (record) return {record}
  const challenge = token === undefined ? 'Bearer realm="mem"' : 'Bearer realm="mem", error="invalid_token"'
  return refusal(
    401,
    -32001,
    'Unauthorized: send a valid token as "Authorization: Bearer <token>" (mem token create)',
    {'WWW-Authenticate': challenge},
  )
}

/** A read-only token calling a tool that writes is refused whole, before any of the request runs. */
export function refuseWrites(record: TokenRecord, tools: string[]): Answer | undefined {
  if (tools.every((tool) => mayCall(record.read_only, tool))) return undefined
  return refusal(403, -32000, `Forbidden: this token is read-only; it may call ${readingToolsInWords()}.`, {
    'WWW-Authenticate': 'Bearer realm="mem", error="insufficient_scope", scope="mem:write"',
  })
}

/** The scopes the SDK is told the caller holds. */
export function scopesOf(record: TokenRecord): string[] {
  return record.read_only ? ['mem:read'] : ['mem:read', 'mem:write']
}
