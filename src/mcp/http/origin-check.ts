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

export function hostAllowed(policy: OriginPolicy, host: string | undefined): boolean {
  return host !== undefined && policy.hosts.has(hostName(host))
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
