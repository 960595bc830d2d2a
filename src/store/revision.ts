import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {fileIdentity, writeFileDurably} from './durable-file.js'

/**
 * A per-agent stamp that says which segment changed last, so a long-running server sees
 * other processes' writes with one small read instead of re-reading every file. It is a
 * cache key, not data: if it is missing or unreadable, readers fall back to file identity
 * and the next write starts a new epoch, so an old cached counter can never match again.
 */
export interface Revision {
  epoch: string
  segments: Record<string, number>
  /**
   * Identity of each segment file when mem last wrote it or decoded it whole. A file that still
   * has it is the one mem checked, so an operation that does not need it can trust it without
   * decoding; any other file is decoded, so damage fails every operation on the agent.
   */
  files?: Record<string, string>
}

export function revisionPath(agentDir: string): string {
  return join(agentDir, 'revision.json')
}

export function readRevision(agentDir: string): Revision | undefined {
  try {
    const parsed = JSON.parse(readFileSync(revisionPath(agentDir), 'utf8')) as Revision
    if (typeof parsed.epoch === 'string' && parsed.segments && typeof parsed.segments === 'object') return parsed
  } catch {
    // missing or unreadable: treated as unknown, see above
  }
  return undefined
}

export function bumpRevision(agentDir: string, current: Revision | undefined, keys: string[], checked: Record<string, string> = {}): Revision {
  const files: Record<string, string> = {...current?.files}
  // Only identities that still hold: a file replaced since it was checked must be checked again.
  for (const [key, identity] of Object.entries(checked)) if (fileIdentity(join(agentDir, key)) === identity) files[key] = identity
  const next: Revision = current ? {epoch: current.epoch, segments: {...current.segments}, files} : {epoch: randomBytes(6).toString('hex'), segments: {}, files}
  for (const key of keys) {
    next.segments[key] = (next.segments[key] ?? 0) + 1
    const identity = fileIdentity(join(agentDir, key))
    if (identity === undefined) delete files[key]
    else files[key] = identity
  }
  // Not fsynced: losing it to a power cut only costs readers a re-read.
  writeFileDurably(revisionPath(agentDir), JSON.stringify(next), {durable: false, backup: false})
  return next
}

export function revisionKey(revision: Revision | undefined, segmentKey: string): string | undefined {
  const n = revision?.segments[segmentKey]
  return revision && n !== undefined ? `${revision.epoch}:${n}` : undefined
}
