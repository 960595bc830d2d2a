import {createHash} from 'node:crypto'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'

import {FileStore} from '../../src/store/file/file-store.js'
import type {CheckpointRecord, FactRecord} from '../../src/store/records.js'

/**
 * Every file under `dir` with the sha256 of its bytes, to prove that nothing changed. A lock
 * file is there with its name only: whoever takes the lock writes its pid into it, and that is
 * bookkeeping, not data.
 */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string): void => {
    for (const e of readdirSync(d, {withFileTypes: true})) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out[relative(dir, p)] = e.name === 'write.lock' ? 'lock' : sha256(readFileSync(p))
    }
  }
  walk(dir)
  return out
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export function modeOf(path: string): number {
  return statSync(path).mode & 0o777
}

/** Every file and folder under `root` (itself included) with its permission bits. */
export function modes(root: string): {path: string; mode: number; dir: boolean}[] {
  const out = [{path: root, mode: modeOf(root), dir: true}]
  for (const e of readdirSync(root, {withFileTypes: true, recursive: true})) {
    const p = join(e.parentPath, e.name)
    out.push({path: p, mode: modeOf(p), dir: e.isDirectory()})
  }
  return out
}

/** What a fresh reader finds on disk, through the store's own decoding (so a corrupt file fails here). */
export async function readBack(
  home: string,
  agent: string,
): Promise<{facts: FactRecord[]; checkpoints: CheckpointRecord[]}> {
  const store = new FileStore(home)
  return {facts: await store.listFacts(agent), checkpoints: await store.listCheckpoints(agent)}
}

/** Asserts-friendly count of each id: every id must appear exactly once. */
export function duplicates(ids: string[]): string[] {
  const seen = new Set<string>()
  return ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)))
}
