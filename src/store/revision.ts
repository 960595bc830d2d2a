import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {fileIdentity, removeQuietly, writeFileDurably} from './durable-file.js'

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

/**
 * Stamps the segments just written (`written`: key → identity of the file written) and returns
 * the new stamp. The data files are committed by then, so a stamp that cannot be written is
 * not a failure of the change: it is removed if it can be (readers then go by file identity
 * and the next write starts a new epoch) and undefined is returned.
 */
export function bumpRevision(
  agentDir: string,
  current: Revision | undefined,
  written: Record<string, string | undefined>,
  checked: Record<string, string> = {},
  identityOf: (key: string) => string | undefined = (key) => fileIdentity(join(agentDir, key)),
): Revision | undefined {
  const files: Record<string, string> = {...current?.files}
  // Only identities that still hold: a file replaced since it was checked must be checked again.
  // One already vouched for under the same identity needs no second look.
  for (const [key, identity] of Object.entries(checked))
    if (files[key] !== identity && identityOf(key) === identity) files[key] = identity
  const next: Revision = current
    ? {epoch: current.epoch, segments: {...current.segments}, files}
    : {epoch: randomBytes(6).toString('hex'), segments: {}, files}
  for (const [key, identity] of Object.entries(written)) {
    next.segments[key] = (next.segments[key] ?? 0) + 1
    if (identity === undefined) delete files[key]
    else files[key] = identity
  }
  try {
    // Not fsynced: losing it to a power cut only costs readers a re-read.
    writeFileDurably(revisionPath(agentDir), JSON.stringify(next), {durable: false, backup: false})
    return next
  } catch {
    try {
      removeQuietly(revisionPath(agentDir))
    } catch {
      // Left as it was: its counters no longer match the files' identities, so readers re-read them.
    }
    return undefined
  }
}

/** The current identity of each of `keys` (segment paths inside the agent folder), for stamping files written by other means. */
export function identitiesOf(agentDir: string, keys: string[]): Record<string, string | undefined> {
  return Object.fromEntries(keys.map((key) => [key, fileIdentity(join(agentDir, key))]))
}

export function revisionKey(revision: Revision | undefined, segmentKey: string): string | undefined {
  const n = revision?.segments[segmentKey]
  return revision && n !== undefined ? `${revision.epoch}:${n}` : undefined
}
