import {randomBytes} from 'node:crypto'
import {closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import type {EncodedIndex, IndexBytes} from '../../index/index-codec.js'
import type {IndexKeeper} from '../../index/indexed-store.js'
import {DIR_MODE, FILE_MODE} from './durable-file.js'
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

export function searchIndexPath(agentDir: string): string {
  return join(cacheDir(agentDir), 'search-index.bin')
}

function cacheDir(agentDir: string): string {
  return join(agentDir, 'cache')
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
 * Saves the index for the next process: a temporary file renamed into place (readers see the
 * old file or the new one, never half of one), mode 0600, not fsynced because losing it costs
 * only a rebuild (a file cut short fails its length or checksum tests). No lock: two savers
 * each rename a whole file, and the next reader catches up from whichever cursor won.
 */
export function saveIndex(agentDir: string, index: EncodedIndex): void {
  try {
    // Never written through a linked cache/ (src/store/file/links.ts): its words would be readable there.
    if (isLink(cacheDir(agentDir))) return
    mkdirSync(cacheDir(agentDir), {recursive: true, mode: DIR_MODE})
    const path = searchIndexPath(agentDir)
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      const fd = openSync(tmp, 'wx', FILE_MODE)
      try {
        index.write((part) => {
          for (let at = 0; at < part.length;) at += writeSync(fd, part, at)
        })
      } finally {
        closeSync(fd)
      }
      renameSync(tmp, path)
    } finally {
      rmSync(tmp, {force: true})
    }
    rmSync(legacyIndexPath(agentDir), {force: true})
  } catch {
    // A cache that cannot be saved (full disk, read-only folder) only costs the next process a rebuild; the search goes on.
  }
}
