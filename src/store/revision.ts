import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {writeFileDurably} from './durable-file.js'

/**
 * A per-agent stamp that says which segment changed last, so a long-running server sees
 * other processes' writes with one small read instead of re-reading every file. It is a
 * cache key, not data: if it is missing or unreadable, readers fall back to file identity
 * and the next write starts a new epoch, so an old cached counter can never match again.
 */
export interface Revision {
  epoch: string
  segments: Record<string, number>
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

export function bumpRevision(agentDir: string, current: Revision | undefined, keys: string[]): Revision {
  const next: Revision = current ? {epoch: current.epoch, segments: {...current.segments}} : {epoch: randomBytes(6).toString('hex'), segments: {}}
  for (const key of keys) next.segments[key] = (next.segments[key] ?? 0) + 1
  // Not fsynced: losing it to a power cut only costs readers a re-read.
  writeFileDurably(revisionPath(agentDir), JSON.stringify(next), {durable: false, backup: false})
  return next
}

export function revisionKey(revision: Revision | undefined, segmentKey: string): string | undefined {
  const n = revision?.segments[segmentKey]
  return revision && n !== undefined ? `${revision.epoch}:${n}` : undefined
}
