import {linkSync, readFileSync} from 'node:fs'
import {dirname} from 'node:path'

import {backupPath, removeQuietly, writeFileDurably} from '../store/file/durable-file.js'
import {revisionPath} from '../store/file/revision.js'

export {removeQuietly}

/**
 * Puts the last good copy (`<file>.bak`) back in place of a corrupt data file. The corrupt
 * bytes are kept aside under a name mem never reads, and the file is never missing at any
 * instant: the restored copy replaces it by an atomic rename.
 */
export function restoreBackup(path: string, now = new Date()): string {
  const aside = `${path}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`
  linkSync(path, aside)
  try {
    writeFileDurably(path, readFileSync(backupPath(path)), {durable: true, backup: false})
  } catch (error) {
    // The damaged file is still in place: the link aside would only be one more copy per failed attempt.
    removeQuietly(aside)
    throw error
  }
  // The revision stamp is only a cache key: without it every running mem re-reads the restored file.
  removeQuietly(revisionPath(dirname(dirname(path))))
  return aside
}
