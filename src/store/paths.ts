import {isAbsolute, join, relative} from 'node:path'

import {MemError} from '../errors.js'

/**
 * Agent ids become folder names only through this encoding: every byte outside [a-z0-9_-]
 * is written as %XX. Dots and slashes can therefore never form `..` or a separator, and
 * upper case is encoded so that `Alice` and `alice` stay apart on case-insensitive disks.
 */
export function encodeAgentDir(agentId: string): string {
  let out = ''
  for (const byte of Buffer.from(agentId, 'utf8')) {
    const ch = String.fromCharCode(byte)
    out += /[a-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

export function decodeAgentDir(name: string): string {
  return decodeURIComponent(name)
}

export function agentsRoot(home: string): string {
  return join(home, 'agents')
}

export function agentDir(home: string, agentId: string): string {
  return inside(agentsRoot(home), encodeAgentDir(agentId))
}

/** Joins a name under a root and refuses anything that would land outside it. */
export function inside(root: string, name: string): string {
  const full = join(root, name)
  const rel = relative(root, full)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || name.includes('\0')) {
    throw new MemError('invalid_input', `refusing a file name outside ${root}: ${JSON.stringify(name)}`)
  }
  return full
}
