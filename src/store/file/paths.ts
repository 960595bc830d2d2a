import {basename, dirname, isAbsolute, join, relative} from 'node:path'

import {MemError} from '../../errors.js'

/** Longest folder name most file systems accept (bytes). */
const NAME_MAX = 255

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

/**
 * The agent id a folder name stands for, or undefined for a folder this encoding cannot have
 * made (created by hand, or by something else): such folders are not agents.
 */
export function decodeAgentDir(name: string): string | undefined {
  let id: string
  try {
    id = decodeURIComponent(name)
  } catch {
    return undefined
  }
  return id !== '' && encodeAgentDir(id) === name ? id : undefined
}

export function agentsRoot(home: string): string {
  return join(home, 'agents')
}

export function agentDir(home: string, agentId: string): string {
  const name = encodeAgentDir(agentId)
  if (Buffer.byteLength(name) > NAME_MAX)
    throw new MemError('invalid_input', `agent id is too long to be a folder name (${agentId.length} characters)`)
  return inside(agentsRoot(home), name)
}

/** Joins a name under a root and refuses anything that would land outside it or below a subfolder. */
export function inside(root: string, name: string): string {
  const full = join(root, name)
  const rel = relative(root, full)
  if (rel === '' || rel === '.' || rel.startsWith('..') || isAbsolute(rel) || rel !== name || /[/\\\0]/.test(name)) {
    throw new MemError('invalid_input', `refusing a file name outside ${root}: ${JSON.stringify(name)}`)
  }
  return full
}

/** The agent a data file belongs to by where it lies: `<home>/agents/<agent folder>/<collection>/<file>`. */
export function agentOfDataFile(path: string): string | undefined {
  return decodeAgentDir(basename(dirname(dirname(path))))
}
