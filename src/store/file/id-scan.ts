import {closeSync, constants, openSync, readdirSync, readFileSync} from 'node:fs'

import {JOURNAL_NAME} from './journal.js'
import {inside} from './paths.js'

const SEGMENT_FILE = /^\d{6}\.json$/

/**
 * Whether a segment or journal of `folder` holds the bytes a record with `id` starts with, as
 * mem writes it (`{"id":"…",`). Bytes only, no record decoded: finding which agent holds a
 * mistyped id then costs a read of each agent's files, not a parse of every record. A hit is
 * a candidate for the caller to confirm; a folder that cannot be read holds none.
 */
export function mayHoldRecord(folder: string, id: string): boolean {
  const needle = Buffer.from(`{"id":${JSON.stringify(id)},`)
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return false
  }
  return names.some(
    (name) => (SEGMENT_FILE.test(name) || JOURNAL_NAME.test(name)) && holds(inside(folder, name), needle),
  )
}

function holds(path: string, needle: Buffer): boolean {
  let fd: number
  try {
    // Never through a link: a data file is a plain file mem wrote (src/store/file/links.ts).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch {
    return false
  }
  try {
    return readFileSync(fd).includes(needle)
  } catch {
    return false
  } finally {
    closeSync(fd)
  }
}
