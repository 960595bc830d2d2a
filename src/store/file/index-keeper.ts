import {closeSync, constants, fstatSync, openSync, readSync, rmSync} from 'node:fs'
import {join} from 'node:path'

import type {EncodedIndex, IndexBytes} from '../../index/index-codec.js'
import type {IndexKeeper} from '../../index/indexed-store.js'
import {cacheDir, writeCacheFile} from './cache-files.js'
import {isLink} from './links.js'

/**
 * Where the file store keeps each agent's saved search index for the search layer:
 * `cache/search-index.bin` in the agent's folder (docs/adr/0003-storage-layout.md). Derived
 * data: never written or read through a link, and a file that cannot be written only costs the
 * next process a rebuild.
 */
export function indexKeeper(dirOf: (agent: string) => string): IndexKeeper {
  return {
    load: async (agent) => readIndex(dirOf(agent)),
    save: async (agent, index) => saveIndex(dirOf(agent), index),
  }
}

const NAME = 'search-index.bin'

export function searchIndexPath(agentDir: string): string {
  return join(cacheDir(agentDir), NAME)
}

/** Where the JSON index of earlier versions was saved; removed when the new one is. */
function legacyIndexPath(agentDir: string): string {
  return join(cacheDir(agentDir), 'search-index.json')
}

/** The saved file, open: the layer reads it whole, or where a search asks (a cold `mem search`) until it closes it. */
export function readIndex(agentDir: string): IndexBytes | undefined {
  // Through a link, the index could be anyone's (src/store/file/links.ts): it is rebuilt instead.
  if (isLink(cacheDir(agentDir))) return undefined
  let fd: number
  try {
    fd = openSync(searchIndexPath(agentDir), constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const size = fstatSync(fd).size
    return {
      size,
      read: (target, offset, length, position) => readSync(fd, target, offset, length, position),
      close: () => closeSync(fd),
    }
  } catch {
    closeSync(fd)
    return undefined
  }
}

/**
 * Saves the index for the next process, whole or not at all (src/store/file/cache-files.ts): a
 * file cut short fails its length or checksum tests anyway. Whichever of two savers renames
 * last wins, and the next reader catches up from its cursor.
 */
export function saveIndex(agentDir: string, index: EncodedIndex): void {
  if (writeCacheFile(agentDir, NAME, (part) => index.write(part))) rmSync(legacyIndexPath(agentDir), {force: true})
}
