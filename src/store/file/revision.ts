import {randomBytes} from 'node:crypto'
import {lstatSync, readFileSync, type BigIntStats} from 'node:fs'
import {join} from 'node:path'

import {fileIdentity, identityText, removeQuietly, writeFileDurably} from './durable-file.js'

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

/**
 * A file's identity is trusted to say its content did not change only once its times are this
 * far in the past: a change made within the same tick of the file system's clock as the one
 * before it can leave every time as it was (the "racy" case), but not once the clock has moved on.
 */
export const SETTLED_MS = 2000

/** True when a file or folder last changed (mtime and ctime) at least {@link SETTLED_MS} ago. */
export function settled(st: BigIntStats, now = Date.now()): boolean {
  const last = st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs
  return last < BigInt(now - SETTLED_MS) * 1_000_000n
}

/**
 * The revision stamp as {@link readRevision} gives it, re-read only when the file's identity
 * moved: for a long-running process, which reads it before every operation, one `lstat` in
 * place of opening and parsing the file. mem replaces the file by rename (a new inode) and a
 * hand edit moves its ctime; a stamp read while it was not yet settled is read again next time.
 */
export class HeldRevision {
  private held?: {identity: string; revision: Revision | undefined}

  constructor(private readonly agentDir: string) {}

  read(): Revision | undefined {
    let st: BigIntStats | undefined
    try {
      st = lstatSync(revisionPath(this.agentDir), {bigint: true, throwIfNoEntry: false})
    } catch {
      st = undefined
    }
    if (st === undefined || !st.isFile()) {
      this.held = undefined
      return readRevision(this.agentDir)
    }
    const identity = identityText(st)
    if (this.held?.identity === identity) return this.held.revision
    const revision = readRevision(this.agentDir)
    this.held = settled(st) ? {identity, revision} : undefined
    return revision
  }
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
