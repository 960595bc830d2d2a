import {join} from 'node:path'

import type {VectorKeeper} from '../../index/indexed-store.js'
import {appendVectors, readVectors} from '../../meaning/vector-file.js'
import {cacheDir} from './cache-files.js'

const NAME = 'vectors.bin'

/** Where an agent's vectors of meaning are kept (docs/adr/0003-storage-layout.md). */
export function vectorsPath(agentDir: string): string {
  return join(cacheDir(agentDir), NAME)
}

/**
 * Where the file store keeps each agent's vectors for the search layer: `cache/vectors.bin` in
 * the agent's folder, records appended as facts are embedded (src/meaning/vector-file.ts).
 * Derived data: never read or written through a linked cache/, and a file that cannot be
 * written costs a re-embed, never a fact. The cursor is the file's identity and the offset read to.
 */
export function vectorKeeper(dirOf: (agent: string) => string): VectorKeeper {
  return {
    read: async (agent, embedder, cursor) => {
      const [file, at] = cursor === undefined ? [undefined, 0] : splitCursor(cursor)
      const read = readVectors(vectorsPath(dirOf(agent)), embedder, undefined, at, file)
      return {
        records: read.records,
        cursor: `${read.file ?? ''}@${read.next}`,
        reset: read.reset && cursor !== undefined,
      }
    },
    append: async (agent, embedder, dimensions, records) =>
      appendVectors(vectorsPath(dirOf(agent)), embedder, dimensions, records),
  }
}

function splitCursor(cursor: string): [string | undefined, number] {
  const at = cursor.lastIndexOf('@')
  const offset = Number(cursor.slice(at + 1))
  if (at < 0 || !Number.isSafeInteger(offset) || offset < 0) return [undefined, 0]
  return [cursor.slice(0, at) || undefined, offset]
}
