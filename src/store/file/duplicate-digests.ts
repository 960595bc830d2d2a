import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {cacheDir, writeCacheFile} from './cache-files.js'
import {guarded, normalizedContent} from '../duplicates.js'
import {isLink} from './links.js'
import type {FactRecord} from '../records.js'

/**
 * What a process that adds one fact and exits (the CLI) needs to know of the segments it does
 * not read: a hash of the normalised content of each live standalone fact, per segment, with
 * the identity (inode, size, modification time) the segment had when the hashes were taken.
 * A segment whose identity still matches is not read; any other is read and hashed again. It
 * is derived data, like the saved search index: a missing, damaged or outdated file costs a
 * read of the segments, and a hash that hits is confirmed against the segment itself, so
 * neither can make the guard drop a fact or name the wrong one.
 */
export interface Digests {
  segments: Record<string, {identity: string; hashes: string[]}>
}

/**
 * On disk each segment's hashes are one string of fixed-width hashes, so the file costs 11 bytes
 * a fact and all of cache/ stays smaller than the facts. 64 bits are plenty: a hash only picks
 * the segment to read, and a hit is confirmed against the fact itself. A file of another
 * version (version 1 held 16-character hashes in arrays) is not trusted, since its hashes would
 * never match and the guard would skip segments that hold a duplicate.
 */
const VERSION = 2
const HASH_LENGTH = 11

interface SavedDigests {
  version: typeof VERSION
  segments: Record<string, {identity: string; hashes: string}>
}

const NAME = 'duplicates.json'

export function digestsPath(agentDir: string): string {
  return join(cacheDir(agentDir), NAME)
}

export function contentHash(content: string): string {
  return createHash('sha256').update(normalizedContent(content)).digest('base64url').slice(0, HASH_LENGTH)
}

export function segmentHashes(records: readonly FactRecord[]): string[] {
  return records.filter(guarded).map((fact) => contentHash(fact.content))
}

export function readDigests(agentDir: string): Digests | undefined {
  if (isLink(cacheDir(agentDir))) return undefined
  try {
    const parsed = JSON.parse(readFileSync(digestsPath(agentDir), 'utf8')) as SavedDigests
    if (parsed?.version !== VERSION || typeof parsed.segments !== 'object' || parsed.segments === null) return undefined
    const segments: Digests['segments'] = {}
    for (const [name, {identity, hashes}] of Object.entries(parsed.segments)) {
      if (typeof identity !== 'string' || typeof hashes !== 'string' || hashes.length % HASH_LENGTH !== 0)
        return undefined
      segments[name] = {identity, hashes: hashes.match(new RegExp(`.{${HASH_LENGTH}}`, 'g')) ?? []}
    }
    return {segments}
  } catch {
    return undefined
  }
}

/** Written whole or not at all (src/store/file/cache-files.ts): a failure only costs the next add a re-read. */
export function saveDigests(agentDir: string, digests: Digests): void {
  const saved: SavedDigests = {version: VERSION, segments: {}}
  for (const [name, {identity, hashes}] of Object.entries(digests.segments))
    saved.segments[name] = {identity, hashes: hashes.join('')}
  writeCacheFile(agentDir, NAME, (part) => part(Buffer.from(JSON.stringify(saved))))
}

/**
 * The digests as a long-running process keeps them: each segment's entry, and for each hash the
 * segments that hold it, so that an add looks its content up once instead of once per segment.
 */
export class HeldDigests {
  private readonly holders = new Map<string, string | string[]>()

  constructor(readonly digests: Digests) {
    for (const [name, entry] of Object.entries(digests.segments)) this.index(name, entry.hashes)
  }

  get(name: string): {identity: string; hashes: string[]} | undefined {
    return this.digests.segments[name]
  }

  names(): string[] {
    return Object.keys(this.digests.segments)
  }

  set(name: string, entry: {identity: string; hashes: string[]}): void {
    this.delete(name)
    this.digests.segments[name] = entry
    this.index(name, entry.hashes)
  }

  delete(name: string): void {
    const entry = this.digests.segments[name]
    if (!entry) return
    delete this.digests.segments[name]
    for (const hash of entry.hashes) {
      const held = this.holders.get(hash)
      if (held === name) this.holders.delete(hash)
      else if (Array.isArray(held)) {
        const rest = held.filter((n) => n !== name)
        if (rest.length === 0) this.holders.delete(hash)
        else this.holders.set(hash, rest.length === 1 ? rest[0]! : rest)
      }
    }
  }

  /** The segments whose hashes include `hash`, in segment order. */
  holding(hash: string): string[] {
    const held = this.holders.get(hash)
    if (held === undefined) return []
    return typeof held === 'string' ? [held] : [...held].sort()
  }

  private index(name: string, hashes: readonly string[]): void {
    for (const hash of hashes) {
      const held = this.holders.get(hash)
      if (held === undefined) this.holders.set(hash, name)
      else if (held === name) continue
      else if (typeof held === 'string') this.holders.set(hash, [held, name])
      else if (!held.includes(name)) held.push(name)
    }
  }
}
