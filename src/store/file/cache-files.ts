import {randomBytes} from 'node:crypto'
import {closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {DIR_MODE, FILE_MODE} from './durable-file.js'
import {isLink} from './links.js'

/**
 * An agent's `cache/` folder: derived files (the saved search index, the duplicate digests),
 * which a process rebuilds from the segments when they are missing or do not read. Never read
 * or written through a link (src/store/file/links.ts): what they hold of the facts would be
 * readable wherever the link points.
 */
export function cacheDir(agentDir: string): string {
  return join(agentDir, 'cache')
}

/**
 * Writes `cache/<name>` whole, the bytes `write` hands out one part after another: a temporary
 * file `<name>.<pid>.<hex>.tmp` renamed into place (readers see the old file or the new one,
 * never half of one; mem doctor removes one a killed writer left), mode 0600, not fsynced,
 * because losing it costs a rebuild, never data. No lock: two writers each rename a whole file.
 * False when it was not written (a linked cache/, a full disk, a read-only folder).
 */
export function writeCacheFile(
  agentDir: string,
  name: string,
  write: (part: (bytes: Buffer) => void) => void,
): boolean {
  const dir = cacheDir(agentDir)
  if (isLink(dir)) return false
  const path = join(dir, name)
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    mkdirSync(dir, {recursive: true, mode: DIR_MODE})
    const fd = openSync(tmp, 'wx', FILE_MODE)
    try {
      write((bytes) => {
        for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
      })
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    return true
  } catch {
    return false
  } finally {
    rmSync(tmp, {force: true})
  }
}
