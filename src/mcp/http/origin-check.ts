import type {IncomingMessage} from 'node:http'

import {header, refusal, type Answer} from './answer.js'

/**
 * DNS-rebinding protection: a page on evil.example whose name resolves to 127.0.0.1 reaches
 * the server with `Host: evil.example` and `Origin: http://evil.example`. Only the names
 * on the allow-list pass; a request without Origin (every non-browser client) is fine.
 */
export interface OriginPolicy {
  hosts: Set<string>
  origins: Set<string>
}

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']

/** The policy of a server listening on `host`: loopback names, that address unless it is a wildcard, and the allowed extras. */
export function serverPolicy(host: string, allowedHosts: string[], allowedOrigins: string[]): OriginPolicy {
  return originPolicy([...allowedHosts, ...(isWildcard(host) ? [] : [bracketed(host)])], allowedOrigins)
}

export function originPolicy(extraHosts: string[], extraOrigins: string[]): OriginPolicy {
  const hosts = new Set([...LOOPBACK_NAMES, ...extraHosts].map((h) => h.toLowerCase()))
  return {hosts, origins: new Set(extraOrigins.map((o) => o.replace(/\/+$/, '').toLowerCase()))}
}

/** The name part of a Host header (`[::1]:7411` → `[::1]`, `localhost:7411` → `localhost`). */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase()
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1)
  const colon = lower.indexOf(':')
  return colon === -1 ? lower : lower.slice(0, colon)
}

/** A name or bracketed IPv6 address, and a port if any: nothing else, since the server repeats it in URLs. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[^\s:[\]/"\\@?#]+)(:\d{1,5})?$/i

export function hostAllowed(policy: OriginPolicy, host: string | undefined): boolean {
  return host !== undefined && HOST_HEADER.test(host.trim()) && policy.hosts.has(hostName(host))
}

/** An Origin passes when it is on the list, or its host is an allowed name (any port, http or https). */
export function originAllowed(policy: OriginPolicy, origin: string | undefined): boolean {
  if (origin === undefined) return true
  const normalized = origin.trim().toLowerCase()
  if (policy.origins.has(normalized)) return true
  let url: URL
  try {
    url = new URL(normalized)
  } catch {
    return false
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && policy.hosts.has(hostName(url.host))
}

/** 403 for a Host or Origin the policy does not allow. */
export function checkHostAndOrigin(policy: OriginPolicy, req: IncomingMessage): Answer | undefined {
  if (!hostAllowed(policy, req.headers.host))
    return refusal(403, -32000, 'Forbidden: this Host is not allowed (see --allowed-host)')
  if (!originAllowed(policy, header(req, 'origin')))
    return refusal(403, -32000, 'Forbidden: this Origin is not allowed (see --allowed-origin)')
  return undefined
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]'
}

/** An IPv6 address as it appears in a Host header or URL: `[::1]`. */
export function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}
