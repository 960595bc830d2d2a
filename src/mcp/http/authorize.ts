import type {IncomingMessage} from 'node:http'

import type {TokenRecord, TokenRegistry} from '../../auth/tokens.js'
import {mayCall, readingToolsInWords} from '../read-only.js'
import {header, refusal, type Answer} from './answer.js'

/** What a token may do: every token reads; one that is not read-only also writes. */
export const SCOPES = {read: 'mem:read', write: 'mem:write'} as const

/** The token a request carries in `Authorization: Bearer …`, if any. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')
  return match?.[1]
}

/**
 * Who is calling: the record of a valid token, or 401. The same answer for a missing, unknown,
 * expired or revoked token: nothing about what exists. The challenge points to the metadata
 * (RFC 9728 §5.1) a client reads to learn how this server takes tokens.
 */
export function authenticate(
  tokens: TokenRegistry,
  req: IncomingMessage,
  metadataUrl: string,
): {record: TokenRecord} | Answer {
  const token = bearerOf(req)
  const record = token === undefined ? undefined : tokens.verify(token)
  if (record) return {record}
  const challenge = `Bearer realm="mem", resource_metadata="${metadataUrl}"${token === undefined ? '' : ', error="invalid_token"'}`
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
    'WWW-Authenticate': `Bearer realm="mem", error="insufficient_scope", scope="${SCOPES.write}"`,
  })
}

/** The scopes the SDK is told the caller holds. */
export function scopesOf(record: TokenRecord): string[] {
  return record.read_only ? [SCOPES.read] : [SCOPES.read, SCOPES.write]
}
